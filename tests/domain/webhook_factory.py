"""Small factories for webhook configurations used by the validation tests."""

from __future__ import annotations

import copy
from typing import Any

from webhooks_ui.domain.errors import FieldError
from webhooks_ui.domain.kinds import API_VERSION_V1, MUTATING, VALIDATING
from webhooks_ui.domain.validation import validate

__all__ = ["MUTATING", "VALIDATING", "config", "errors_of", "keys", "rule", "webhook"]


def rule(**overrides: Any) -> dict:
    """A valid rule: CREATE of core v1 pods."""
    result = {
        "operations": ["CREATE"],
        "apiGroups": [""],
        "apiVersions": ["v1"],
        "resources": ["pods"],
    }
    return _apply(result, overrides)


def webhook(**overrides: Any) -> dict:
    """A valid v1 webhook; overrides replace fields, ``drop=[...]`` removes some."""
    result = {
        "name": "hook.example.com",
        "clientConfig": {"service": {"name": "svc", "namespace": "ns", "path": "/x"}},
        "rules": [rule()],
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
    }
    return _apply(result, overrides)


def config(*webhooks: dict, kind: str = VALIDATING, name: str = "cfg") -> dict:
    return {
        "apiVersion": API_VERSION_V1,
        "kind": kind,
        "metadata": {"name": name},
        "webhooks": list(webhooks) if webhooks else [webhook()],
    }


def _apply(base: dict, overrides: dict[str, Any]) -> dict:
    result = copy.deepcopy(base)
    for field in overrides.pop("drop", ()):
        result.pop(field, None)
    result.update(overrides)
    return result


def keys(errors: list[FieldError]) -> list[tuple[str, str]]:
    """(field, short reason) pairs, e.g. ("webhooks[0].name", "Required")."""
    return [(error.field, _short(error.reason)) for error in errors]


def _short(reason: str) -> str:
    return reason.removeprefix("FieldValue")


def errors_of(
    *hooks: dict, kind: str = VALIDATING, old: dict | None = None, **kwargs: Any
) -> list[tuple[str, str]]:
    """keys() of validating a config holding ``hooks`` (a valid one if none)."""
    return keys(validate(config(*hooks, kind=kind), old=old, **kwargs))


def admission_request(**overrides: Any) -> dict:
    """Admission attributes as ``matching.matches`` reads them: by default,
    CREATE of a labelless Pod ``web-1`` in namespace ``default``."""
    request: dict[str, Any] = {
        "operation": "CREATE",
        "group": "",
        "version": "v1",
        "resource": "pods",
        "subresource": "",
        "kind": "Pod",
        "name": "web-1",
        "namespace": "default",
        "cluster_scoped": False,
        "namespace_labels": {},
        "object_labels": {},
        "old_object_labels": None,
    }
    request.update(overrides)
    return request
