"""Converting legacy admissionregistration.k8s.io/v1beta1 webhook configurations to v1.

v1beta1 (removed in Kubernetes 1.22) filled five webhook fields with defaults
that v1 either changed or dropped. Rewriting only the apiVersion would silently
change what a webhook does (a v1beta1 webhook that failed open would fail
closed), so the conversion writes each v1beta1 default out explicitly and says
so. Fields whose default is the same in both versions (selectors ``{}``,
reinvocationPolicy ``Never``, rule scope ``*``, service port 443) are left
unset: v1 defaulting fills in the same values.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from webhooks_ui.domain.kinds import API_VERSION_V1, API_VERSION_V1BETA1, KINDS


@dataclass(frozen=True)
class DefaultChange:
    """A field v1beta1 would have defaulted differently from v1, now made explicit."""

    field: str  # apiserver path, e.g. ``webhooks[0].failurePolicy``
    v1beta1_default: str | int | tuple[str, ...]
    v1_default: str | int | None  # None: v1 has no default, the field is required
    message: str

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (tuples become lists) for reports and the API."""
        return {
            "field": self.field,
            "v1beta1Default": _json_value(self.v1beta1_default),
            "v1Default": self.v1_default,
            "message": self.message,
        }


@dataclass(frozen=True)
class _LegacyDefault:
    name: str
    v1beta1_default: str | int | tuple[str, ...]
    v1_default: str | int | None
    consequence: str  # what keeping the v1beta1 value means under v1


# From the v1beta1 API reference (webhook-v1beta1-field-notes.txt) and the v1
# defaults (apiserver-behaviour.md D-1, D-5). Order is the order of the report.
_LEGACY_DEFAULTS = (
    _LegacyDefault(
        "failurePolicy",
        "Ignore",
        "Fail",
        "kept as Ignore, so the webhook still fails open",
    ),
    _LegacyDefault(
        "matchPolicy",
        "Exact",
        "Equivalent",
        "kept as Exact, so requests through other API versions still skip it",
    ),
    _LegacyDefault(
        "sideEffects",
        "Unknown",
        None,
        "set to Unknown, which v1 does not accept when creating an object "
        "(only None or NoneOnDryRun); declare the webhook's real side effects",
    ),
    _LegacyDefault(
        "timeoutSeconds",
        30,
        10,
        "kept as 30",
    ),
    _LegacyDefault(
        "admissionReviewVersions",
        ("v1beta1",),
        None,
        'set to ["v1beta1"]',
    ),
)


def is_v1beta1_webhook_configuration(obj: object) -> bool:
    """True for a v1beta1 Mutating/ValidatingWebhookConfiguration (not other kinds)."""
    return (
        isinstance(obj, dict)
        and obj.get("apiVersion") == API_VERSION_V1BETA1
        and obj.get("kind") in KINDS
    )


def convert_to_v1(obj: dict[str, Any]) -> tuple[dict[str, Any], list[DefaultChange]]:
    """The v1 equivalent of a v1beta1 object, and every default made explicit.

    Anything that is not a v1beta1 webhook configuration (a v1 object, another
    kind in the same group such as a v1beta1 ValidatingAdmissionPolicy) comes
    back as the same object, uncopied, with no changes. The input is never
    modified; unknown fields and key order are kept.
    """
    if not is_v1beta1_webhook_configuration(obj):
        return obj, []
    converted = copy.deepcopy(obj)
    converted["apiVersion"] = API_VERSION_V1
    changes: list[DefaultChange] = []
    webhooks = converted.get("webhooks")
    if not isinstance(webhooks, list):
        return converted, changes
    for index, webhook in enumerate(webhooks):
        if not isinstance(webhook, dict):
            continue  # malformed: left for validation to report
        for legacy in _LEGACY_DEFAULTS:
            # Absent and JSON null both count as unset, as in apiserver defaulting.
            if webhook.get(legacy.name) is not None:
                continue
            webhook[legacy.name] = _json_value(legacy.v1beta1_default)
            changes.append(_change(f"webhooks[{index}].{legacy.name}", legacy))
    return converted, changes


def _change(path: str, legacy: _LegacyDefault) -> DefaultChange:
    v1beta1_text = _show(legacy.v1beta1_default)
    if legacy.v1_default is None:
        v1_text = f"v1 has no default and requires {legacy.name}"
    else:
        v1_text = f"v1 would default it to {_show(legacy.v1_default)}"
    message = (
        f"v1beta1 defaulted {legacy.name} to {v1beta1_text}; {v1_text}; "
        f"{legacy.consequence}"
    )
    return DefaultChange(path, legacy.v1beta1_default, legacy.v1_default, message)


def _show(value: str | int | tuple[str, ...]) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(f'"{item}"' for item in value) + "]"
    return str(value)


def _json_value(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value
