"""Routing and the REST verbs: turns one HTTP request into one response (or a stream).

Paths, verbs, query parameters and answers follow kube-apiserver's generic REST
handlers: ``/api/v1/...`` and ``/apis/<group>/<version>/...``, namespaced paths
under ``namespaces/<ns>/``, the deprecated ``/watch/`` prefix, ``dryRun``,
``fieldValidation``, ``fieldManager``, selectors, ``limit``/``continue``,
``watch`` and Table output for kubectl.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from webhooks_ui.domain.manifest import ManifestError, load_documents

from . import discovery, fields, openapi, patch, tables
from .faults import FaultPlan
from .paging import Paginator
from .resources import Resource, find, is_stored
from .selectors import parse_field_selector, parse_label_selector
from .status import (
    ApiError,
    bad_request,
    forbidden,
    method_not_allowed,
    not_found,
    path_not_found,
    success,
    unauthorized,
    unsupported_media_type,
)
from .store import ObjectStore
from .watch import WatchRequest, stream

WRITE_VERBS = frozenset({"create", "update", "patch", "delete", "deletecollection"})
PUBLIC_PATHS = frozenset({"/version", "/healthz", "/livez", "/readyz"})
DEFAULT_WATCH_SECONDS = 1800
# Kinds whose registry answers DELETE with the object rather than a Status.
_DELETE_RETURNS_OBJECT = frozenset({"Namespace", "Service"})


@dataclass(frozen=True)
class User:
    name: str
    read_only: bool


@dataclass
class Backend:
    """What request handling needs from the running sandbox."""

    store: ObjectStore
    users_by_token: Mapping[str, User]
    faults: FaultPlan
    paginator: Paginator
    stopping: threading.Event
    server_address: Callable[[], str]
    bookmark_interval: float = 5.0


@dataclass(frozen=True)
class ApiRequest:
    method: str
    path: str
    query: Mapping[str, list[str]]
    headers: Mapping[str, str]
    body: bytes

    def param(self, name: str) -> str | None:
        values = self.query.get(name)
        return values[-1] if values else None

    def flag(self, name: str) -> bool:
        return (self.param(name) or "").lower() in ("true", "1")

    @property
    def accept(self) -> str:
        return self.headers.get("Accept") or ""

    @property
    def content_type(self) -> str:
        value = self.headers.get("Content-Type") or "application/json"
        return value.split(";")[0].strip().lower()


@dataclass
class Response:
    status: int
    body: Any = None
    content_type: str = "application/json"
    warnings: list[str] = field(default_factory=list)
    events: Iterator[dict[str, Any]] | None = None

    def encoded(self) -> bytes:
        if isinstance(self.body, bytes):
            return self.body
        if isinstance(self.body, str):
            return self.body.encode()
        return json.dumps(self.body, separators=(",", ":")).encode() + b"\n"


@dataclass(frozen=True)
class Target:
    """The resource a REST path names."""

    resource: Resource
    namespace: str | None
    name: str | None
    subresource: str | None
    watch_path: bool


def authenticate(backend: Backend, request: ApiRequest) -> User:
    header = request.headers.get("Authorization") or ""
    scheme, _, token = header.partition(" ")
    user = backend.users_by_token.get(token.strip()) if scheme == "Bearer" else None
    if user is None:
        raise unauthorized()
    return user


def dispatch(backend: Backend, request: ApiRequest) -> Response:
    path = "/" + request.path.strip("/")
    if path in ("/healthz", "/livez", "/readyz"):
        return Response(200, "ok", content_type="text/plain; charset=utf-8")
    if path == "/version":
        return Response(200, discovery.version_info())
    user = authenticate(backend, request)
    if request.method != "GET" and (
        path in ("/api", "/apis") or path.startswith("/openapi")
    ):
        raise method_not_allowed()
    if path == "/api":
        if discovery.wants_aggregated(request.accept):
            return _aggregated(discovery.aggregated(core=True))
        return Response(200, discovery.core_versions(backend.server_address()))
    if path == "/apis":
        if discovery.wants_aggregated(request.accept):
            return _aggregated(discovery.aggregated(core=False))
        return Response(200, discovery.group_list())
    if path == "/openapi/v3":
        return Response(200, openapi.root())
    if path.startswith("/openapi/v3/"):
        document = openapi.find_document(path.removeprefix("/openapi/v3/"))
        if document is None:
            raise path_not_found()
        return Response(200, document)
    parts = path.strip("/").split("/")
    if parts[0] == "api" and len(parts) >= 2:
        group, version, rest = "", parts[1], parts[2:]
    elif parts[0] == "apis" and len(parts) == 2:
        found = discovery.api_group(parts[1])
        if found is None:
            raise path_not_found()
        return Response(200, found)
    elif parts[0] == "apis" and len(parts) >= 3:
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        raise path_not_found()
    if not rest:
        listed = discovery.resource_list(group, version)
        if listed is None:
            raise path_not_found()
        return Response(200, listed)
    target = parse_target(group, version, rest)
    verb = _verb(request, target)
    if user.read_only and verb in WRITE_VERBS:
        raise forbidden(
            user.name, verb, target.resource, target.name or "", target.namespace
        )
    return _VERBS[verb](backend, request, target)


def _aggregated(body: dict[str, Any]) -> Response:
    return Response(200, body, content_type=discovery.AGGREGATED_MEDIA_TYPE)


def parse_target(group: str, version: str, rest: list[str]) -> Target:
    watch_path = rest[0] == "watch"
    if watch_path:
        rest = rest[1:]
    namespace: str | None = None
    if (
        len(rest) >= 3
        and rest[0] == "namespaces"
        and not (len(rest) == 3 and rest[2] in ("status", "finalize"))
    ):
        namespace, rest = rest[1], rest[2:]
    if not rest or len(rest) > 3:
        raise path_not_found()
    resource = find(group, version, rest[0])
    if resource is None or (namespace is not None and not resource.namespaced):
        raise path_not_found()
    name = rest[1] if len(rest) > 1 else None
    subresource = rest[2] if len(rest) > 2 else None
    if subresource is not None and subresource not in {
        s.name for s in resource.subresources
    }:
        raise path_not_found()
    return Target(resource, namespace, name, subresource, watch_path)


def _verb(request: ApiRequest, target: Target) -> str:
    method = request.method
    if target.subresource is not None:
        # Subresources are listed in discovery but not implemented.
        raise method_not_allowed()
    if method == "GET":
        if target.watch_path or request.flag("watch"):
            verb = "watch"
        else:
            verb = "list" if target.name is None else "get"
    elif method == "POST" and target.name is None:
        verb = "create"
    elif method == "PUT" and target.name is not None:
        verb = "update"
    elif method == "PATCH" and target.name is not None:
        verb = "patch"
    elif method == "DELETE":
        verb = "delete" if target.name is not None else "deletecollection"
    else:
        raise method_not_allowed()
    if verb not in target.resource.verbs:
        raise method_not_allowed()
    if not is_stored(target.resource) and verb != "list":
        if verb == "get":
            raise not_found(target.resource, target.name or "")
        raise method_not_allowed()
    return verb


# -- reads -------------------------------------------------------------------------


def _labels(obj: dict[str, Any]) -> dict[str, str]:
    return (obj.get("metadata") or {}).get("labels") or {}


def _selector(
    request: ApiRequest, name: str | None = None
) -> Callable[[dict[str, Any]], bool]:
    by_label = parse_label_selector(request.param("labelSelector"))
    by_field = parse_field_selector(request.param("fieldSelector"))

    def matches(obj: dict[str, Any]) -> bool:
        if name is not None and obj["metadata"].get("name") != name:
            return False
        return by_label(_labels(obj)) and by_field(obj)

    return matches


def _int_param(request: ApiRequest, name: str, default: int) -> int:
    value = request.param(name)
    if value in (None, ""):
        return default
    try:
        return int(value)
    except ValueError:
        raise bad_request(
            f'{name}: Invalid value: "{value}": must be an integer'
        ) from None


def _without_type(obj: dict[str, Any]) -> dict[str, Any]:
    # Typed lists omit apiVersion/kind on items, as kube-apiserver's JSON does.
    return {k: v for k, v in obj.items() if k not in ("apiVersion", "kind")}


def _list(backend: Backend, request: ApiRequest, target: Target) -> Response:
    resource = target.resource
    if is_stored(resource):
        items, rv = backend.store.snapshot(resource, target.namespace)
    else:
        items, rv = [], backend.store.resource_version
    matches = _selector(request)
    items = [i for i in items if matches(i)]
    page, rv, token, remaining = backend.paginator.page(
        items,
        rv,
        limit=_int_param(request, "limit", 0),
        token=request.param("continue"),
        compacted_rv=backend.store.compacted_resource_version,
    )
    metadata: dict[str, Any] = {"resourceVersion": str(rv)}
    if token:
        metadata["continue"] = token
        if not request.param("labelSelector") and not request.param("fieldSelector"):
            metadata["remainingItemCount"] = remaining
    if tables.wants_table(request.accept):
        return Response(
            200,
            tables.table(
                resource,
                page,
                list_metadata=metadata,
                include_object=request.param("includeObject") or "Metadata",
            ),
        )
    return Response(
        200,
        {
            "kind": f"{resource.kind}List",
            "apiVersion": resource.api_version,
            "metadata": metadata,
            "items": [_without_type(i) for i in page],
        },
    )


def _get(backend: Backend, request: ApiRequest, target: Target) -> Response:
    resource = target.resource
    obj = backend.store.get(
        resource.api_version, resource.kind, target.name or "", target.namespace
    )
    if tables.wants_table(request.accept):
        return Response(
            200,
            tables.table(
                resource,
                [obj],
                list_metadata={"resourceVersion": obj["metadata"]["resourceVersion"]},
                include_object=request.param("includeObject") or "Metadata",
            ),
        )
    return Response(200, obj)


def _watch(backend: Backend, request: ApiRequest, target: Target) -> Response:
    raw_rv = request.param("resourceVersion")
    start: int | None = None
    if raw_rv not in (None, "", "0"):
        try:
            start = int(raw_rv)
        except ValueError:
            raise bad_request(f"invalid resource version: {raw_rv}") from None
    watch_request = WatchRequest(
        resource=target.resource,
        namespace=target.namespace,
        matches=_selector(request, target.name),
        resource_version=start,
        send_initial_events=request.flag("sendInitialEvents"),
        allow_bookmarks=request.flag("allowWatchBookmarks"),
        timeout_seconds=_int_param(request, "timeoutSeconds", DEFAULT_WATCH_SECONDS),
        bookmark_interval=backend.bookmark_interval,
    )
    events = stream(backend.store, watch_request, backend.stopping)
    if tables.wants_table(request.accept):
        events = _as_tables(target.resource, events, request)
    return Response(200, events=events)


def _as_tables(
    resource: Resource, events: Iterator[dict[str, Any]], request: ApiRequest
) -> Iterator[dict[str, Any]]:
    include = request.param("includeObject") or "Metadata"
    for event in events:
        if event["type"] in ("ADDED", "MODIFIED", "DELETED"):
            obj = event["object"]
            rv = obj["metadata"].get("resourceVersion", "")
            event = {
                "type": event["type"],
                "object": tables.table(
                    resource,
                    [obj],
                    list_metadata={"resourceVersion": rv},
                    include_object=include,
                ),
            }
        yield event


# -- writes ------------------------------------------------------------------------


def _dry_run(request: ApiRequest, options: Mapping[str, Any] | None = None) -> bool:
    values = list(request.query.get("dryRun", []))
    if options and isinstance(options.get("dryRun"), list):
        values += options["dryRun"]
    for value in values:
        if value != "All":
            raise bad_request(
                f'dryRun: Unsupported value: "{value}": supported values: "All"'
            )
    return bool(values)


def _check_field_manager(request: ApiRequest) -> None:
    manager = request.param("fieldManager")
    if manager is not None and (
        len(manager) > 128 or not all(c.isprintable() for c in manager)
    ):
        raise bad_request(
            f'fieldManager: Invalid value: "{manager}": must be at most 128 '
            "printable characters"
        )


def _parse_body(request: ApiRequest) -> Any:
    if request.content_type in ("application/yaml", "application/x-yaml"):
        try:
            documents = load_documents(request.body, source="request body")
        except ManifestError as exc:
            raise bad_request(str(exc)) from exc
        if len(documents) != 1:
            raise bad_request("the request body must hold exactly one object")
        return documents[0]
    if request.content_type not in ("application/json", "*/*", ""):
        raise unsupported_media_type(request.content_type)
    if not request.body.strip():
        raise bad_request("the request body is empty")
    return fields.parse_json(request.body)


def _decode_object(
    request: ApiRequest, target: Target, raw: Any, warnings: list[str]
) -> dict[str, Any]:
    """Check kind/apiVersion and unknown fields; returns the cleaned object."""
    resource = target.resource
    if not isinstance(raw, dict):
        raise bad_request(
            f'{resource.kind} in version "{resource.version}" cannot be handled as a '
            f"{resource.kind}: the body is not a JSON object"
        )
    api_version = raw.get("apiVersion") or resource.api_version
    kind = raw.get("kind") or resource.kind
    if api_version != resource.api_version:
        raise bad_request(
            f"the API version in the data ({api_version}) does not match the "
            f"expected API version ({resource.api_version})"
        )
    if kind != resource.kind:
        raise bad_request(
            f'{kind} in version "{resource.version}" cannot be handled as a '
            f"{resource.kind}: the kind in the data does not match the URL"
        )
    directive = fields.check_directive(request.param("fieldValidation"))
    decoded = fields.decode(resource.kind, raw)
    warnings.extend(fields.apply_directive(decoded, directive))
    obj = decoded.obj
    obj["apiVersion"], obj["kind"] = api_version, kind
    return obj


def _create(backend: Backend, request: ApiRequest, target: Target) -> Response:
    _check_field_manager(request)
    dry_run = _dry_run(request)
    warnings: list[str] = []
    obj = _decode_object(request, target, _parse_body(request), warnings)
    created = backend.store.create(obj, dry_run=dry_run, namespace=target.namespace)
    return Response(201, created, warnings=warnings)


def _update(backend: Backend, request: ApiRequest, target: Target) -> Response:
    _check_field_manager(request)
    dry_run = _dry_run(request)
    warnings: list[str] = []
    obj = _decode_object(request, target, _parse_body(request), warnings)
    metadata = obj.setdefault("metadata", {})
    if metadata.get("name") != target.name:
        raise bad_request(
            f"the name of the object ({metadata.get('name', '')}) does not match the "
            f"name on the URL ({target.name})"
        )
    if target.namespace is not None:
        if metadata.get("namespace") not in (None, "", target.namespace):
            raise bad_request(
                "the namespace of the provided object does not match the namespace "
                "sent on the request"
            )
        metadata["namespace"] = target.namespace
    updated = backend.store.replace(obj, dry_run=dry_run, namespace=target.namespace)
    return Response(200, updated, warnings=warnings)


def _patch(backend: Backend, request: ApiRequest, target: Target) -> Response:
    _check_field_manager(request)
    dry_run = _dry_run(request)
    content_type = request.content_type
    if content_type not in (patch.MERGE, patch.JSON_PATCH, patch.STRATEGIC):
        raise unsupported_media_type(content_type)
    body = fields.parse_json(request.body)
    warnings: list[str] = []

    def change(current: dict[str, Any]) -> dict[str, Any]:
        patched = patch.apply_patch(content_type, current, body)
        return _decode_object(request, target, patched, warnings)

    resource = target.resource
    updated = backend.store.patch(
        resource.api_version,
        resource.kind,
        target.name or "",
        target.namespace,
        change,
        dry_run=dry_run,
    )
    return Response(200, updated, warnings=warnings)


def _delete_options(request: ApiRequest) -> dict[str, Any]:
    if not request.body.strip():
        return {}
    options = fields.parse_json(request.body)
    if not isinstance(options, dict):
        raise bad_request("DeleteOptions must be a JSON object")
    return options


def _delete(backend: Backend, request: ApiRequest, target: Target) -> Response:
    options = _delete_options(request)
    dry_run = _dry_run(request, options)
    resource = target.resource
    deleted = backend.store.delete(
        resource.api_version,
        resource.kind,
        target.name or "",
        target.namespace,
        preconditions=options.get("preconditions") or {},
        dry_run=dry_run,
    )
    if resource.kind in _DELETE_RETURNS_OBJECT:
        return Response(200, deleted)
    return Response(
        200, success(resource, deleted["metadata"]["name"], deleted["metadata"]["uid"])
    )


def _delete_collection(
    backend: Backend, request: ApiRequest, target: Target
) -> Response:
    options = _delete_options(request)
    dry_run = _dry_run(request, options)
    resource = target.resource
    items, _ = backend.store.snapshot(resource, target.namespace)
    matches = _selector(request)
    deleted = []
    for item in items:
        if not matches(item):
            continue
        metadata = item["metadata"]
        try:
            deleted.append(
                backend.store.delete(
                    resource.api_version,
                    resource.kind,
                    metadata["name"],
                    metadata.get("namespace"),
                    dry_run=dry_run,
                )
            )
        except ApiError as error:
            if error.code != 404:  # deleted concurrently: fine
                raise
    return Response(
        200,
        {
            "kind": f"{resource.kind}List",
            "apiVersion": resource.api_version,
            "metadata": {"resourceVersion": str(backend.store.resource_version)},
            "items": [_without_type(i) for i in deleted],
        },
    )


_VERBS: dict[str, Callable[[Backend, ApiRequest, Target], Response]] = {
    "list": _list,
    "get": _get,
    "watch": _watch,
    "create": _create,
    "update": _update,
    "patch": _patch,
    "delete": _delete,
    "deletecollection": _delete_collection,
}
