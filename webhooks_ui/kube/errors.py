"""Our exception types for cluster API failures, with messages safe to show.

Messages name the cluster's server and what went wrong; they never contain
credentials, request headers or bodies we sent.
"""

from __future__ import annotations

import json
import socket
import ssl
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import urllib3.exceptions
from kubernetes.client.exceptions import ApiException


class KubeError(Exception):
    """Base of every cluster API failure; ``str()`` is the human message."""

    status: int | None = None

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        reason: str = "",
        causes: list[dict[str, Any]] | None = None,
        retry_continue: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status
        self.reason = reason
        self.causes = causes or []
        # A 410 during pagination may carry a continue token to resume from.
        self.retry_continue = retry_continue

    def __str__(self) -> str:
        return self.message


class Unreachable(KubeError):
    """Connection refused, name resolution failure, timeout, dropped connection."""


class TlsError(KubeError):
    """The TLS handshake failed: wrong CA, bad client certificate, wrong name."""


class Unauthorized(KubeError):
    status = 401


class Forbidden(KubeError):
    status = 403


class NotFound(KubeError):
    status = 404


class Conflict(KubeError):
    status = 409


class Gone(KubeError):
    status = 410


class Invalid(KubeError):
    """422: the object was rejected; ``causes`` holds the Status causes."""

    status = 422


class BadRequest(KubeError):
    status = 400


class ServerError(KubeError):
    """5xx from the API server (or something in front of it)."""


class MalformedResponse(KubeError):
    """The server answered 2xx with something that is not the JSON we expect."""


_BY_STATUS: dict[int, type[KubeError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    410: Gone,
    422: Invalid,
}
_SUMMARY = {
    400: "bad request",
    401: "unauthorized: the credentials were rejected",
    403: "forbidden: the credentials lack permission",
    404: "not found",
    409: "conflict: the object changed since it was read",
    410: "gone: the resourceVersion or continue token expired",
    422: "invalid",
}
_MAX_SERVER_MESSAGE = 500


def safe_url(url: str) -> str:
    """``url`` without user-info or query string (which could hold secrets)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<invalid URL>"
    netloc = parts.hostname or ""
    if parts.port:
        netloc = f"{netloc}:{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _status_body(body: Any) -> dict[str, Any]:
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    if not isinstance(body, str) or not body:
        return {}
    try:
        data = json.loads(body)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def from_api_exception(exc: ApiException, *, where: str) -> KubeError:
    """Map the client's ApiException (HTTP error or status 0) to our type."""
    status = exc.status or 0
    if status == 0:
        text = str(exc.reason or "")
        if "SSL" in text or "certificate" in text.lower():
            return TlsError(f"{where}: TLS handshake failed ({_first_line(text)}).")
        return Unreachable(f"{where}: request failed ({_first_line(text)}).")
    return from_status(status, exc.body, where=where)


def from_status(status: int, body: Any, *, where: str) -> KubeError:
    """Map an HTTP error status and its (Status) body to our type."""
    data = _status_body(body)
    server_message = str(data.get("message") or "")[:_MAX_SERVER_MESSAGE]
    details = data.get("details") if isinstance(data.get("details"), dict) else {}
    causes = [c for c in details.get("causes") or [] if isinstance(c, dict)]
    cls = _BY_STATUS.get(status)
    if cls is None:
        cls = ServerError if status >= 500 else KubeError
    summary = _SUMMARY.get(status) or (
        "server error" if status >= 500 else "unexpected answer"
    )
    message = f"{where}: {summary} (HTTP {status})"
    if server_message:
        message = f"{message}: {server_message}"
    retry_continue = None
    if status == 410:
        metadata = (
            data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
        )
        retry_continue = metadata.get("continue")
    return cls(
        message,
        status=status,
        reason=str(data.get("reason") or ""),
        causes=causes,
        retry_continue=retry_continue,
    )


def from_transport_error(
    exc: BaseException, *, where: str, timeout: float
) -> KubeError:
    """Map urllib3/socket/ssl errors (connect, DNS, timeout, TLS) to our type."""
    if isinstance(exc, urllib3.exceptions.MaxRetryError) and exc.reason is not None:
        exc = exc.reason
    if isinstance(exc, urllib3.exceptions.SSLError | ssl.SSLError):
        return TlsError(f"{where}: TLS handshake failed ({_ssl_detail(exc)}).")
    if isinstance(exc, urllib3.exceptions.NameResolutionError | socket.gaierror):
        return Unreachable(f"{where}: the host name does not resolve.")
    # NewConnectionError subclasses ConnectTimeoutError: test it first.
    if isinstance(exc, urllib3.exceptions.NewConnectionError | ConnectionError):
        return Unreachable(f"{where}: connection refused or unreachable.")
    if isinstance(
        exc,
        urllib3.exceptions.TimeoutError | TimeoutError | socket.timeout,
    ):
        return Unreachable(f"{where}: no answer within {timeout:g} seconds.")
    if isinstance(exc, urllib3.exceptions.ProtocolError):
        return Unreachable(f"{where}: the connection was closed unexpectedly.")
    return Unreachable(f"{where}: request failed ({type(exc).__name__}).")


def _ssl_detail(exc: BaseException) -> str:
    text = str(exc)
    for marker in ("CERTIFICATE_VERIFY_FAILED", "certificate verify failed"):
        if marker in text:
            return "certificate verify failed: check the cluster's CA"
    if "hostname" in text.lower() or "match" in text.lower():
        return "the server certificate does not match the host name"
    return _first_line(text)[:200]


def _first_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip()[:200] if lines else "no detail"
