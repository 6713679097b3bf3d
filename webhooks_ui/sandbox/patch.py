"""PATCH bodies: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and strategic merge.

Strategic merge follows the patch strategies the Go types declare for the two
webhook kinds: ``webhooks`` and ``matchConditions`` merge by ``name``,
``ownerReferences`` by ``uid``; every other list is replaced. The ``$patch``
directives ``delete``/``replace`` are honoured; ``$setElementOrder`` (sent by
``kubectl apply``) is accepted and ignored, as order is kept from the patch.
"""

from __future__ import annotations

import copy
from typing import Any

from .status import ApiError, bad_request, failure

MERGE = "application/merge-patch+json"
JSON_PATCH = "application/json-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
APPLY = "application/apply-patch+yaml"

# Field name -> merge key, wherever the field appears (the Go struct tags agree
# across every place these names occur in our stored kinds).
_MERGE_KEYS = {
    "webhooks": "name",
    "matchConditions": "name",
    "ownerReferences": "uid",
    "ports": "port",
    "containers": "name",
    "conditions": "type",
}


def merge_patch(target: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def _pointer(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise bad_request(f'json patch path "{path}" must start with "/"')
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def _index(container: list[Any], token: str, *, for_insert: bool) -> int:
    if token == "-" and for_insert:
        return len(container)
    if not token.isdigit():
        raise _unprocessable(f"invalid array index {token!r}")
    index = int(token)
    limit = len(container) if for_insert else len(container) - 1
    if index > limit:
        raise _unprocessable(f"array index {index} out of bounds")
    return index


def _unprocessable(message: str) -> ApiError:
    # kube-apiserver answers a JSON patch that cannot be applied with 422.
    return ApiError(failure(422, "Invalid", message))


def _parent(doc: Any, tokens: list[str]) -> Any:
    node = doc
    for token in tokens[:-1]:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list):
            node = node[_index(node, token, for_insert=False)]
        else:
            raise _unprocessable(f"doc is missing path: /{'/'.join(tokens)}")
    return node


def _get(doc: Any, tokens: list[str]) -> Any:
    if not tokens:
        return doc
    parent = _parent(doc, tokens)
    last = tokens[-1]
    if isinstance(parent, dict):
        if last not in parent:
            raise _unprocessable(f"doc is missing key: /{'/'.join(tokens)}")
        return parent[last]
    if isinstance(parent, list):
        return parent[_index(parent, last, for_insert=False)]
    raise _unprocessable(f"doc is missing path: /{'/'.join(tokens)}")


def _remove(doc: Any, tokens: list[str]) -> Any:
    parent = _parent(doc, tokens)
    last = tokens[-1]
    if isinstance(parent, dict):
        if last not in parent:
            raise _unprocessable(f"unable to remove nonexistent key: {last}")
        return parent.pop(last)
    if isinstance(parent, list):
        return parent.pop(_index(parent, last, for_insert=False))
    raise _unprocessable(f"doc is missing path: /{'/'.join(tokens)}")


def _add(doc: Any, tokens: list[str], value: Any, *, replace: bool) -> Any:
    if not tokens:
        return copy.deepcopy(value)
    parent = _parent(doc, tokens)
    last = tokens[-1]
    if isinstance(parent, dict):
        if replace and last not in parent:
            raise _unprocessable(
                f"replace operation does not apply: doc is missing key: {last}"
            )
        parent[last] = copy.deepcopy(value)
    elif isinstance(parent, list):
        if replace:
            parent[_index(parent, last, for_insert=False)] = copy.deepcopy(value)
        else:
            parent.insert(_index(parent, last, for_insert=True), copy.deepcopy(value))
    else:
        raise _unprocessable(f"doc is missing path: /{'/'.join(tokens)}")
    return doc


def json_patch(target: Any, operations: Any) -> Any:
    if not isinstance(operations, list):
        raise bad_request("json patch must be a list of operations")
    doc = copy.deepcopy(target)
    for operation in operations:
        if not isinstance(operation, dict) or "op" not in operation:
            raise bad_request("json patch operation must be an object with an 'op'")
        op = operation["op"]
        tokens = _pointer(str(operation.get("path", "")))
        if op == "add":
            doc = _add(doc, tokens, operation.get("value"), replace=False)
        elif op == "replace":
            doc = _add(doc, tokens, operation.get("value"), replace=True)
        elif op == "remove":
            _remove(doc, tokens)
        elif op in ("move", "copy"):
            source = _pointer(str(operation.get("from", "")))
            value = _remove(doc, source) if op == "move" else _get(doc, source)
            doc = _add(doc, tokens, value, replace=False)
        elif op == "test":
            if _get(doc, tokens) != operation.get("value"):
                raise _unprocessable(
                    f"testing value {operation.get('path')} failed: test failed"
                )
        else:
            raise bad_request(f"Unexpected kind: {op}")
    return doc


def strategic_merge_patch(target: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        raise bad_request("strategic merge patch must be a JSON object")
    return _merge_map(target if isinstance(target, dict) else {}, patch)


def _merge_map(target: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    if patch.get("$patch") == "replace":
        return {k: copy.deepcopy(v) for k, v in patch.items() if k != "$patch"}
    if patch.get("$patch") == "delete":
        return {}
    result = copy.deepcopy(target)
    for key, value in patch.items():
        if key.startswith("$setElementOrder/") or key.startswith("$"):
            continue
        if key.startswith("$deleteFromPrimitiveList/"):
            continue
        if value is None:
            result.pop(key, None)
        elif isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = _merge_map(result[key], value)
        elif isinstance(value, dict):
            result[key] = _merge_map({}, value)
        elif isinstance(value, list) and key in _MERGE_KEYS:
            current = result.get(key)
            result[key] = _merge_list(
                current if isinstance(current, list) else [], value, _MERGE_KEYS[key]
            )
        else:
            result[key] = copy.deepcopy(value)
    return result


def _merge_list(target: list[Any], patch: list[Any], merge_key: str) -> list[Any]:
    if any(isinstance(i, dict) and i.get("$patch") == "replace" for i in patch):
        return [
            copy.deepcopy(i)
            for i in patch
            if not (isinstance(i, dict) and i.get("$patch") == "replace")
        ]
    result = copy.deepcopy(target)
    for item in patch:
        if not isinstance(item, dict) or merge_key not in item:
            result.append(copy.deepcopy(item))
            continue
        position = next(
            (
                i
                for i, existing in enumerate(result)
                if isinstance(existing, dict)
                and existing.get(merge_key) == item[merge_key]
            ),
            None,
        )
        if item.get("$patch") == "delete":
            if position is not None:
                result.pop(position)
        elif position is None:
            result.append(_merge_map({}, item))
        else:
            result[position] = _merge_map(result[position], item)
    return result


def apply_patch(content_type: str, target: dict[str, Any], patch: Any) -> Any:
    """Apply a PATCH body of the given media type to ``target`` (not modified)."""
    if content_type == MERGE:
        return merge_patch(target, patch)
    if content_type == JSON_PATCH:
        return json_patch(target, patch)
    if content_type == STRATEGIC:
        return strategic_merge_patch(target, patch)
    raise ValueError(content_type)
