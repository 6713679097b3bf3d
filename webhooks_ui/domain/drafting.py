"""Pure rules for editing a configuration as a draft.

What the editor starts from (the live object without server-managed fields,
or a skeleton), keeping an injected caBundle the user did not touch, where a
field path sits in the YAML a person typed, and which risk findings an edit
adds or removes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import MappingNode, Node, SequenceNode

from webhooks_ui.domain.coverage import Coverage, CoveredResource
from webhooks_ui.domain.defaulting import json_copy
from webhooks_ui.domain.kinds import API_VERSION_V1, MUTATING
from webhooks_ui.domain.manifest import dump_yaml
from webhooks_ui.domain.normalize import strip_server_fields
from webhooks_ui.domain.risk import Finding

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_LAST_SEGMENT = re.compile(r"(\.[^.\[]+|\[[^\]]*\])\Z")


def editable_text(obj: Mapping[str, Any]) -> str:
    """The YAML a person edits: the object without server-managed fields."""
    return dump_yaml(strip_server_fields(obj))


def skeleton(kind: str, name: str = "") -> dict[str, Any]:
    """A minimal new configuration of ``kind`` with one webhook to fill in."""
    hook: dict[str, Any] = {
        "name": "example.webhooks.example.com",
        "clientConfig": {
            "service": {
                "namespace": "webhooks",
                "name": "webhook-service",
                "path": "/validate",
                "port": 443,
            }
        },
        "rules": [
            {
                "apiGroups": [""],
                "apiVersions": ["v1"],
                "operations": ["CREATE", "UPDATE"],
                "resources": ["pods"],
                "scope": "Namespaced",
            }
        ],
        "failurePolicy": "Fail",
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
        "timeoutSeconds": 5,
    }
    if kind == MUTATING:
        hook["clientConfig"]["service"]["path"] = "/mutate"
        hook["reinvocationPolicy"] = "Never"
    return {
        "apiVersion": API_VERSION_V1,
        "kind": kind,
        "metadata": {"name": name or "new-webhook-configuration"},
        "webhooks": [hook],
    }


def clone_object(obj: Mapping[str, Any], *, name: str, drop_ca_bundles: bool) -> dict:
    """A copy of ``obj`` to create elsewhere: server fields and ownerReferences
    (which name objects of the source cluster) left out, renamed, and with the
    caBundles dropped when they were injected (they belong to the source)."""
    result = strip_server_fields(obj)
    metadata = result.get("metadata")
    if not isinstance(metadata, dict):
        metadata = result["metadata"] = {}
    metadata.pop("ownerReferences", None)
    metadata["name"] = name
    if drop_ca_bundles:
        for hook in _hooks(result):
            client_config = hook.get("clientConfig")
            if isinstance(client_config, dict):
                client_config.pop("caBundle", None)
    return result


def carry_ca_bundles(
    proposed: Mapping[str, Any], base: Mapping[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """``proposed`` with the base's caBundle put back into every webhook (matched
    by name) whose clientConfig lost it, and the names of those webhooks.

    For configurations whose caBundle is injected: leaving it out of the YAML
    must not remove it. A caBundle the user set to another value is kept.
    """
    result = json_copy(dict(proposed))
    base_bundles = {
        hook.get("name"): hook["clientConfig"]["caBundle"]
        for hook in _hooks(base)
        if isinstance(hook.get("clientConfig"), dict)
        and hook["clientConfig"].get("caBundle")
    }
    carried: list[str] = []
    for hook in _hooks(result):
        name = hook.get("name")
        client_config = hook.get("clientConfig")
        if name not in base_bundles or not isinstance(client_config, dict):
            continue
        if not client_config.get("caBundle"):
            client_config["caBundle"] = base_bundles[name]
            carried.append(str(name))
    return result, carried


def field_lines(text: str) -> dict[str, int]:
    """{apiserver field path: 1-based line} for every node of a one-document YAML
    (or JSON) text; empty when it does not parse."""
    try:
        root = YAML(typ="safe", pure=True).compose(text)
    except (YAMLError, ValueError):
        return {}
    lines: dict[str, int] = {}
    if root is not None:
        _walk(root, "", lines)
    return lines


def line_for(lines: Mapping[str, int], path: str) -> int | None:
    """The line of ``path``, or of its nearest ancestor present in the text (a
    required field that is missing is reported where its parent is)."""
    while path:
        if path in lines:
            return lines[path]
        shorter = _LAST_SEGMENT.sub("", path)
        if shorter == path:
            break
        path = shorter.lstrip(".")
    return None


def risk_delta(
    before: Iterable[Finding], after: Iterable[Finding]
) -> tuple[list[Finding], list[Finding]]:
    """(findings the edit adds, findings it removes), compared by (check, field)."""
    old = {(f.check_id, f.field): f for f in before}
    new = {(f.check_id, f.field): f for f in after}
    added = [finding for key, finding in new.items() if key not in old]
    removed = [finding for key, finding in old.items() if key not in new]
    return added, removed


def _hooks(obj: Mapping[str, Any]) -> list[dict[str, Any]]:
    hooks = obj.get("webhooks")
    if not isinstance(hooks, list):
        return []
    return [hook for hook in hooks if isinstance(hook, dict)]


def _walk(node: Node, path: str, lines: dict[str, int]) -> None:
    if isinstance(node, MappingNode):
        for key_node, value_node in node.value:
            key = str(key_node.value)
            if _IDENTIFIER.match(key):
                child = f"{path}.{key}" if path else key
            else:
                child = f"{path}[{key}]"
            lines.setdefault(child, key_node.start_mark.line + 1)
            _walk(value_node, child, lines)
    elif isinstance(node, SequenceNode):
        for index, item in enumerate(node.value):
            child = f"{path}[{index}]"
            lines.setdefault(child, item.start_mark.line + 1)
            _walk(item, child, lines)


@dataclass(frozen=True)
class CoverageChange:
    """What one webhook intercepts after the edit that it did not before, and
    the reverse: ``(resource, operations)`` pairs and namespace names."""

    webhook: str
    gained: tuple[tuple[str, tuple[str, ...]], ...]
    lost: tuple[tuple[str, tuple[str, ...]], ...]
    namespaces_gained: tuple[str, ...]
    namespaces_lost: tuple[str, ...]


def coverage_delta(
    before: Iterable[Coverage], after: Iterable[Coverage]
) -> list[CoverageChange]:
    """Per webhook (by name), the requests and namespaces an edit adds or removes."""
    old = {coverage.webhook_name: coverage for coverage in before}
    new = {coverage.webhook_name: coverage for coverage in after}
    changes = []
    for name in [*old, *(n for n in new if n not in old)]:
        old_hits, new_hits = _hits(old.get(name)), _hits(new.get(name))
        old_ns, new_ns = _namespaces(old.get(name)), _namespaces(new.get(name))
        change = CoverageChange(
            webhook=name,
            gained=_by_resource(new_hits - old_hits),
            lost=_by_resource(old_hits - new_hits),
            namespaces_gained=tuple(sorted(new_ns - old_ns)),
            namespaces_lost=tuple(sorted(old_ns - new_ns)),
        )
        if any(
            (
                change.gained,
                change.lost,
                change.namespaces_gained,
                change.namespaces_lost,
            )
        ):
            changes.append(change)
    return changes


def _hits(coverage: Coverage | None) -> set[tuple[str, str]]:
    if coverage is None:
        return set()
    return {
        (_resource_label(row), operation)
        for row in coverage.resources
        for operation in row.operations
    }


def _namespaces(coverage: Coverage | None) -> set[str]:
    return set(coverage.selected_namespaces) if coverage else set()


def _resource_label(row: CoveredResource) -> str:
    group = row.group or "core"
    return f"{row.name} ({group}/{row.version})"


def _by_resource(
    hits: set[tuple[str, str]],
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    grouped: dict[str, list[str]] = {}
    for resource, operation in sorted(hits):
        grouped.setdefault(resource, []).append(operation)
    return tuple((resource, tuple(ops)) for resource, ops in grouped.items())
