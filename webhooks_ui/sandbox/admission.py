"""Defaulting and validation per stored kind, in the apiserver's order (F-1..F-5).

The two webhook kinds use the domain's rules (``webhooks_ui.domain.defaulting``
and ``webhooks_ui.domain.validation``) so the sandbox rejects exactly what the
dashboard's own checks reject. The few core kinds get the handful of defaults
a real apiserver adds that the dashboard looks at.
"""

from __future__ import annotations

import re
from typing import Any

from webhooks_ui.domain.defaulting import apply_defaults
from webhooks_ui.domain.errors import INVALID, REQUIRED, FieldError
from webhooks_ui.domain.kinds import KINDS
from webhooks_ui.domain.validation import validate as validate_webhooks

from .resources import Resource

_DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_DNS1123_SUBDOMAIN = re.compile(
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
)


def default(resource: Resource, obj: dict[str, Any]) -> dict[str, Any]:
    """The object as it would be stored: a deep copy with the kind's defaults."""
    if resource.kind in KINDS:
        return apply_defaults(obj, kind=resource.kind)
    result = apply_defaults(obj, kind=resource.kind)  # a plain JSON deep copy here
    if resource.kind == "Namespace":
        _default_namespace(result)
    elif resource.kind == "Service":
        _default_service(result)
    return result


def _default_namespace(obj: dict[str, Any]) -> None:
    metadata = obj.setdefault("metadata", {})
    name = metadata.get("name")
    if name:
        # The NamespaceDefaultLabelName admission step: always present, always true.
        metadata.setdefault("labels", {})["kubernetes.io/metadata.name"] = name
    obj.setdefault("spec", {}).setdefault("finalizers", ["kubernetes"])
    obj.setdefault("status", {}).setdefault("phase", "Active")


def _default_service(obj: dict[str, Any]) -> None:
    spec = obj.setdefault("spec", {})
    spec.setdefault("type", "ClusterIP")
    spec.setdefault("sessionAffinity", "None")
    spec.setdefault("ipFamilies", ["IPv4"])
    spec.setdefault("ipFamilyPolicy", "SingleStack")
    spec.setdefault("internalTrafficPolicy", "Cluster")
    for port in spec.get("ports") or []:
        if isinstance(port, dict):
            port.setdefault("protocol", "TCP")
            port.setdefault("targetPort", port.get("port"))
    obj.setdefault("status", {"loadBalancer": {}})


def validate(
    resource: Resource, obj: dict[str, Any], old: dict[str, Any] | None
) -> list[FieldError]:
    """Field errors for a defaulted object (``old`` is the stored one on update)."""
    if resource.kind in KINDS:
        # The sandbox reports v1.33, which has no reserved ".static.k8s.io" suffix
        # (V-50 is feature-gated from 1.36).
        return list(validate_webhooks(obj, old=old, reserved_static_suffix=False))
    if resource.kind == "Namespace":
        return _name_errors(obj, _DNS1123_LABEL)
    if resource.kind == "Service":
        return _name_errors(obj, _DNS1035_LABEL)
    errors = _name_errors(obj, _DNS1123_SUBDOMAIN)
    if resource.kind == "EndpointSlice" and not obj.get("addressType"):
        errors.append(FieldError("addressType", REQUIRED))
    return errors


def _name_errors(obj: dict[str, Any], pattern: re.Pattern[str]) -> list[FieldError]:
    name = (obj.get("metadata") or {}).get("name")
    if not name:
        return [
            FieldError("metadata.name", REQUIRED, "name or generateName is required")
        ]
    if not isinstance(name, str) or not pattern.match(name) or len(name) > 253:
        return [FieldError("metadata.name", INVALID, "not a valid name", name)]
    return []
