"""Type checks for fields of a decoded manifest, reported as field errors.

The apiserver's JSON decoder refuses a body whose fields have the wrong JSON
type before validation runs. The dashboard validates plain dicts from YAML and
forms instead, so a wrong type becomes an ``Invalid`` error at its path and
the field is then left out of further checks, instead of crashing a check.
Go's decoding rules are kept where they matter: JSON null in a plain string
field (or list entry) decodes to ``""``; in a pointer field it means unset.
"""

from __future__ import annotations

from typing import Any

from webhooks_ui.domain.errors import INVALID, FieldError

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1


def json_type_name(value: Any) -> str:
    """The JSON name of ``value``'s type, as Go's decoder errors print it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def type_error(path: str, value: Any, expected: str) -> FieldError:
    """``Invalid value: "ten": must be an integer``.

    Containers are shown by their JSON type name only: printing arbitrary
    (possibly huge, deep or cyclic) junk back to the user helps nobody.
    """
    shown = value if isinstance(value, str | int | float | bool) else None
    if shown is None and value is not None:
        shown = json_type_name(value)
    return FieldError(path, INVALID, f"must be {expected}", shown)


def string_value(value: Any, path: str, errors: list[FieldError]) -> str | None:
    """A Go ``string`` field: null is ``""``; a wrong type is reported as None."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    errors.append(type_error(path, value, "a string"))
    return None


def string_list(
    value: Any, path: str, errors: list[FieldError]
) -> list[tuple[int, str]] | None:
    """A Go ``[]string`` field as (index, entry) pairs.

    null is an empty list; wrong-typed entries are reported at their index and
    left out; a value that is not a list is reported and None returned.
    """
    if value is None:
        return []
    if not isinstance(value, list):
        errors.append(type_error(path, value, "a list of strings"))
        return None
    entries = []
    for index, entry in enumerate(value):
        text = string_value(entry, f"{path}[{index}]", errors)
        if text is not None:
            entries.append((index, text))
    return entries


def int32_value(value: Any, path: str, errors: list[FieldError]) -> int | None:
    """A Go ``int32`` field; booleans, floats and out-of-range numbers are reported."""
    if isinstance(value, int) and not isinstance(value, bool):
        if INT32_MIN <= value <= INT32_MAX:
            return value
        errors.append(type_error(path, value, "a 32-bit integer"))
        return None
    errors.append(type_error(path, value, "an integer"))
    return None


def object_value(value: Any, path: str, errors: list[FieldError]) -> dict | None:
    """A JSON object field; anything else is reported and None returned."""
    if isinstance(value, dict):
        return value
    errors.append(type_error(path, value, "an object"))
    return None


def list_value(value: Any, path: str, errors: list[FieldError]) -> list | None:
    """A JSON array field (null is empty); anything else is reported, None returned."""
    if value is None:
        return []
    if isinstance(value, list):
        return value
    errors.append(type_error(path, value, "a list"))
    return None


def map_key(key: Any) -> str:
    """A mapping key as JSON sees it (YAML may produce ints, bools or null keys)."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    return str(key)
