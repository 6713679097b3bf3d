"""``fieldValidation``: decoding a body the way kube-apiserver's strict decoder does.

The known fields are the admissionregistration.k8s.io/v1 field list from the API
reference (``webhooks[]``, ``clientConfig``, ``rules[]``, ...) plus ObjectMeta.
Unknown and duplicate fields are reported with the decoder's path format
(``webhooks[0].clientConfig.foo``); wrongly typed values are a 400 like Go's
``json: cannot unmarshal``. JSON nulls are dropped, as Go decodes them to zero
values that are then omitted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from webhooks_ui.domain.kinds import MUTATING, VALIDATING

from .status import bad_request

# A schema is: a dict of field name -> schema (a struct), ("list", item), or one
# of the leaf names below.
STRING, INT, BOOL, STRING_MAP, ANY = "string", "int", "bool", "map", "any"
Schema = Any

_LABEL_SELECTOR: dict[str, Schema] = {
    "matchLabels": STRING_MAP,
    "matchExpressions": (
        "list",
        {"key": STRING, "operator": STRING, "values": ("list", STRING)},
    ),
}

OBJECT_META: dict[str, Schema] = {
    "name": STRING,
    "generateName": STRING,
    "namespace": STRING,
    "selfLink": STRING,
    "uid": STRING,
    "resourceVersion": STRING,
    "generation": INT,
    "creationTimestamp": ANY,
    "deletionTimestamp": ANY,
    "deletionGracePeriodSeconds": INT,
    "labels": STRING_MAP,
    "annotations": STRING_MAP,
    "ownerReferences": (
        "list",
        {
            "apiVersion": STRING,
            "kind": STRING,
            "name": STRING,
            "uid": STRING,
            "controller": BOOL,
            "blockOwnerDeletion": BOOL,
        },
    ),
    "finalizers": ("list", STRING),
    "managedFields": (
        "list",
        {
            "manager": STRING,
            "operation": STRING,
            "apiVersion": STRING,
            "time": ANY,
            "fieldsType": STRING,
            "fieldsV1": ANY,
            "subresource": STRING,
        },
    ),
}


def _webhook(mutating: bool) -> dict[str, Schema]:
    webhook: dict[str, Schema] = {
        "name": STRING,
        "clientConfig": {
            "url": STRING,
            "caBundle": STRING,
            "service": {
                "namespace": STRING,
                "name": STRING,
                "path": STRING,
                "port": INT,
            },
        },
        "rules": (
            "list",
            {
                "operations": ("list", STRING),
                "apiGroups": ("list", STRING),
                "apiVersions": ("list", STRING),
                "resources": ("list", STRING),
                "scope": STRING,
            },
        ),
        "failurePolicy": STRING,
        "matchPolicy": STRING,
        "namespaceSelector": _LABEL_SELECTOR,
        "objectSelector": _LABEL_SELECTOR,
        "sideEffects": STRING,
        "timeoutSeconds": INT,
        "admissionReviewVersions": ("list", STRING),
        "matchConditions": ("list", {"name": STRING, "expression": STRING}),
    }
    if mutating:
        webhook["reinvocationPolicy"] = STRING
    return webhook


SCHEMAS: dict[str, dict[str, Schema]] = {
    kind: {
        "apiVersion": STRING,
        "kind": STRING,
        "metadata": OBJECT_META,
        "webhooks": ("list", _webhook(kind == MUTATING)),
    }
    for kind in (MUTATING, VALIDATING)
}

_GO_TYPE = {
    STRING: "string",
    INT: "int32",
    BOOL: "bool",
    STRING_MAP: "map[string]string",
}


class _Decoded(dict):
    """A JSON object that remembers keys it saw more than once."""

    duplicates: list[str]


def _pairs(pairs: list[tuple[str, Any]]) -> _Decoded:
    obj = _Decoded()
    obj.duplicates = []
    for key, value in pairs:
        if key in obj and key not in obj.duplicates:
            obj.duplicates.append(key)
        obj[key] = value
    return obj


def parse_json(body: bytes) -> Any:
    """JSON as the decoder sees it: last duplicate wins, duplicates remembered."""
    try:
        return json.loads(body.decode("utf-8"), object_pairs_hook=_pairs)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise bad_request(
            f"couldn't get version/kind; json parse error: {exc.args[0]}"
        ) from exc


@dataclass
class Decoded:
    """A decoded body: the cleaned object plus what a strict decoder objected to."""

    obj: dict[str, Any]
    problems: list[str] = field(default_factory=list)


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


class _Walker:
    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.problems: list[str] = []

    def type_error(self, value: Any, path: str, schema: Schema) -> None:
        if isinstance(schema, dict):
            expected = "struct"
        elif isinstance(schema, tuple):
            expected = "[]" + _GO_TYPE.get(schema[1], "object")
        else:
            expected = _GO_TYPE.get(schema, "object")
        raise bad_request(
            f'{self.kind} in version "v1" cannot be handled as a {self.kind}: json: '
            f"cannot unmarshal {_type_name(value)} into Go struct field "
            f"{self.kind}.{path} of type {expected}"
        )

    def walk(self, value: Any, schema: Schema, path: str) -> Any:
        if schema == ANY:
            return value
        if isinstance(schema, dict):
            if not isinstance(value, dict):
                self.type_error(value, path, schema)
            for key in getattr(value, "duplicates", []):
                self.problems.append(f'duplicate field "{_join(path, key)}"')
            cleaned: dict[str, Any] = {}
            for key, item in value.items():
                if key not in schema:
                    self.problems.append(f'unknown field "{_join(path, key)}"')
                elif item is not None:
                    cleaned[key] = self.walk(item, schema[key], _join(path, key))
            return cleaned
        if isinstance(schema, tuple):
            if not isinstance(value, list):
                self.type_error(value, path, schema)
            return [
                self.walk(item, schema[1], f"{path}[{index}]")
                for index, item in enumerate(value)
                if item is not None
            ]
        if schema == STRING_MAP:
            if not isinstance(value, dict) or not all(
                isinstance(v, str) for v in value.values()
            ):
                self.type_error(value, path, schema)
            return dict(value)
        if schema == STRING and not isinstance(value, str):
            self.type_error(value, path, schema)
        if schema == INT and (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or int(value) != value
        ):
            self.type_error(value, path, schema)
        if schema == BOOL and not isinstance(value, bool):
            self.type_error(value, path, schema)
        return int(value) if schema == INT else value


def decode(kind: str, obj: dict[str, Any]) -> Decoded:
    """Check ``obj`` against the kind's known fields (unknown kinds pass unchecked)."""
    schema = SCHEMAS.get(kind)
    if schema is None:
        return Decoded(_plain(obj))
    walker = _Walker(kind)
    cleaned = walker.walk(obj, schema, "")
    return Decoded(cleaned, walker.problems)


def _plain(value: Any) -> Any:
    """Drop the duplicate-tracking subclass so objects serialise and compare simply."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def apply_directive(decoded: Decoded, directive: str) -> list[str]:
    """Enforce ``fieldValidation``; returns Warning header values for ``Warn``."""
    if not decoded.problems or directive == "Ignore":
        return []
    if directive == "Strict":
        raise bad_request("strict decoding error: " + ", ".join(decoded.problems))
    return ['299 - "' + p.replace('"', '\\"') + '"' for p in decoded.problems]


def check_directive(value: str | None) -> str:
    """Validate the query parameter; kube-apiserver's default is Warn."""
    if value in (None, ""):
        return "Warn"
    if value not in ("Ignore", "Warn", "Strict"):
        raise bad_request(
            f'invalid fieldValidation directive: "{value}"; valid values are '
            '"Ignore", "Warn", "Strict"'
        )
    return value
