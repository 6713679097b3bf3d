"""Watching one webhook kind: a stream of (type, object) events.

Close the stream from any thread to stop it at once (the blocking read is
shut down). A 410 (resourceVersion too old) surfaces as ``Gone``: relist.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import urllib3

from webhooks_ui.domain.kinds import API_VERSION_V1
from webhooks_ui.kube import errors
from webhooks_ui.kube.client import KubeClient
from webhooks_ui.kube.reader import configurations_path

ADDED, MODIFIED, DELETED, BOOKMARK, ERROR = (
    "ADDED",
    "MODIFIED",
    "DELETED",
    "BOOKMARK",
    "ERROR",
)


@dataclass(frozen=True)
class WatchEvent:
    type: str
    object: dict[str, Any]

    @property
    def resource_version(self) -> str:
        return str((self.object.get("metadata") or {}).get("resourceVersion") or "")


class WatchStream:
    """One watch request on ``kind`` from ``resource_version``."""

    def __init__(
        self,
        client: KubeClient,
        kind: str,
        resource_version: str,
        *,
        timeout_seconds: int = 300,
    ) -> None:
        self.client = client
        self.kind = kind
        self.resource_version = resource_version
        self.timeout_seconds = timeout_seconds
        self._response: urllib3.BaseHTTPResponse | None = None
        self._closed = threading.Event()

    def close(self) -> None:
        """Stop the stream; safe from another thread."""
        self._closed.set()
        response = self._response
        if response is not None:
            with contextlib.suppress(OSError, AttributeError):
                response.shutdown()

    def __iter__(self) -> Iterator[WatchEvent]:
        query = [
            ("watch", "true"),
            ("allowWatchBookmarks", "true"),
            ("timeoutSeconds", self.timeout_seconds),
        ]
        if self.resource_version:
            query.append(("resourceVersion", self.resource_version))
        path = configurations_path(self.kind)
        # The server ends the watch after timeoutSeconds; allow some slack.
        response = self.client.stream(
            path, query=query, read_timeout=self.timeout_seconds + 30
        )
        self._response = response
        if self._closed.is_set():
            response.shutdown()
        try:
            yield from self._events(response)
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            if self._closed.is_set():
                return
            raise errors.from_transport_error(
                exc, where=self.client.where, timeout=self.timeout_seconds + 30
            ) from None
        finally:
            self._response = None
            response.release_conn()
            response.close()

    def _events(self, response: urllib3.BaseHTTPResponse) -> Iterator[WatchEvent]:
        buffer = b""
        while not self._closed.is_set():
            chunk = response.read1(65536)
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                if line.strip():
                    yield self._event(line)
        if buffer.strip() and not self._closed.is_set():
            yield self._event(buffer)

    def _event(self, line: bytes) -> WatchEvent:
        try:
            data = json.loads(line)
            event_type, obj = data["type"], data["object"]
        except (ValueError, KeyError, TypeError):
            raise errors.MalformedResponse(
                f"{self.client.where}: a watch event is not valid JSON."
            ) from None
        if not isinstance(obj, dict):
            raise errors.MalformedResponse(
                f"{self.client.where}: a watch event carries no object."
            )
        if event_type == ERROR:
            code = int(obj.get("code") or 500)
            raise errors.from_status(code, json.dumps(obj), where=self.client.where)
        if event_type != BOOKMARK and ("apiVersion" not in obj or "kind" not in obj):
            obj = {"apiVersion": API_VERSION_V1, "kind": self.kind} | obj
        return WatchEvent(event_type, obj)
