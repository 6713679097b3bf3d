"""The smallest valid webhook and configuration, for tests that tweak one field."""

from __future__ import annotations

from typing import Any


def make_webhook(name: str = "a.example.com", **fields: Any) -> dict[str, Any]:
    webhook = {
        "name": name,
        "clientConfig": {"service": {"namespace": "ns", "name": "svc"}},
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
    webhook.update(fields)
    return webhook


def make_config(
    *webhooks: dict[str, Any],
    kind: str = "ValidatingWebhookConfiguration",
    **metadata: Any,
) -> dict[str, Any]:
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": kind,
        "metadata": {"name": "cfg", **metadata},
        "webhooks": list(webhooks) or [make_webhook()],
    }
