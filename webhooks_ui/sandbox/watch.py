"""Watch streams: events after a resourceVersion, filtered the way the watch cache does.

A change that moves an object into or out of a selector's result is delivered
as ADDED or DELETED, as kube-apiserver does. A resourceVersion older than the
retained history ends the stream with an ERROR event carrying a 410 Status.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .resources import Resource
from .status import ApiError
from .store import ObjectStore, WatchEvent

ObjectPredicate = Callable[[dict[str, Any]], bool]

# How long one wait on the store lasts; bounds how quickly stop() is noticed.
_POLL_SECONDS = 0.25


@dataclass(frozen=True)
class WatchRequest:
    resource: Resource
    namespace: str | None
    matches: ObjectPredicate
    resource_version: int | None  # None: "now", after synthetic ADDED events
    send_initial_events: bool
    allow_bookmarks: bool
    timeout_seconds: float
    bookmark_interval: float


def _bookmark(resource: Resource, resource_version: int, **annotations: str) -> dict:
    metadata: dict[str, Any] = {"resourceVersion": str(resource_version)}
    if annotations:
        metadata["annotations"] = annotations
    return {
        "type": "BOOKMARK",
        "object": {
            "kind": resource.kind,
            "apiVersion": resource.api_version,
            "metadata": metadata,
        },
    }


def _in_scope(request: WatchRequest, obj: dict[str, Any] | None) -> bool:
    if obj is None:
        return False
    namespace = (obj.get("metadata") or {}).get("namespace")
    if request.namespace is not None and namespace != request.namespace:
        return False
    return request.matches(obj)


def _translate(request: WatchRequest, event: WatchEvent) -> dict[str, Any] | None:
    if (event.resource.group, event.resource.kind) != (
        request.resource.group,
        request.resource.kind,
    ):
        return None
    if event.type == "ADDED":
        return (
            {"type": "ADDED", "object": event.obj}
            if _in_scope(request, event.obj)
            else None
        )
    if event.type == "DELETED":
        return (
            {"type": "DELETED", "object": event.obj}
            if _in_scope(request, event.old)
            else None
        )
    now_in, was_in = _in_scope(request, event.obj), _in_scope(request, event.old)
    if now_in and was_in:
        return {"type": "MODIFIED", "object": event.obj}
    if now_in:
        return {"type": "ADDED", "object": event.obj}
    if was_in:
        return {"type": "DELETED", "object": event.obj}
    return None


def stream(
    store: ObjectStore, request: WatchRequest, stopping: threading.Event
) -> Iterator[dict[str, Any]]:
    """Yield watch events (as JSON-ready dicts) until timeout, stop or a 410."""
    deadline = time.monotonic() + request.timeout_seconds
    if request.resource_version is None:
        items, last_rv = store.snapshot(request.resource, request.namespace)
        for obj in items:
            if request.matches(obj):
                yield {"type": "ADDED", "object": obj}
        if request.send_initial_events and request.allow_bookmarks:
            yield _bookmark(
                request.resource,
                last_rv,
                **{"k8s.io/initial-events-end": "true"},
            )
    else:
        last_rv = request.resource_version
    last_bookmark = time.monotonic()
    while not stopping.is_set() and not store.closed:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return
        try:
            events = store.events_after(last_rv)
        except ApiError as error:
            yield {"type": "ERROR", "object": error.status}
            return
        for event in events:
            last_rv = event.resource_version
            translated = _translate(request, event)
            if translated is not None:
                yield translated
        if events:
            continue
        if (
            request.allow_bookmarks
            and time.monotonic() - last_bookmark >= request.bookmark_interval
        ):
            last_bookmark = time.monotonic()
            yield _bookmark(request.resource, max(last_rv, 0))
        store.wait_for_change(last_rv, min(remaining, _POLL_SECONDS))
