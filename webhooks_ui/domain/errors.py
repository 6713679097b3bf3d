"""Field errors shaped and worded like kube-apiserver's (apimachinery field.Error).

Every module that reports a user's mistake returns these, so the UI, the API,
the sandbox's 422 answers and ``check_webhooks`` all print the same words.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from webhooks_ui.domain.kinds import GROUP

REQUIRED = "FieldValueRequired"
INVALID = "FieldValueInvalid"
NOT_SUPPORTED = "FieldValueNotSupported"
DUPLICATE = "FieldValueDuplicate"
FORBIDDEN = "FieldValueForbidden"
TOO_MANY = "FieldValueTooMany"
TOO_LONG = "FieldValueTooLong"

_PRINTED = {
    REQUIRED: "Required value",
    INVALID: "Invalid value",
    NOT_SUPPORTED: "Unsupported value",
    DUPLICATE: "Duplicate value",
    FORBIDDEN: "Forbidden",
    TOO_MANY: "Too many",
    TOO_LONG: "Too long",
}
# Types whose printed body omits the offending value (field.Error.ErrorBody).
_WITHOUT_VALUE = {REQUIRED, FORBIDDEN, TOO_LONG}

_OMITTED = object()


@dataclass(frozen=True, eq=False)
class FieldError:
    """One problem at one field path (``webhooks[0].rules[1].operations[2]``)."""

    field: str
    reason: str
    detail: str = ""
    value: Any = field(default=_OMITTED, repr=False)

    @property
    def message(self) -> str:
        """The text after the path, as the apiserver puts it in a Status cause."""
        body = _PRINTED.get(self.reason, self.reason)
        if self.reason not in _WITHOUT_VALUE and self.value is not _OMITTED:
            body = f"{body}: {format_value(self.value)}"
        if self.detail:
            body = f"{body}: {self.detail}"
        return body

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"

    def key(self) -> tuple[str, str]:
        """The (field, reason) pair: the robust way to compare against the apiserver."""
        return (self.field, self.reason)

    def as_cause(self) -> dict[str, str]:
        """This error as a ``Status.details.causes[]`` entry."""
        return {"reason": self.reason, "message": self.message, "field": self.field}


def format_value(value: Any) -> str:
    """Render a bad value the way Go's field errors do: strings quoted, nil as null."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)


def qualified_kind(kind: str) -> str:
    """``ValidatingWebhookConfiguration.admissionregistration.k8s.io``."""
    return f"{kind}.{GROUP}"


def invalid_message(kind: str, name: str, errors: list[FieldError]) -> str:
    """The apiserver's 422 message for an object that failed validation."""
    subject = f'{qualified_kind(kind)} "{name}" is invalid'
    if not errors:
        return subject
    if len(errors) == 1:
        return f"{subject}: {errors[0]}"
    return f"{subject}: [{', '.join(str(e) for e in errors)}]"


def invalid_status(kind: str, name: str, errors: list[FieldError]) -> dict[str, Any]:
    """A complete ``Status`` object for HTTP 422, as kube-apiserver returns it."""
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": invalid_message(kind, name, errors),
        "reason": "Invalid",
        "details": {
            "name": name,
            "group": GROUP,
            "kind": kind,
            "causes": [error.as_cause() for error in errors],
        },
        "code": 422,
    }
