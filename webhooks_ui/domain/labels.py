"""Name, label and label-selector checks worded exactly like apimachinery's.

Ported from ``k8s.io/apimachinery/pkg/util/validation``,
``pkg/api/validate/content/kube.go`` and ``pkg/apis/meta/v1/validation``
(spec V-2..V-5, V-23, V-30..V-33, V-36). The ``is_*`` functions return the
apiserver's message strings (empty when valid); the ``validate_*`` functions
return field errors at a path. Lengths are counted in UTF-8 bytes, as Go does.
"""

from __future__ import annotations

import re
from typing import Any

from webhooks_ui.domain.errors import FORBIDDEN, INVALID, REQUIRED, FieldError
from webhooks_ui.domain.fieldtypes import (
    list_value,
    map_key,
    object_value,
    string_list,
    string_value,
)

DNS1123_LABEL_MAX_LENGTH = 63
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
DNS1035_LABEL_MAX_LENGTH = 63
LABEL_KEY_NAME_MAX_LENGTH = 63
LABEL_VALUE_MAX_LENGTH = 63

_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric "
    "characters or '-', and must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric character"
)
_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035_LABEL_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
    "start with an alphabetic character, and end with an alphanumeric character"
)
_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_KEY_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_LABEL_VALUE_FMT = "(" + _LABEL_KEY_FMT + ")?"
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, "
    "'-', '_' or '.', and must start and end with an alphanumeric character"
)

# Compiled once: validation runs per keystroke in the editor and per object in
# bulk checks. fullmatch, because Go's "^...$" does not accept a trailing "\n".
_DNS1123_LABEL_RE = re.compile(_DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN_RE = re.compile(_DNS1123_SUBDOMAIN_FMT)
_DNS1035_LABEL_RE = re.compile(_DNS1035_LABEL_FMT)
_LABEL_KEY_RE = re.compile(_LABEL_KEY_FMT)
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)

EMPTY_ERROR = "must be non-empty"


def max_len_error(length: int) -> str:
    return f"must be no more than {length} characters"


def regex_error(message: str, fmt: str, *examples: str) -> str:
    """apimachinery's RegexError: the message, examples and the regex used."""
    if not examples:
        return f"{message} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{example}'" for example in examples)
    return f"{message} (e.g. {shown}, regex used for validation is '{fmt}')"


def byte_length(value: str) -> int:
    """Go's len(): UTF-8 bytes, not code points."""
    if value.isascii():
        return len(value)
    return len(value.encode("utf-8", "surrogatepass"))


def is_dns1123_label(value: str) -> list[str]:
    errors = []
    if byte_length(value) > DNS1123_LABEL_MAX_LENGTH:
        errors.append(max_len_error(DNS1123_LABEL_MAX_LENGTH))
    if not _DNS1123_LABEL_RE.fullmatch(value):
        if _DNS1123_SUBDOMAIN_RE.fullmatch(value):
            # A valid subdomain but not a label: length was checked, so dots.
            errors.append("must not contain dots")
        else:
            errors.append(
                regex_error(
                    _DNS1123_LABEL_MSG, _DNS1123_LABEL_FMT, "my-name", "123-abc"
                )
            )
    return errors


def is_dns1123_subdomain(value: str) -> list[str]:
    errors = []
    if byte_length(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errors.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errors.append(
            regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com")
        )
    return errors


def is_dns1035_label(value: str) -> list[str]:
    errors = []
    if byte_length(value) > DNS1035_LABEL_MAX_LENGTH:
        errors.append(max_len_error(DNS1035_LABEL_MAX_LENGTH))
    if not _DNS1035_LABEL_RE.fullmatch(value):
        errors.append(
            regex_error(_DNS1035_LABEL_MSG, _DNS1035_LABEL_FMT, "my-name", "abc-123")
        )
    return errors


def _label_key_regex_error() -> str:
    return regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")


def is_qualified_name(value: str) -> list[str]:
    """A label key / qualified name: optional DNS-subdomain prefix, '/', name."""
    errors: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errors.append("prefix part " + EMPTY_ERROR)
        else:
            errors.extend("prefix part " + msg for msg in is_dns1123_subdomain(prefix))
    else:
        return [
            "a valid label key "
            + _label_key_regex_error()
            + " with an optional DNS subdomain prefix and '/'"
            + " (e.g. 'example.com/MyName')"
        ]
    if not name:
        errors.append("name part " + EMPTY_ERROR)
    elif byte_length(name) > LABEL_KEY_NAME_MAX_LENGTH:
        errors.append("name part " + max_len_error(LABEL_KEY_NAME_MAX_LENGTH))
    if not _LABEL_KEY_RE.fullmatch(name):
        errors.append("name part " + _label_key_regex_error())
    return errors


def is_valid_label_value(value: str) -> list[str]:
    errors = []
    if byte_length(value) > LABEL_VALUE_MAX_LENGTH:
        errors.append(max_len_error(LABEL_VALUE_MAX_LENGTH))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errors.append(
            regex_error(
                _LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"
            )
        )
    return errors


def name_is_dns_subdomain(name: str, prefix: bool = False) -> list[str]:
    """ValidateNameFunc for object names; ``prefix`` checks a generateName."""
    if prefix and len(name) > 1 and name.endswith("-"):
        # apimachinery's maskTrailingDash, byte for byte (it drops two chars).
        name = name[:-2] + "a"
    return is_dns1123_subdomain(name)


def is_fully_qualified_name(path: str, name: str) -> list[FieldError]:
    """Webhook names (V-3..V-5): required, a subdomain, at least three parts."""
    if not name:
        return [FieldError(path, REQUIRED)]
    messages = is_dns1123_subdomain(name)
    if messages:
        return [FieldError(path, INVALID, ",".join(messages), name)]
    if len(name.split(".")) < 3:
        return [
            FieldError(
                path,
                INVALID,
                "should be a domain with at least three segments separated by dots",
                name,
            )
        ]
    return []


def validate_label_name(key: str, path: str) -> list[FieldError]:
    return [FieldError(path, INVALID, msg, key) for msg in is_qualified_name(key)]


def validate_labels(labels: Any, path: str) -> list[FieldError]:
    """A ``map[string]string`` of labels: each bad key and value at ``path`` (V-30)."""
    errors: list[FieldError] = []
    if labels is None:
        return errors
    if object_value(labels, path, errors) is None:
        return errors
    for raw_key, raw_value in labels.items():
        errors.extend(validate_label_name(map_key(raw_key), path))
        value = string_value(raw_value, path, errors)
        if value is not None:
            errors.extend(
                FieldError(path, INVALID, msg, value)
                for msg in is_valid_label_value(value)
            )
    return errors


def validate_label_selector(
    selector: Any, path: str, *, allow_invalid_label_value: bool = False
) -> list[FieldError]:
    """metav1validation.ValidateLabelSelector (V-30..V-33).

    ``allow_invalid_label_value`` skips the per-value check of
    ``matchExpressions[*].values`` (the update relaxation of V-43).
    """
    errors: list[FieldError] = []
    if selector is None:
        return errors
    if object_value(selector, path, errors) is None:
        return errors
    errors.extend(validate_labels(selector.get("matchLabels"), f"{path}.matchLabels"))
    expressions_path = f"{path}.matchExpressions"
    expressions = list_value(selector.get("matchExpressions"), expressions_path, errors)
    for index, requirement in enumerate(expressions or ()):
        errors.extend(
            _validate_requirement(
                requirement,
                f"{expressions_path}[{index}]",
                allow_invalid_label_value,
            )
        )
    return errors


def _validate_requirement(
    requirement: Any, path: str, allow_invalid_label_value: bool
) -> list[FieldError]:
    errors: list[FieldError] = []
    if object_value(requirement, path, errors) is None:
        return errors
    values_path = f"{path}.values"
    raw_values = requirement.get("values")
    values = string_list(raw_values, values_path, errors)
    operator = string_value(requirement.get("operator"), f"{path}.operator", errors)
    # Go counts entries; a wrong-typed entry was reported but still is one.
    count = len(raw_values) if isinstance(raw_values, list) else 0
    if operator in ("In", "NotIn"):
        if values is not None and count == 0:
            errors.append(
                FieldError(
                    values_path,
                    REQUIRED,
                    "must be specified when `operator` is 'In' or 'NotIn'",
                )
            )
    elif operator in ("Exists", "DoesNotExist"):
        if count > 0:
            errors.append(
                FieldError(
                    values_path,
                    FORBIDDEN,
                    "may not be specified when `operator` is 'Exists' or "
                    "'DoesNotExist'",
                )
            )
    elif operator is not None:
        errors.append(
            FieldError(
                f"{path}.operator", INVALID, "not a valid selector operator", operator
            )
        )
    key = string_value(requirement.get("key"), f"{path}.key", errors)
    if key is not None:
        errors.extend(validate_label_name(key, f"{path}.key"))
    if not allow_invalid_label_value:
        for index, value in values or ():
            errors.extend(
                FieldError(f"{values_path}[{index}]", INVALID, msg, value)
                for msg in is_valid_label_value(value)
            )
    return errors


def label_selector_has_errors(selector: Any) -> bool:
    """True when a stored selector fails strict validation (drives V-43)."""
    return bool(validate_label_selector(selector, ""))
