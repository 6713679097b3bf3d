"""``labelSelector`` and ``fieldSelector`` query strings, parsed and matched.

Same grammar as k8s.io/apimachinery/pkg/labels (``a=b``, ``a==b``, ``a!=b``,
``a in (x,y)``, ``a notin (x)``, ``a``, ``!a``, comma = AND) and the two field
selectors every resource supports (``metadata.name``, ``metadata.namespace``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from .status import bad_request

Predicate = Callable[[Mapping[str, str]], bool]

_SET_RE = re.compile(r"^\s*(\S+?)\s+(in|notin)\s+\(([^)]*)\)\s*$")
_CMP_RE = re.compile(r"^\s*([^!=\s]+)\s*(==|!=|=)\s*(\S*)\s*$")
_EXISTS_RE = re.compile(r"^\s*(!?)\s*([^!=\s(),]+)\s*$")
_KEY_RE = re.compile(
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
    r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$"
)
_VALUE_RE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$")


def _split_requirements(text: str) -> list[str]:
    """Split at commas that are not inside ``( ... )``."""
    parts: list[str] = []
    depth = 0
    current = ""
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return [p for p in parts if p.strip()]


def _check_key(key: str, requirement: str) -> None:
    if not _KEY_RE.match(key):
        raise bad_request(
            f'unable to parse requirement: <nil>: Invalid value: "{key}": name part '
            "must consist of alphanumeric characters, '-', '_' or '.', and must start "
            f"and end with an alphanumeric character (in {requirement!r})"
        )


def _check_value(value: str, requirement: str) -> None:
    if not _VALUE_RE.match(value):
        raise bad_request(
            f'unable to parse requirement: values[0][{value}]: Invalid value: "{value}"'
            f": a valid label must be an empty string or consist of alphanumeric "
            f"characters, '-', '_' or '.' (in {requirement!r})"
        )


def _requirement(text: str) -> Predicate:
    if match := _SET_RE.match(text):
        key, operator, raw = match.groups()
        _check_key(key, text)
        values = {v.strip() for v in raw.split(",") if v.strip()}
        for value in values:
            _check_value(value, text)
        if operator == "in":
            return lambda labels: key in labels and labels[key] in values
        return lambda labels: key not in labels or labels[key] not in values
    if match := _CMP_RE.match(text):
        key, operator, value = match.groups()
        _check_key(key, text)
        _check_value(value, text)
        if operator == "!=":
            return lambda labels: labels.get(key) != value
        return lambda labels: key in labels and labels[key] == value
    if match := _EXISTS_RE.match(text):
        negate, key = match.groups()
        _check_key(key, text)
        if negate:
            return lambda labels: key not in labels
        return lambda labels: key in labels
    raise bad_request(f"unable to parse requirement: found '{text.strip()}'")


def parse_label_selector(text: str | None) -> Predicate:
    """A predicate over a label map; raises a 400 ApiError for a malformed selector."""
    if not text or not text.strip():
        return lambda labels: True
    predicates = [_requirement(part) for part in _split_requirements(text)]
    return lambda labels: all(p(labels) for p in predicates)


_FIELDS = ("metadata.name", "metadata.namespace")


def parse_field_selector(text: str | None) -> Callable[[dict[str, Any]], bool]:
    """A predicate over an object for ``metadata.name``/``metadata.namespace`` terms."""
    if not text or not text.strip():
        return lambda obj: True
    terms: list[tuple[str, bool, str]] = []
    for part in text.split(","):
        match = re.match(r"^\s*([^!=\s]+)\s*(==|!=|=)\s*(\S*)\s*$", part)
        if not match:
            raise bad_request(f"invalid selector: '{text}'; can't understand '{part}'")
        field, operator, value = match.groups()
        if field not in _FIELDS:
            raise bad_request(f"field label not supported: {field}")
        terms.append((field, operator == "!=", value))

    def matches(obj: dict[str, Any]) -> bool:
        metadata = obj.get("metadata") or {}
        for field, negate, value in terms:
            actual = metadata.get(field.split(".", 1)[1]) or ""
            if (actual == value) == negate:
                return False
        return True

    return matches
