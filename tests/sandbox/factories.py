"""Small builders for the objects sandbox tests create."""

from __future__ import annotations

import copy
from typing import Any

VWC = "ValidatingWebhookConfiguration"
MWC = "MutatingWebhookConfiguration"
ADMISSION = "admissionregistration.k8s.io/v1"
VWC_PATH = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
MWC_PATH = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations"


def namespace(name: str, **labels: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "labels": dict(labels)},
    }


def webhook(name: str = "check.example.com", **overrides: Any) -> dict[str, Any]:
    hook: dict[str, Any] = {
        "name": name,
        "clientConfig": {"service": {"name": "svc", "namespace": "default"}},
        "rules": [
            {
                "operations": ["CREATE"],
                "apiGroups": [""],
                "apiVersions": ["v1"],
                "resources": ["pods"],
            }
        ],
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
    }
    hook.update(copy.deepcopy(overrides))
    return hook


def validating_configuration(
    name: str,
    *,
    labels: dict[str, str] | None = None,
    webhooks: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if labels:
        metadata["labels"] = dict(labels)
    return {
        "apiVersion": ADMISSION,
        "kind": VWC,
        "metadata": metadata,
        "webhooks": webhooks if webhooks is not None else [webhook()],
    }


def mutating_configuration(name: str) -> dict[str, Any]:
    obj = validating_configuration(name)
    obj["kind"] = MWC
    return obj
