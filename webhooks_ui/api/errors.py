"""One error shape for every API failure: ``{"error": {code, message, details}}``.

DRF's own exceptions (401, 400 validation, 405, 415), Django's Http404 and
PermissionDenied (from ``cluster_for`` and the services) and ours all pass
through ``exception_handler``. The change-request services' errors map to:

- ``ChangeError``: 409 with its code (invalid_state, dry_run_failed, policy,
  conflict), except ``not_valid`` (the content or input is invalid): 422,
  and ``precondition_failed``: 412;
- ``DraftError`` (the change is no longer a draft...): 409 ``invalid_state``;
- ``ChangeOpenError`` (a malformed request to open one): 400 ``invalid``;
- the model's last-line refusal of a self-approval (``PermissionError``): 403.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from webhooks_ui.services.change_open import ChangeOpenError
from webhooks_ui.services.changes import ChangeError
from webhooks_ui.services.drafts import DraftError

_CHANGE_ERROR_STATUS = {
    "not_valid": status.HTTP_422_UNPROCESSABLE_ENTITY,
    "precondition_failed": status.HTTP_412_PRECONDITION_FAILED,
}


class ApiError(exceptions.APIException):
    """An error with a code, a message and structured details of our choosing."""

    def __init__(
        self,
        message: str,
        *,
        code: str,
        status_code: int = status.HTTP_400_BAD_REQUEST,
        details: Any = None,
    ) -> None:
        super().__init__(detail=message, code=code)
        self.status_code = status_code
        self.details = details


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler decides status and headers (WWW-Authenticate); we shape
    the body."""
    exc = _translated(exc)
    response = drf_exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.APIException):
        return response
    response.data = {"error": error_body(exc, response.data)}
    return response


def _translated(exc: Exception) -> Exception:
    if isinstance(exc, Http404):
        return exceptions.NotFound(str(exc) or None)
    if isinstance(exc, PermissionDenied | PermissionError):
        return exceptions.PermissionDenied(str(exc) or None)
    if isinstance(exc, ChangeError):
        code = exc.code
        status_code = _CHANGE_ERROR_STATUS.get(code, status.HTTP_409_CONFLICT)
        return ApiError(str(exc), code=code, status_code=status_code)
    if isinstance(exc, DraftError):
        return ApiError(str(exc), code="invalid_state", status_code=409)
    if isinstance(exc, ChangeOpenError):
        return exceptions.ValidationError({exc.field or "non_field_errors": [str(exc)]})
    return exc


def error_body(exc: exceptions.APIException, data: Any) -> dict[str, Any]:
    if isinstance(exc, ApiError):
        return {"code": _code(exc), "message": str(exc.detail), "details": exc.details}
    if isinstance(exc, exceptions.ValidationError):
        return {
            "code": "invalid",
            "message": _first_message(data) or "Invalid input.",
            "details": data,
        }
    return {"code": _code(exc), "message": str(exc.detail), "details": None}


def _code(exc: exceptions.APIException) -> str:
    codes = exc.get_codes()
    return codes if isinstance(codes, str) else exc.default_code


def _first_message(data: Any) -> str:
    if isinstance(data, dict):
        for key, value in data.items():
            message = _first_message(value)
            if message:
                return message if key == "non_field_errors" else f"{key}: {message}"
    if isinstance(data, list):
        for value in data:
            message = _first_message(value)
            if message:
                return message
    if isinstance(data, str):
        return data
    return ""
