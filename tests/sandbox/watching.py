"""Reading a watch stream line by line over raw HTTPS, with a bounded wait."""

from __future__ import annotations

import http.client
import json
import ssl
import threading
from typing import Any

from webhooks_ui.sandbox.server import SandboxServer


class WatchStream:
    """An open watch; ``next_event`` raises TimeoutError when nothing arrives."""

    def __init__(self, sb: SandboxServer, path: str, *, read_timeout: float = 5):
        context = ssl.create_default_context(cadata=sb.ca_pem)
        self.connection = http.client.HTTPSConnection(
            "127.0.0.1", sb.port, context=context, timeout=read_timeout
        )
        self.connection.request(
            "GET", path, headers={"Authorization": f"Bearer {sb.token}"}
        )
        self.response = self.connection.getresponse()
        self.status = self.response.status

    def next_event(self) -> dict[str, Any] | None:
        """The next event, or None once the server ended the stream."""
        line = self.response.readline()
        return json.loads(line) if line else None

    def events(self, count: int) -> list[dict[str, Any]]:
        return [self.next_event() for _ in range(count)]

    def close(self) -> None:
        self.connection.close()


def in_background(target: Any) -> threading.Thread:
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread
