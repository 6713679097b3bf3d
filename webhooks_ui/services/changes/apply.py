"""Applying an approved change to its cluster, exactly once.

Apply holds the row lock (and, on SQLite, the process-wide write lock sync
uses) while it talks to the cluster: a second operator pressing apply waits,
then finds the change applied. The push itself is one API call guarded by
the base resourceVersion, so the cluster never sees half a change.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from webhooks_ui.domain import change_window
from webhooks_ui.kube import writer
from webhooks_ui.kube.access import AccessError
from webhooks_ui.kube.errors import Conflict, Invalid, KubeError, NotFound
from webhooks_ui.models import (
    ChangeRequest,
    Cluster,
    ConfigurationRevision,
    WebhookConfiguration,
)
from webhooks_ui.permissions import Role, has_role
from webhooks_ui.services.audit import Action as Audit
from webhooks_ui.services.audit import audit_record
from webhooks_ui.services.changes.common import (
    APPLICABLE,
    ActionKind,
    ChangeError,
    State,
    active_approvals,
    bump,
    live_of,
    lock_change,
    mark_stale,
    stale_reason,
    state_label,
    still_approver,
)
from webhooks_ui.services.clusters import cluster_client
from webhooks_ui.services.credentials import CredentialsError
from webhooks_ui.services.sync import configuration_apply_event, writing

logger = logging.getLogger(__name__)
APPLY_TIMEOUT = 20.0


@dataclass(frozen=True)
class ApplyOutcome:
    """What an apply did: applied, stale, failed, or not_sent (kept approved)."""

    status: str
    message: str
    change: ChangeRequest
    causes: list[dict[str, Any]] = field(default_factory=list)

    @property
    def applied(self) -> bool:
        return self.status == "applied"


def apply_blockers(
    change: ChangeRequest, user: User, now: datetime | None = None
) -> list[str]:
    """Why ``user`` may not apply ``change`` now ([] when they may)."""
    now = now or timezone.now()
    cluster = change.cluster
    reasons = []
    if change.state not in APPLICABLE:
        reasons.append(
            "Only an approved change can be applied; this one is "
            f"{state_label(change)}."
        )
    if not has_role(user, cluster, Role.OPERATOR):
        reasons.append(f"Applying needs the operator role on {cluster.name}.")
    if change.author_id == user.pk and not cluster.author_may_apply:
        reasons.append(
            f"The policy of {cluster.name} does not let authors apply their own "
            "changes."
        )
    valid = [r for r in active_approvals(change) if still_approver(r, cluster)]
    if len(valid) < cluster.approvals_required:
        reasons.append(
            f"{cluster.name} needs {cluster.approvals_required} approval"
            f"{'s' if cluster.approvals_required != 1 else ''} from people other than "
            f"the author; this change has {len(valid)}."
        )
    window = change_window.parse(cluster.change_window)
    if not window.is_open(now):
        opening = window.next_opening(now)
        when = (
            f" It opens {opening:%a %Y-%m-%d %H:%M} {window.zone_label}."
            if opening
            else ""
        )
        reasons.append(
            f"Outside the change window of {cluster.name} ({window.describe()}).{when}"
        )
    return reasons


def change_apply(
    *, change: ChangeRequest, user: User, now: datetime | None = None
) -> ApplyOutcome:
    """Push an approved change to its cluster, exactly once.

    Re-read the live object: if it moved since the base, the change turns
    stale. Otherwise dry-run, then write with the base resourceVersion as the
    precondition (a 409 also turns it stale), record the cluster's answer and
    the new revision. A failure before anything was sent keeps it approved.
    """
    with writing():
        locked = (
            ChangeRequest.objects.select_for_update()
            .select_related("cluster")
            .get(pk=change.pk)
        )
        if not has_role(user, locked.cluster, Role.OPERATOR):
            raise PermissionDenied(
                f"Applying needs the operator role on {locked.cluster.name}."
            )
        blockers = apply_blockers(locked, user, now)
        if blockers:
            if locked.author_id == user.pk and not locked.cluster.author_may_apply:
                raise PermissionDenied(blockers[0])
            code = "invalid_state" if locked.state not in APPLICABLE else "policy"
            raise ChangeError(" ".join(blockers), code=code)
        return _apply_locked(locked, user)


def changes_mark_stale(*, cluster: Cluster) -> int:
    """Turn open changes stale whose live object moved (called after a sync)."""
    open_changes = ChangeRequest.objects.filter(
        cluster=cluster, state__in=[State.IN_REVIEW, State.APPROVED]
    )
    marked = 0
    for change in open_changes:
        configuration = WebhookConfiguration.objects.filter(
            cluster=cluster, kind=change.kind, name=change.name
        ).first()
        reason = stale_reason(change, live_of(configuration))
        if reason is None:
            continue
        with transaction.atomic():
            locked = lock_change(change)
            if locked.state not in (State.IN_REVIEW, State.APPROVED):
                continue
            mark_stale(locked, None, live_of(configuration), reason)
            marked += 1
    return marked


def _apply_locked(change: ChangeRequest, user: User) -> ApplyOutcome:
    sent: dict[str, Any] | None = None
    try:
        with cluster_client(cluster=change.cluster, timeout=APPLY_TIMEOUT) as client:
            live = _read_live(client, change)
            reason = stale_reason(change, live)
            if reason is not None:
                mark_stale(change, user, live, reason)
                return ApplyOutcome("stale", reason, change)
            _write(client, change, dry_run=True)
            sent = _request_record(change)
            answer = _write(client, change, dry_run=False)
    except Conflict as exc:
        message = (
            f"The cluster refused the write: {exc}. The object changed at the "
            "moment of apply; nothing was changed."
        )
        mark_stale(change, user, None, message, answer=_error_answer(exc))
        return ApplyOutcome("stale", message, change)
    except Invalid as exc:
        return _fail(change, user, exc, sent)
    except (KubeError, AccessError, CredentialsError) as exc:
        if sent is None:
            return _not_sent(change, user, exc)
        return _fail(change, user, exc, sent)
    return _applied(change, user, sent, answer)


def _read_live(client: Any, change: ChangeRequest) -> dict[str, Any] | None:
    try:
        return writer.get_configuration(client, change.kind, change.name)
    except NotFound:
        return None


def _write(client: Any, change: ChangeRequest, *, dry_run: bool) -> dict[str, Any]:
    if change.action == ActionKind.CREATE:
        return writer.create_configuration(
            client, change.proposed_object, dry_run=dry_run
        )
    if change.action == ActionKind.UPDATE:
        return writer.replace_configuration(
            client,
            change.proposed_object,
            resource_version=change.base_resource_version,
            dry_run=dry_run,
        )
    metadata = (change.base_object or {}).get("metadata") or {}
    return writer.delete_configuration(
        client,
        change.kind,
        change.name,
        resource_version=change.base_resource_version or None,
        uid=metadata.get("uid") or None,
        dry_run=dry_run,
    )


def _request_record(change: ChangeRequest) -> dict[str, Any]:
    verb = {"create": "create", "update": "replace", "delete": "delete"}[change.action]
    record: dict[str, Any] = {"verb": verb, "kind": change.kind, "name": change.name}
    if change.action == ActionKind.DELETE:
        record["preconditions"] = {"resourceVersion": change.base_resource_version}
    else:
        record["object"] = change.proposed_object
        if change.action == ActionKind.UPDATE:
            record["resourceVersion"] = change.base_resource_version
    return record


def _applied(
    change: ChangeRequest, user: User, sent: dict[str, Any], answer: dict[str, Any]
) -> ApplyOutcome:
    cluster = change.cluster
    if change.action == ActionKind.DELETE:
        event = {"kind": change.kind, "metadata": {"name": change.name}}
        configuration_apply_event(cluster=cluster, event_type="DELETED", obj=event)
    else:
        configuration_apply_event(cluster=cluster, event_type="MODIFIED", obj=answer)
    revision = (
        ConfigurationRevision.objects.filter(
            configuration__cluster=cluster,
            configuration__kind=change.kind,
            configuration__name=change.name,
        )
        .order_by("-number")
        .first()
    )
    change.state = State.APPLIED
    change.applied_at = timezone.now()
    change.applied_by = user
    change.applied_revision = revision
    change.outcome = None
    bump(change)
    message = f"Applied to {cluster.name}"
    if revision is not None:
        message += f"; recorded as revision {revision.number}"
    audit_record(
        action=Audit.CHANGE_APPLIED,
        actor=user,
        change=change,
        summary=f"applied: {change.title or change}",
        detail={
            "request": sent,
            "response": _answer_summary(answer),
            "revision": revision.number if revision else None,
        },
    )
    transaction.on_commit(lambda: _refresh_findings(cluster))
    return ApplyOutcome("applied", message + ".", change)


def _refresh_findings(cluster: Cluster) -> None:
    from webhooks_ui.services.risk import findings_refresh

    findings_refresh(clusters=[cluster])


def _fail(
    change: ChangeRequest,
    user: User,
    exc: Exception,
    sent: dict[str, Any] | None,
) -> ApplyOutcome:
    causes = list(getattr(exc, "causes", []) or [])
    message = f"The cluster rejected the change: {exc}"
    change.state = State.FAILED
    change.outcome = {
        "message": message,
        "causes": causes,
        "at": timezone.now().isoformat(),
    }
    bump(change)
    audit_record(
        action=Audit.CHANGE_APPLY_FAILED,
        actor=user,
        change=change,
        summary=f"apply failed: {exc}",
        detail={"request": sent, "response": _error_answer(exc)},
    )
    return ApplyOutcome("failed", message, change, causes)


def _not_sent(change: ChangeRequest, user: User, exc: Exception) -> ApplyOutcome:
    message = (
        f"Nothing was sent: the cluster could not be reached or refused the "
        f"check before the write ({exc}). The change stays approved; try again."
    )
    audit_record(
        action=Audit.CHANGE_APPLY_NOT_SENT,
        actor=user,
        change=change,
        summary=f"apply did not reach the cluster: {exc}",
        detail={"response": _error_answer(exc)},
    )
    return ApplyOutcome("not_sent", message, change)


def _answer_summary(answer: dict[str, Any]) -> dict[str, Any]:
    metadata = answer.get("metadata") or {}
    return {
        "kind": answer.get("kind"),
        "name": metadata.get("name"),
        "uid": metadata.get("uid"),
        "resourceVersion": metadata.get("resourceVersion"),
        "status": answer.get("status") if answer.get("kind") == "Status" else None,
        "object": answer if answer.get("kind") != "Status" else None,
    }


def _error_answer(exc: Exception) -> dict[str, Any]:
    return {
        "error": str(exc),
        "status": getattr(exc, "status", None),
        "reason": getattr(exc, "reason", ""),
        "causes": list(getattr(exc, "causes", []) or []),
    }
