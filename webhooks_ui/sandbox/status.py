"""``Status`` error bodies shaped exactly like kube-apiserver's (apimachinery errors).

Clients (client-go, the Python client, our own kube layer) branch on ``code`` and
``reason`` and show ``message``; keeping the wording identical means the dashboard
shows the same text against the sandbox as against a real cluster.
"""

from __future__ import annotations

from typing import Any

from webhooks_ui.domain.errors import invalid_status
from webhooks_ui.domain.kinds import KINDS

from .resources import Resource


class ApiError(Exception):
    """A failed request, carrying the complete Status body the server answers with."""

    def __init__(self, status: dict[str, Any]) -> None:
        super().__init__(status.get("message", ""))
        self.status = status

    @property
    def code(self) -> int:
        return int(self.status["code"])

    @property
    def reason(self) -> str:
        return str(self.status.get("reason", ""))


def failure(
    code: int,
    reason: str,
    message: str,
    details: dict[str, Any] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
    }
    if details is not None:
        body["details"] = details
    body["code"] = code
    return body


def success(resource: Resource, name: str, uid: str) -> dict[str, Any]:
    """What DELETE answers for kinds whose registry does not return the object."""
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": {
            "name": name,
            "group": resource.group,
            "kind": resource.plural,
            "uid": uid,
        },
    }


def _details(resource: Resource, name: str) -> dict[str, Any]:
    details: dict[str, Any] = {"name": name} if name else {}
    if resource.group:
        details["group"] = resource.group
    details["kind"] = resource.plural
    return details


def not_found(resource: Resource, name: str) -> ApiError:
    return ApiError(
        failure(
            404,
            "NotFound",
            f'{resource.qualified_plural} "{name}" not found',
            _details(resource, name),
        )
    )


def namespace_not_found(namespace: str) -> ApiError:
    return ApiError(
        failure(
            404,
            "NotFound",
            f'namespaces "{namespace}" not found',
            {"name": namespace, "kind": "namespaces"},
        )
    )


def path_not_found() -> ApiError:
    return ApiError(
        failure(404, "NotFound", "the server could not find the requested resource", {})
    )


def already_exists(resource: Resource, name: str) -> ApiError:
    return ApiError(
        failure(
            409,
            "AlreadyExists",
            f'{resource.qualified_plural} "{name}" already exists',
            _details(resource, name),
        )
    )


def conflict(resource: Resource, name: str, why: str) -> ApiError:
    return ApiError(
        failure(
            409,
            "Conflict",
            f'Operation cannot be fulfilled on {resource.qualified_plural} "{name}": '
            f"{why}",
            _details(resource, name),
        )
    )


STALE_OBJECT = (
    "the object has been modified; please apply your changes to the latest version "
    "and try again"
)


def stale(resource: Resource, name: str) -> ApiError:
    return conflict(resource, name, STALE_OBJECT)


def invalid(resource: Resource, name: str, errors: list[Any]) -> ApiError:
    """422 with one cause per field error (``webhooks_ui.domain.errors.FieldError``)."""
    if resource.kind in KINDS:
        return ApiError(invalid_status(resource.kind, name, errors))
    subject = f'{resource.kind} "{name}" is invalid'
    if resource.group:
        subject = f'{resource.kind}.{resource.group} "{name}" is invalid'
    texts = [str(error) for error in errors]
    message = subject + (
        f": {texts[0]}" if len(texts) == 1 else f": [{', '.join(texts)}]"
    )
    details = {
        "name": name,
        "group": resource.group,
        "kind": resource.kind,
        "causes": [error.as_cause() for error in errors],
    }
    return ApiError(failure(422, "Invalid", message, details))


def bad_request(message: str) -> ApiError:
    return ApiError(failure(400, "BadRequest", message))


def unauthorized() -> ApiError:
    return ApiError(failure(401, "Unauthorized", "Unauthorized"))


def forbidden(
    user: str, verb: str, resource: Resource | None, name: str, namespace: str | None
) -> ApiError:
    if resource is None:
        return ApiError(
            failure(
                403,
                "Forbidden",
                f'forbidden: User "{user}" cannot {verb} path',
                {},
            )
        )
    subject = resource.qualified_plural
    if name:
        subject = f'{subject} "{name}"'
    scope = f'in the namespace "{namespace}"' if namespace else "at the cluster scope"
    message = (
        f'{subject} is forbidden: User "{user}" cannot {verb} resource '
        f'"{resource.plural}" in API group "{resource.group}" {scope}'
    )
    return ApiError(failure(403, "Forbidden", message, _details(resource, name)))


def method_not_allowed() -> ApiError:
    return ApiError(
        failure(
            405,
            "MethodNotAllowed",
            "the server does not allow this method on the requested resource",
            {},
        )
    )


def unsupported_media_type(content_type: str) -> ApiError:
    return ApiError(
        failure(
            415,
            "UnsupportedMediaType",
            f"the body of the request was in an unknown format - accepted media types "
            f"include: application/json-patch+json, application/merge-patch+json, "
            f'application/strategic-merge-patch+json; got "{content_type}"',
        )
    )


def expired(message: str) -> dict[str, Any]:
    """410: kube-apiserver uses reason ``Expired`` for a compacted resourceVersion."""
    return failure(410, "Expired", message)


def too_old_resource_version(requested: int, oldest: int) -> dict[str, Any]:
    return expired(f"too old resource version: {requested} ({oldest})")


def injected(code: int) -> dict[str, Any]:
    """A fault-injected error, with the reason the apiserver uses for that code."""
    reasons = {
        400: "BadRequest",
        401: "Unauthorized",
        403: "Forbidden",
        404: "NotFound",
        405: "MethodNotAllowed",
        409: "Conflict",
        410: "Expired",
        422: "Invalid",
        429: "TooManyRequests",
        500: "InternalError",
        503: "ServiceUnavailable",
        504: "Timeout",
    }
    return failure(
        code,
        reasons.get(code, "InternalError"),
        f"sandbox: injected fault (HTTP {code})",
        {},
    )
