"""A raw HTTPS client for asserting exact Status bodies and headers."""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request
from dataclasses import dataclass
from email.message import Message
from typing import Any

from webhooks_ui.sandbox.server import SandboxServer

_NO_TOKEN = object()


@dataclass
class Answer:
    status: int
    body: Any
    headers: Message

    def warnings(self) -> list[str]:
        return self.headers.get_all("Warning") or []


def call(
    sb: SandboxServer,
    method: str,
    path: str,
    body: Any = None,
    *,
    token: Any = None,
    content_type: str = "application/json",
    accept: str = "application/json",
    raw: bytes | None = None,
    timeout: float = 10,
) -> Answer:
    headers = {"Accept": accept, "Content-Type": content_type}
    token = sb.token if token is None else token
    if token is not _NO_TOKEN:
        headers["Authorization"] = f"Bearer {token}"
    data = raw if raw is not None else None
    if body is not None:
        data = json.dumps(body).encode()
    request = urllib.request.Request(
        sb.url + path, data=data, method=method, headers=headers
    )
    context = ssl.create_default_context(cadata=sb.ca_pem)
    try:
        with urllib.request.urlopen(request, context=context, timeout=timeout) as r:
            payload = r.read()
            status, response_headers = r.status, r.headers
    except urllib.error.HTTPError as error:
        payload = error.read()
        status, response_headers = error.code, error.headers
    try:
        decoded = json.loads(payload) if payload else None
    except ValueError:
        decoded = payload
    return Answer(status, decoded, response_headers)


def anonymous() -> Any:
    return _NO_TOKEN
