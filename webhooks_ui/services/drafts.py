"""Drafts: a person's proposed change to one configuration, saved on every edit.

A draft is a ``ChangeRequest`` in state draft. Its text is kept exactly as
typed, valid or not; the parsed object, the local validation errors and the
apiserver's last dry-run verdict are stored next to it.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from webhooks_ui.domain import validation
from webhooks_ui.domain.drafting import (
    carry_ca_bundles,
    clone_object,
    editable_text,
    field_lines,
    line_for,
    skeleton,
)
from webhooks_ui.domain.errors import INVALID, FieldError
from webhooks_ui.domain.kinds import KINDS
from webhooks_ui.domain.manifest import ManifestError, dump_yaml, load_documents
from webhooks_ui.domain.ownership import ca_bundle_injected
from webhooks_ui.kube import writer
from webhooks_ui.kube.access import AccessError
from webhooks_ui.kube.errors import Conflict, Invalid, KubeError, NotFound
from webhooks_ui.models import ChangeRequest, Cluster, WebhookConfiguration
from webhooks_ui.permissions import Role, has_role
from webhooks_ui.services.clusters import cluster_client

logger = logging.getLogger(__name__)

Action = ChangeRequest.Action
PARSE_ERROR = "ParseError"
DRY_RUN_TIMEOUT = 15.0


class DraftError(ValueError):
    """A draft cannot do what was asked (wrong state or action)."""


@dataclass(frozen=True)
class DraftState:
    """What a save left: the draft, its problems, and what was carried over."""

    draft: ChangeRequest
    errors: list[dict[str, Any]]
    carried_ca_bundles: list[str] = field(default_factory=list)

    @property
    def parses(self) -> bool:
        return not any(e["reason"] == PARSE_ERROR for e in self.errors)


@dataclass(frozen=True)
class DryRunResult:
    """The apiserver's verdict on the draft: accepted, or why not."""

    ok: bool
    errors: list[dict[str, Any]]
    message: str
    at: datetime


def draft_start(
    *,
    user: User,
    configuration: WebhookConfiguration | None,
    cluster: Cluster,
    action: str,
    kind: str | None = None,
) -> ChangeRequest:
    """The user's open draft for this object and action, or a new one.

    An update or delete starts from the live object as last synced (kept raw
    as the base; the text leaves server-managed fields out); a create from a
    skeleton of ``kind``.
    """
    if action not in Action.values:
        raise DraftError(f"Unknown action {action!r}.")
    with transaction.atomic():
        _require_editor(user, cluster)
        if action == Action.CREATE:
            if kind not in KINDS:
                raise DraftError(f"Unknown kind {kind!r}.")
            obj = skeleton(kind)
            return _create(user, cluster, Action.CREATE, kind, obj, base=None)
        if configuration is None or configuration.cluster_id != cluster.pk:
            raise DraftError(
                "An update or delete needs a configuration of the cluster."
            )
        if configuration.is_deleted:
            raise DraftError("This configuration no longer exists in the cluster.")
        existing = (
            ChangeRequest.objects.select_for_update()
            .filter(
                author=user,
                cluster=cluster,
                kind=configuration.kind,
                name=configuration.name,
                action=action,
                state=ChangeRequest.State.DRAFT,
            )
            .first()
        )
        if existing is not None:
            return existing
        return _create(
            user, cluster, action, configuration.kind, None, base=configuration
        )


def draft_clone(
    *,
    user: User,
    configuration: WebhookConfiguration,
    target: Cluster,
    name: str = "",
) -> ChangeRequest:
    """A create draft on ``target`` holding a copy of ``configuration``.

    Injected caBundles are left out: they belong to the source cluster, and
    the injector of the target (if any) writes its own.
    """
    with transaction.atomic():
        _require_editor(user, target)
        obj = clone_object(
            configuration.raw,
            name=name.strip() or configuration.name,
            drop_ca_bundles=ca_bundle_injected(configuration.raw),
        )
        draft = _create(user, target, Action.CREATE, configuration.kind, obj, None)
        draft.title = f"Clone {configuration.name} from {configuration.cluster.name}"
        draft.save(update_fields=["title"])
        return draft


def draft_save(*, draft: ChangeRequest, user: User, text: str) -> DraftState:
    """Store ``text`` verbatim, with its parsed object and validation errors.

    Invalid text is saved too (nothing typed is lost). For a configuration
    whose caBundle is injected, a caBundle the text leaves out is carried over
    from the live object into the proposed object.
    """
    with transaction.atomic():
        draft = _locked(draft, user)
        if draft.action == Action.DELETE:
            raise DraftError("A delete draft has no text to edit.")
        obj, errors, carried = _evaluate(draft, text)
        draft.proposed_text = text
        draft.proposed_object = obj
        draft.validation_errors = errors
        if draft.action == Action.CREATE and obj is not None:
            _follow_identity(draft, obj)
        draft.version += 1  # the API's ETag: an autosave is a change too
        draft.save()
    return DraftState(draft, errors, carried)


def draft_dry_run(
    *, draft: ChangeRequest, user: User, text: str | None = None
) -> DryRunResult:
    """Send the draft to its cluster with dryRun=All and record the verdict.

    Create, replace at the base resourceVersion, or delete with uid and
    resourceVersion preconditions. ``text``, when given, is saved first (the
    editor sends what is on screen); whatever the verdict, the text is kept.
    """
    if text is not None and draft.action != Action.DELETE:
        draft_save(draft=draft, user=user, text=text)
    draft = _checked(
        ChangeRequest.objects.select_related("cluster").get(pk=draft.pk), user
    )
    obj = draft.proposed_object
    checked_hash = text_hash(draft.proposed_text)
    if draft.action != Action.DELETE and not _sendable(obj):
        result = DryRunResult(
            False,
            [],
            "The YAML does not parse into one object with a kind and a name: "
            "fix it first.",
            timezone.now(),
        )
    else:
        result = _send(draft, obj)
    with transaction.atomic():
        locked = _locked(draft, user)
        locked.dry_run_result = {
            "ok": result.ok,
            "errors": result.errors,
            "message": result.message,
            "at": result.at.isoformat(),
            "text_sha256": checked_hash,
        }
        locked.version += 1
        locked.save(update_fields=["dry_run_result", "version", "updated_at"])
    return result


def draft_discard(*, draft: ChangeRequest, user: User) -> None:
    """Throw a draft away (only its author can, and only while it is a draft)."""
    with transaction.atomic():
        locked = _locked(draft, user)
        locked.delete()
    logger.info("Draft %s discarded by %s", draft.pk, user.get_username())


# --- internals -----------------------------------------------------------------


def _require_editor(user: User, cluster: Cluster) -> None:
    if not has_role(user, cluster, Role.EDITOR):
        raise PermissionDenied(
            f"Editing needs the editor role on cluster {cluster.name}."
        )


def _create(
    user: User,
    cluster: Cluster,
    action: str,
    kind: str,
    obj: dict[str, Any] | None,
    base: WebhookConfiguration | None,
) -> ChangeRequest:
    draft = ChangeRequest(author=user, cluster=cluster, action=action, kind=kind)
    if base is not None:
        draft.name = base.name
        draft.base_object = base.raw
        draft.base_resource_version = base.resource_version
        draft.title = f"{action.capitalize()} {base.name}"
        if action == Action.UPDATE:
            draft.proposed_text = editable_text(base.raw)
            draft.proposed_object = load_documents(draft.proposed_text)[0]
    else:
        assert obj is not None
        draft.name = str(obj["metadata"]["name"])
        draft.proposed_text = dump_yaml(obj)
        draft.proposed_object = obj
        draft.title = f"Create {draft.name}"
    if draft.proposed_object is not None:
        draft.validation_errors = _validation_rows(
            draft, draft.proposed_object, draft.proposed_text
        )
    draft.save()
    return draft


def _checked(draft: ChangeRequest, user: User) -> ChangeRequest:
    """The draft if ``user`` may still edit it (author, editor role, a draft)."""
    if draft.author_id != user.pk:
        raise PermissionDenied("Only the author can edit a draft.")
    _require_editor(user, draft.cluster)
    if draft.state != ChangeRequest.State.DRAFT:
        raise DraftError("This change request is no longer a draft.")
    return draft


def _locked(draft: ChangeRequest, user: User) -> ChangeRequest:
    locked = (
        ChangeRequest.objects.select_for_update()
        .select_related("cluster")
        .get(pk=draft.pk)
    )
    return _checked(locked, user)


def _evaluate(
    draft: ChangeRequest, text: str
) -> tuple[dict[str, Any] | None, list[dict[str, Any]], list[str]]:
    try:
        objects = load_documents(text, source="draft")
    except ManifestError as exc:
        return None, [_parse_row(exc.message, exc.line, exc.column)], []
    if len(objects) != 1:
        found = len(objects)
        row = _parse_row(f"a draft holds exactly one object, this text has {found}")
        return None, [row], []
    obj = objects[0]
    carried: list[str] = []
    if draft.action == Action.UPDATE and ca_bundle_injected(draft.base_object):
        obj, carried = carry_ca_bundles(obj, draft.base_object)
    return obj, _validation_rows(draft, obj, text), carried


def _validation_rows(
    draft: ChangeRequest, obj: dict[str, Any], text: str
) -> list[dict[str, Any]]:
    old = draft.base_object if draft.action == Action.UPDATE else None
    errors = list(validation.validate(obj, old=old))
    if draft.action == Action.UPDATE:
        errors.extend(_identity_errors(draft, obj))
    return error_rows(errors, text)


def _identity_errors(draft: ChangeRequest, obj: dict[str, Any]) -> list[FieldError]:
    """An update edits one object: its kind and name cannot change."""
    errors = []
    if obj.get("kind") != draft.kind:
        errors.append(
            FieldError(
                "kind", INVALID, f"this draft edits a {draft.kind}", obj.get("kind")
            )
        )
    metadata = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    if metadata.get("name") != draft.name:
        detail = f"this draft edits {draft.name}; clone it to use another name"
        errors.append(
            FieldError("metadata.name", INVALID, detail, metadata.get("name"))
        )
    return errors


def error_rows(errors: list[FieldError], text: str) -> list[dict[str, Any]]:
    """Field errors as stored rows, each with the line of its field in ``text``."""
    lines = field_lines(text) if errors else {}
    return [
        {
            "field": error.field,
            "reason": error.reason,
            "message": error.message,
            "line": line_for(lines, error.field),
        }
        for error in errors
    ]


def _cause_rows(causes: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    lines = field_lines(text) if causes else {}
    return [
        {
            "field": str(cause.get("field") or ""),
            "reason": str(cause.get("reason") or ""),
            "message": str(cause.get("message") or ""),
            "line": line_for(lines, str(cause.get("field") or "")),
        }
        for cause in causes
    ]


def _parse_row(
    message: str, line: int | None = None, column: int | None = None
) -> dict[str, Any]:
    where = f"line {line}, column {column}: " if line and column else ""
    if line and not column:
        where = f"line {line}: "
    return {
        "field": "",
        "reason": PARSE_ERROR,
        "message": f"{where}{message}",
        "line": line,
        "column": column,
    }


def _follow_identity(draft: ChangeRequest, obj: dict[str, Any]) -> None:
    """A create draft is named after what it creates."""
    metadata = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = metadata.get("name")
    if isinstance(name, str) and name:
        if draft.title == f"Create {draft.name}":  # still the title we made up
            draft.title = f"Create {name}"[:200]
        draft.name = name[:253]
    if obj.get("kind") in KINDS:
        draft.kind = obj["kind"]


def _send(draft: ChangeRequest, obj: dict[str, Any] | None) -> DryRunResult:
    now = timezone.now
    try:
        with cluster_client(cluster=draft.cluster, timeout=DRY_RUN_TIMEOUT) as client:
            if draft.action == Action.CREATE:
                writer.create_configuration(client, obj, dry_run=True)
            elif draft.action == Action.UPDATE:
                writer.replace_configuration(
                    client,
                    obj,
                    resource_version=draft.base_resource_version,
                    dry_run=True,
                )
            else:
                metadata = (draft.base_object or {}).get("metadata") or {}
                writer.delete_configuration(
                    client,
                    draft.kind,
                    draft.name,
                    resource_version=draft.base_resource_version or None,
                    uid=metadata.get("uid") or None,
                    dry_run=True,
                )
    except Invalid as exc:
        rows = _cause_rows(exc.causes, draft.proposed_text)
        return DryRunResult(False, rows, str(exc), now())
    except Conflict as exc:
        message = (
            f"{exc} It changed in the cluster since this draft was made: "
            "sync the cluster and start again from the new version."
        )
        if draft.action == Action.CREATE:
            message = f"{exc} A configuration with this name already exists."
        return DryRunResult(False, [], message, now())
    except NotFound as exc:
        message = f"{exc} It is no longer in the cluster."
        return DryRunResult(False, [], message, now())
    except (KubeError, AccessError) as exc:
        return DryRunResult(False, [], str(exc), now())
    return DryRunResult(True, [], "The API server accepts this change.", now())


def _sendable(obj: Any) -> bool:
    if not isinstance(obj, dict) or obj.get("kind") not in KINDS:
        return False
    metadata = obj.get("metadata")
    return isinstance(metadata, dict) and isinstance(metadata.get("name"), str)


def text_hash(text: str) -> str:
    """What a dry-run verdict remembers of the text it checked."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
