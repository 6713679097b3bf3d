"""Reading everything sync needs from one cluster, before anything is written.

A ``ClusterSnapshot`` is fetched over the network in full; only then does sync
open its transaction, so a failure part-way leaves the database untouched.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from webhooks_ui.domain.kinds import KINDS
from webhooks_ui.kube import reader
from webhooks_ui.kube.client import KubeClient

# Server-managed fields that change without the configuration changing.
# resourceVersion moves on every write (including no-op status/managedFields
# updates); managedFields records who wrote last; generation only moves with
# the content already hashed, so including it adds nothing but noise. uid and
# creationTimestamp stay in: they change only when the object was recreated.
CHURN_METADATA = ("resourceVersion", "managedFields", "generation")
SERVICE_NAME_LABEL = "kubernetes.io/service-name"


def content_hash(obj: dict[str, Any]) -> str:
    """SHA-256 of the object without server-managed churn, keys sorted."""
    metadata = obj.get("metadata") or {}
    stable = {
        **obj,
        "metadata": {k: v for k, v in metadata.items() if k not in CHURN_METADATA},
    }
    text = json.dumps(stable, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def webhook_counts(obj: dict[str, Any]) -> tuple[int, int]:
    """(webhooks, fail-closed webhooks); v1 defaults failurePolicy to Fail."""
    webhooks = obj.get("webhooks") or []
    closed = sum(
        1
        for webhook in webhooks
        if isinstance(webhook, dict) and webhook.get("failurePolicy") != "Ignore"
    )
    return len(webhooks), closed


def referenced_services(objects: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """(namespace, name) of every service a webhook's clientConfig calls."""
    found: set[tuple[str, str]] = set()
    for obj in objects:
        for webhook in obj.get("webhooks") or []:
            service = ((webhook or {}).get("clientConfig") or {}).get("service")
            if isinstance(service, dict) and service.get("name"):
                found.add((str(service.get("namespace") or ""), str(service["name"])))
    return found


@dataclass
class ClusterSnapshot:
    """One cluster as read in one sync: configurations and their context."""

    server_version: str = ""
    configurations: dict[str, reader.ListResult] = field(default_factory=dict)
    namespaces: list[dict[str, Any]] = field(default_factory=list)
    services: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    resources: list[dict[str, Any]] = field(default_factory=list)

    @property
    def resource_versions(self) -> dict[str, str]:
        return {kind: r.resource_version for kind, r in self.configurations.items()}

    def objects(self) -> list[dict[str, Any]]:
        return [obj for r in self.configurations.values() for obj in r.items]


def snapshot_fetch(client: KubeClient, *, page_size: int) -> ClusterSnapshot:
    """Read version, both kinds, namespaces, referenced services, discovery.

    Services: only those webhooks call, read per namespace (list services and
    endpointslices there). Webhook backends live in a handful of namespaces,
    so this is two small lists per namespace, where a cluster-wide list would
    carry every Service and EndpointSlice of a large cluster.
    """
    snapshot = ClusterSnapshot(server_version=reader.server_version(client))
    for kind in KINDS:
        snapshot.configurations[kind] = reader.list_configurations(
            client, kind, page_size=page_size
        )
    snapshot.namespaces = reader.list_namespaces(client, page_size=page_size).items
    wanted = referenced_services(snapshot.objects())
    for namespace in sorted({ns for ns, _ in wanted if ns}):
        services = reader.list_services(client, namespace, page_size=page_size).items
        slices = reader.list_endpoint_slices(client, namespace, page_size=page_size)
        ready = _ready_endpoints(slices.items)
        present = {(svc.get("metadata") or {}).get("name"): svc for svc in services}
        for ns, name in wanted:
            if ns != namespace:
                continue
            service = present.get(name)
            snapshot.services[(ns, name)] = {
                "exists": service is not None,
                "ports": ((service or {}).get("spec") or {}).get("ports") or [],
                "ready_endpoint_count": ready.get(name, 0) if service else 0,
            }
    for key in wanted - snapshot.services.keys():  # no namespace given
        snapshot.services[key] = {
            "exists": False,
            "ports": [],
            "ready_endpoint_count": 0,
        }
    snapshot.resources = reader.discover(client).resources
    return snapshot


def _ready_endpoints(slices: list[dict[str, Any]]) -> dict[str, int]:
    """Ready endpoints per service name; an unset ``ready`` counts as ready."""
    counts: dict[str, int] = {}
    for endpoint_slice in slices:
        labels = (endpoint_slice.get("metadata") or {}).get("labels") or {}
        service = labels.get(SERVICE_NAME_LABEL)
        if not service:
            continue
        for endpoint in endpoint_slice.get("endpoints") or []:
            conditions = (endpoint or {}).get("conditions") or {}
            if conditions.get("ready") is not False:
                counts[service] = counts.get(service, 0) + 1
    return counts
