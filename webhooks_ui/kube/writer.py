"""Writing webhook configurations: create, replace and delete with preconditions.

Every write can be a server-side dry run (``dry_run=True`` sends dryRun=All),
which runs admission and validation without persisting anything.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from webhooks_ui.kube.client import KubeClient
from webhooks_ui.kube.reader import configurations_path


def _query(dry_run: bool, field_manager: str | None) -> list[tuple[str, str]]:
    query: list[tuple[str, str]] = []
    if dry_run:
        query.append(("dryRun", "All"))
    if field_manager:
        query.append(("fieldManager", field_manager))
    return query


def get_configuration(client: KubeClient, kind: str, name: str) -> dict[str, Any]:
    """The current object (raises ``NotFound``)."""
    return client.request("GET", f"{configurations_path(kind)}/{quote(name)}")


def create_configuration(
    client: KubeClient,
    obj: dict[str, Any],
    *,
    dry_run: bool = False,
    field_manager: str | None = "webhook-dashboard",
) -> dict[str, Any]:
    """POST a new configuration (``Conflict`` when the name is taken)."""
    path = configurations_path(obj["kind"])
    return client.request("POST", path, query=_query(dry_run, field_manager), body=obj)


def replace_configuration(
    client: KubeClient,
    obj: dict[str, Any],
    *,
    resource_version: str,
    dry_run: bool = False,
    field_manager: str | None = "webhook-dashboard",
) -> dict[str, Any]:
    """PUT ``obj`` only if the server still holds ``resource_version``.

    A stale resourceVersion answers 409, raised as ``Conflict``: the object
    changed since it was read.
    """
    if not resource_version:
        raise ValueError("replace needs the resourceVersion the edit was based on")
    metadata = dict(obj.get("metadata") or {})
    metadata["resourceVersion"] = resource_version
    body = {**obj, "metadata": metadata}
    path = f"{configurations_path(obj['kind'])}/{quote(metadata['name'])}"
    return client.request("PUT", path, query=_query(dry_run, field_manager), body=body)


def delete_configuration(
    client: KubeClient,
    kind: str,
    name: str,
    *,
    resource_version: str | None = None,
    uid: str | None = None,
    dry_run: bool = False,
) -> dict[str, Any]:
    """DELETE with optional uid/resourceVersion preconditions (409 if they fail)."""
    body: dict[str, Any] = {"apiVersion": "v1", "kind": "DeleteOptions"}
    preconditions = {}
    if resource_version:
        preconditions["resourceVersion"] = resource_version
    if uid:
        preconditions["uid"] = uid
    if preconditions:
        body["preconditions"] = preconditions
    if dry_run:
        body["dryRun"] = ["All"]
    path = f"{configurations_path(kind)}/{quote(name)}"
    return client.request(
        "DELETE", path, query=_query(dry_run, field_manager=None), body=body
    )
