"""Opening a change request in one call, as a script does through the API.

The content comes as a full object, as YAML/JSON text, or as a JSON merge
patch (RFC 7396) against the live object as last synced. It goes through the
draft services like an edit in the editor: an invalid content is still saved,
as a draft with its validation errors, and ``propose`` submits it for review
right away when it can be.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import transaction

from webhooks_ui.domain.drafting import editable_text, skeleton
from webhooks_ui.domain.kinds import KINDS
from webhooks_ui.domain.manifest import ManifestError, dump_yaml, load_documents
from webhooks_ui.domain.merge_patch import merge_patch
from webhooks_ui.models import ChangeRequest, Cluster, WebhookConfiguration
from webhooks_ui.permissions import Role, has_role
from webhooks_ui.services import drafts as drafts_service
from webhooks_ui.services.changes import (
    ChangeError,
    change_edit,
    change_propose,
    change_update_details,
)

Action = ChangeRequest.Action


class ChangeOpenError(ValueError):
    """The request to open a change is malformed (``field`` names the input)."""

    def __init__(self, message: str, *, field: str = "") -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class OpenedChange:
    """The draft (or proposal) opened, and what happened on the way.

    ``reused`` is true when the user's open draft of the same object and
    action was taken up (its content replaced) rather than a new one started.
    ``propose_error`` says why a requested proposal did not happen; the change
    then stays a draft.
    """

    change: ChangeRequest
    reused: bool
    propose_error: ChangeError | None = None


def change_open(
    *,
    user: User,
    cluster: Cluster,
    action: str,
    kind: str,
    name: str = "",
    obj: dict[str, Any] | None = None,
    text: str | None = None,
    patch: dict[str, Any] | None = None,
    title: str | None = None,
    description: str | None = None,
    propose: bool = False,
) -> OpenedChange:
    """Start a draft of ``action`` on ``kind``/``name`` with the given content.

    At most one of ``obj``, ``text`` and ``patch``; a delete takes none, a
    patch is for an update only. Without content a create starts from a
    skeleton named ``name`` and an update from the live object.
    """
    text = _content_text(action, obj, text, patch)
    if kind not in KINDS:
        raise ChangeOpenError(f"Unknown kind {kind!r}.", field="kind")
    if not has_role(user, cluster, Role.EDITOR):
        raise PermissionDenied(
            f"Opening a change needs the editor role on cluster {cluster.name}."
        )
    configuration = _configuration(cluster, action, kind, name)
    if action == Action.CREATE:
        text = _create_text(kind, name, text)
    elif patch is not None:
        assert configuration is not None
        live = load_documents(editable_text(configuration.raw))[0]
        text = dump_yaml(merge_patch(live, patch))
    with transaction.atomic():
        reused = configuration is not None and _open_draft(user, configuration, action)
        change = drafts_service.draft_start(
            user=user,
            configuration=configuration,
            cluster=cluster,
            action=action,
            kind=kind,
        )
        if text is not None:
            # change_edit, not draft_save alone: it bumps the version (ETag),
            # which matters when an open draft is reused.
            change = change_edit(change=change, user=user, text=text)
        if title is not None or description is not None:
            change = change_update_details(
                change=change, user=user, title=title, description=description
            )
    change = ChangeRequest.objects.select_related("cluster").get(pk=change.pk)
    if not propose:
        return OpenedChange(change, reused)
    try:
        change = change_propose(change=change, user=user)
    except ChangeError as exc:
        return OpenedChange(change, reused, exc)
    return OpenedChange(change, reused)


def _content_text(
    action: str,
    obj: dict[str, Any] | None,
    text: str | None,
    patch: dict[str, Any] | None,
) -> str | None:
    if action not in Action.values:
        raise ChangeOpenError(f"Unknown action {action!r}.", field="action")
    supplied = {"object": obj, "text": text, "patch": patch}
    given = [key for key, value in supplied.items() if value is not None]
    if len(given) > 1:
        raise ChangeOpenError(
            f"Give the content once: {' and '.join(given)} were both given.",
            field=given[1],
        )
    if action == Action.DELETE and given:
        raise ChangeOpenError("A delete takes no content.", field=given[0])
    if patch is not None and action != Action.UPDATE:
        raise ChangeOpenError(
            "A merge patch applies to a live object: it is for an update only.",
            field="patch",
        )
    if obj is not None:
        if not isinstance(obj, dict):
            raise ChangeOpenError("The object must be a JSON object.", field="object")
        return dump_yaml(obj)
    if patch is not None and not isinstance(patch, dict):
        raise ChangeOpenError("A merge patch must be a JSON object.", field="patch")
    return text


def _configuration(
    cluster: Cluster, action: str, kind: str, name: str
) -> WebhookConfiguration | None:
    if action == Action.CREATE:
        return None
    if not name:
        raise ChangeOpenError(
            "An update or delete needs the configuration's name.", field="name"
        )
    found = WebhookConfiguration.objects.filter(
        cluster=cluster, kind=kind, name=name, deleted_at__isnull=True
    ).first()
    if found is None:
        raise ChangeOpenError(
            f"There is no {kind} named {name} on {cluster.name} (as last synced).",
            field="name",
        )
    return found


def _create_text(kind: str, name: str, text: str | None) -> str | None:
    """A create without content starts from a skeleton named ``name``; with
    content, ``name`` (when given) must be the content's own."""
    if text is None:
        return dump_yaml(skeleton(kind, name)) if name else None
    if name:
        content_name = _content_name(text)
        if content_name is not None and content_name != name:
            raise ChangeOpenError(
                f"The content names {content_name!r}, not {name!r}.", field="name"
            )
    return text


def _content_name(text: str) -> str | None:
    try:
        objects = load_documents(text, source="draft")
    except ManifestError:
        return None  # saved as it is; the draft reports where it breaks
    if len(objects) != 1 or not isinstance(objects[0], dict):
        return None
    metadata = objects[0].get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    return name if isinstance(name, str) else None


def _open_draft(user: User, configuration: WebhookConfiguration, action: str) -> bool:
    return ChangeRequest.objects.filter(
        author=user,
        cluster=configuration.cluster_id,
        kind=configuration.kind,
        name=configuration.name,
        action=action,
        state=ChangeRequest.State.DRAFT,
    ).exists()
