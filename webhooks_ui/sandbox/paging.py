"""``limit``/``continue`` list pagination with consistent snapshots.

kube-apiserver serves every page of a paginated list from the etcd revision of
the first page. We keep the first page's full item list under an id that the
opaque continue token carries; a token whose snapshot was forgotten and whose
revision was compacted gets 410, as on a real server.
"""

from __future__ import annotations

import base64
import binascii
import json
import secrets
import threading
from collections import OrderedDict
from typing import Any

from .status import ApiError, bad_request, expired

_KEPT_SNAPSHOTS = 64

CONTINUE_TOO_OLD = (
    "The provided continue parameter is too old to display a consistent list "
    "result. You can start a new list without the continue parameter, or use the "
    "continue token in this response to retrieve the remainder of the results. "
    "Continuing with the provided token results in an inconsistent list - objects "
    "that were created, modified, or deleted between the time the first chunk was "
    "returned and now may show up in the list."
)


def _encode(payload: dict[str, Any]) -> str:
    raw = json.dumps(payload, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode(token: str) -> dict[str, Any]:
    try:
        padded = token + "=" * (-len(token) % 4)
        payload = json.loads(base64.urlsafe_b64decode(padded.encode()))
        if not isinstance(payload, dict) or not {"rv", "after", "id"} <= set(payload):
            raise ValueError("incomplete")
        return payload
    except (ValueError, binascii.Error, UnicodeDecodeError) as exc:
        raise bad_request(f"continue key is not valid: {exc}") from exc


class Paginator:
    """Remembers recent first-page snapshots so later pages match them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._snapshots: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()

    def page(
        self,
        items: list[dict[str, Any]],
        resource_version: int,
        *,
        limit: int,
        token: str | None,
        compacted_rv: int,
    ) -> tuple[list[dict[str, Any]], int, str, int]:
        """(page items, list resourceVersion, next continue token, remaining count).

        ``items`` is the current filtered list; it is used for the first page and
        when a continuation's snapshot was forgotten but is still recent enough.
        """
        after: str | None = None
        snapshot_id = secrets.token_hex(8)
        if token:
            payload = _decode(token)
            after, resource_version = payload["after"], int(payload["rv"])
            with self._lock:
                remembered = self._snapshots.get(payload["id"])
            if remembered is not None:
                items, snapshot_id = remembered, payload["id"]
            elif resource_version < compacted_rv:
                raise ApiError(expired(CONTINUE_TOO_OLD))
        if after is not None:
            items = [i for i in items if _position(i) > after]
        if limit <= 0 or len(items) <= limit:
            return items, resource_version, "", 0
        page = items[:limit]
        with self._lock:
            if not token or snapshot_id not in self._snapshots:
                self._snapshots[snapshot_id] = items
            self._snapshots.move_to_end(snapshot_id)
            while len(self._snapshots) > _KEPT_SNAPSHOTS:
                self._snapshots.popitem(last=False)
        next_token = _encode(
            {"rv": resource_version, "after": _position(page[-1]), "id": snapshot_id}
        )
        return page, resource_version, next_token, len(items) - limit


def _position(obj: dict[str, Any]) -> str:
    metadata = obj.get("metadata") or {}
    return f"{metadata.get('namespace') or ''}/{metadata.get('name') or ''}"
