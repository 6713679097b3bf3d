"""Small factory functions for test data (no JSON fixtures)."""

from __future__ import annotations

import copy
from typing import Any

import yaml

from webhooks_ui.domain.kinds import API_VERSION_V1, MUTATING, VALIDATING
from webhooks_ui.models import Cluster
from webhooks_ui.services.clusters import cluster_register

SECRET_TOKEN = "s3cr3t-token-never-shown-0123456789"


def webhook(
    name: str = "check.example.com",
    *,
    service: tuple[str, str] | None = ("webhooks", "checker"),
    failure_policy: str | None = "Fail",
    mutating: bool = False,
) -> dict[str, Any]:
    """One webhook entry, with every required field."""
    client_config: dict[str, Any]
    if service:
        client_config = {
            "service": {"namespace": service[0], "name": service[1], "port": 443}
        }
    else:
        client_config = {"url": "https://hooks.example.com/check"}
    entry: dict[str, Any] = {
        "name": name,
        "clientConfig": client_config,
        "rules": [
            {
                "apiGroups": [""],
                "apiVersions": ["v1"],
                "operations": ["CREATE", "UPDATE"],
                "resources": ["pods"],
                "scope": "*",
            }
        ],
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
    }
    if failure_policy:
        entry["failurePolicy"] = failure_policy
    if mutating:
        entry["reinvocationPolicy"] = "Never"
    return entry


def configuration(
    name: str = "checks",
    *,
    kind: str = VALIDATING,
    webhooks: int = 1,
    service: tuple[str, str] | None = ("webhooks", "checker"),
    failure_policy: str | None = "Fail",
    labels: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A Mutating/ValidatingWebhookConfiguration manifest."""
    metadata: dict[str, Any] = {"name": name}
    if labels:
        metadata["labels"] = dict(labels)
    return {
        "apiVersion": API_VERSION_V1,
        "kind": kind,
        "metadata": metadata,
        "webhooks": [
            webhook(
                f"w{index}.{name}.example.com",
                service=service,
                failure_policy=failure_policy,
                mutating=kind == MUTATING,
            )
            for index in range(webhooks)
        ],
    }


def namespace(name: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "labels": labels or {}},
    }


def service(namespace_name: str, name: str, port: int = 443) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": namespace_name},
        "spec": {"ports": [{"port": port, "targetPort": 8443, "protocol": "TCP"}]},
    }


def endpoint_slice(
    namespace_name: str, service_name: str, *, ready: int = 1, not_ready: int = 0
) -> dict[str, Any]:
    endpoints = [
        {"addresses": [f"10.0.0.{i + 1}"], "conditions": {"ready": True}}
        for i in range(ready)
    ] + [
        {"addresses": [f"10.0.1.{i + 1}"], "conditions": {"ready": False}}
        for i in range(not_ready)
    ]
    return {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {
            "name": f"{service_name}-abcde",
            "namespace": namespace_name,
            "labels": {"kubernetes.io/service-name": service_name},
        },
        "addressType": "IPv4",
        "ports": [{"port": 8443, "protocol": "TCP"}],
        "endpoints": endpoints,
    }


def backend(namespace_name: str = "webhooks", name: str = "checker") -> list[dict]:
    """A namespace with a ready service: what ``configuration()`` points at."""
    return [
        namespace(namespace_name),
        service(namespace_name, name),
        endpoint_slice(namespace_name, name),
    ]


def kubeconfig(
    *,
    server: str = "https://127.0.0.1:6443",
    contexts: dict[str, dict[str, Any]] | None = None,
    current: str | None = "main",
    cluster_extra: dict[str, Any] | None = None,
    user: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A kubeconfig document; ``contexts`` maps names to context bodies."""
    contexts = contexts or {"main": {"cluster": "main", "user": "main"}}
    cluster_body = {"server": server, **(cluster_extra or {})}
    document: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "main", "cluster": cluster_body}],
        "users": [
            {"name": "main", "user": {"token": SECRET_TOKEN} if user is None else user}
        ],
        "contexts": [{"name": n, "context": c} for n, c in contexts.items()],
    }
    if current:
        document["current-context"] = current
    return copy.deepcopy(document)


def sandbox_cluster(sandbox: Any, name: str | None = None, **overrides: Any) -> Cluster:
    """Register a running sandbox as a cluster, through its kubeconfig."""
    return cluster_register(
        name=name or sandbox.name,
        environment=overrides.pop("environment", "test"),
        kubeconfig_text=yaml.safe_dump(sandbox.kubeconfig(**overrides)),
        is_sandbox=True,
        replace=True,
    )


def token_cluster(
    name: str = "tok",
    *,
    server: str = "https://127.0.0.1:1",
    token: str = SECRET_TOKEN,
    ca_pem: str | None = None,
) -> Cluster:
    return cluster_register(
        name=name, environment="test", server=server, token=token, ca_pem=ca_pem
    )


def start_sandbox(name: str = "sb", objects: list[dict] | None = None) -> Any:
    """A started sandbox holding the default webhook backend plus ``objects``."""
    from webhooks_ui.sandbox.server import SandboxServer

    return SandboxServer(name=name, objects=[*backend(), *(objects or [])]).start()
