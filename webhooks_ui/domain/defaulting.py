"""The admissionregistration.k8s.io/v1 defaults (D-1..D-4) that kube-apiserver applies.

kube-apiserver defaults a decoded body before validating or storing it, so the
dashboard does the same before validating, diffing or matching: otherwise a
stored object and the manifest it came from would look different.
"""

from __future__ import annotations

import copy
from typing import Any

from webhooks_ui.domain.kinds import API_VERSION_V1, KINDS, MUTATING

# D-1: every webhook of either kind. Selectors get a fresh dict each time so
# callers can mutate one default without changing another.
_WEBHOOK_DEFAULTS: tuple[tuple[str, Any], ...] = (
    ("failurePolicy", "Fail"),
    ("matchPolicy", "Equivalent"),
    ("namespaceSelector", {}),
    ("objectSelector", {}),
    ("timeoutSeconds", 10),
)
# D-2: mutating webhooks only.
_MUTATING_DEFAULTS: tuple[tuple[str, Any], ...] = (("reinvocationPolicy", "Never"),)


def webhook_default(field: str, *, kind: str) -> Any:
    """The v1 default of a webhook field for ``kind``, or None when it has none."""
    extra = _MUTATING_DEFAULTS if kind == MUTATING else ()
    for name, value in (*_WEBHOOK_DEFAULTS, *extra):
        if name == field:
            return copy.deepcopy(value)
    return None


def apply_defaults(obj: dict, *, kind: str | None = None) -> dict:
    """Return a deep copy of ``obj`` with the v1 defaults filled in.

    A field gets its default when it is absent or JSON null; explicit values
    (``""`` and ``0`` included) are kept, as Go's pointer defaulting does.
    Anything of an unexpected type is left alone, never raised on: validation
    reports it. ``kind`` overrides ``obj["kind"]`` for bodies that lack it.
    Objects of another apiVersion (v1beta1 has other defaults) are only copied.
    """
    return fill_defaults_in_place(json_copy(obj), kind=kind)


def fill_defaults_in_place(result: Any, *, kind: str | None = None) -> Any:
    """``apply_defaults`` without the copy, for callers that own a private copy
    already (normalising copies once, not twice: sync fingerprints every
    changed object)."""
    if not isinstance(result, dict):
        return result
    kind = kind if kind is not None else result.get("kind")
    if kind not in KINDS or result.get("apiVersion", API_VERSION_V1) not in (
        API_VERSION_V1,
        None,
    ):
        return result
    webhooks = result.get("webhooks")
    if not isinstance(webhooks, list):
        return result
    extra = _MUTATING_DEFAULTS if kind == MUTATING else ()
    for webhook in webhooks:
        if isinstance(webhook, dict):
            _default_webhook(webhook, extra)
    return result


def json_copy(value: Any) -> Any:
    """Deep-copy JSON-like data without recursion.

    ``copy.deepcopy`` recurses, so a deeply nested (or YAML-anchored, cyclic)
    body would raise RecursionError; user input must never do that. Cycles
    are preserved, leaves that are not dicts or lists are shared: JSON leaves
    are immutable.
    """
    if not isinstance(value, dict | list):
        return value
    try:
        # Fast path for ordinary objects; deep or cyclic input overflows the
        # stack and takes the iterative path below instead.
        return _copy_recursive(value)
    except RecursionError:
        return _copy_iterative(value)


def _copy_recursive(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _copy_recursive(child) for key, child in value.items()}
    if isinstance(value, list):
        return [_copy_recursive(child) for child in value]
    return value


def _copy_iterative(value: dict | list) -> dict | list:
    memo: dict[int, Any] = {}
    root = {} if isinstance(value, dict) else []
    memo[id(value)] = root
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, child in items:
            if isinstance(child, dict | list):
                copied = memo.get(id(child))
                if copied is None:
                    copied = {} if isinstance(child, dict) else []
                    memo[id(child)] = copied
                    stack.append((child, copied))
                child = copied
            if isinstance(target, dict):
                target[key] = child
            else:
                target.append(child)
    return root


def _default_webhook(webhook: dict, extra: tuple[tuple[str, Any], ...]) -> None:
    for name, value in (*_WEBHOOK_DEFAULTS, *extra):
        if webhook.get(name) is None:
            webhook[name] = copy.copy(value)
    rules = webhook.get("rules")
    if isinstance(rules, list):
        for rule in rules:
            # D-3
            if isinstance(rule, dict) and rule.get("scope") is None:
                rule["scope"] = "*"
    client_config = webhook.get("clientConfig")
    if isinstance(client_config, dict):
        service = client_config.get("service")
        # D-4: only a service reference has a port to default.
        if isinstance(service, dict) and service.get("port") is None:
            service["port"] = 443
