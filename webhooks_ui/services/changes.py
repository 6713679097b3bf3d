"""Change requests after the draft: propose, review, apply, rebase, restore, promote.

Every transition happens here, inside a transaction that locks the change
request's row, re-checks the actor's role on the cluster and the state, and
writes an audit event. Nothing else changes a change request's state.

Apply holds the row lock (and, on SQLite, the process-wide write lock sync
uses) while it talks to the cluster: a second operator pressing apply waits,
then finds the change applied. The push itself is one API call guarded by
the base resourceVersion, so the cluster never sees half a change.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from webhooks_ui.domain import change_window
from webhooks_ui.domain.drafting import carry_ca_bundles, clone_object
from webhooks_ui.domain.manifest import dump_yaml
from webhooks_ui.domain.merge import three_way_merge
from webhooks_ui.domain.normalize import strip_server_fields
from webhooks_ui.domain.ownership import ca_bundle_injected
from webhooks_ui.kube import writer
from webhooks_ui.kube.access import AccessError
from webhooks_ui.kube.errors import Conflict, Invalid, KubeError, NotFound
from webhooks_ui.models import (
    ChangeRequest,
    ChangeReview,
    Cluster,
    ConfigurationRevision,
    WebhookConfiguration,
)
from webhooks_ui.permissions import Role, has_role, visible_clusters
from webhooks_ui.services import drafts as drafts_service
from webhooks_ui.services.audit import Action as Audit
from webhooks_ui.services.audit import audit_record
from webhooks_ui.services.clusters import cluster_client
from webhooks_ui.services.credentials import CredentialsError
from webhooks_ui.services.sync import configuration_apply_event, writing

logger = logging.getLogger(__name__)

State = ChangeRequest.State
Verdict = ChangeReview.Verdict
ActionKind = ChangeRequest.Action
APPLY_TIMEOUT = 20.0
REVIEWABLE = (State.IN_REVIEW, State.APPROVED)
REOPENABLE = (State.IN_REVIEW, State.APPROVED, State.STALE, State.FAILED)
WITHDRAWABLE = (State.DRAFT, *REOPENABLE)
APPLICABLE = (State.APPROVED, State.FAILED)


class ChangeError(ValueError):
    """The change request cannot do this now (its state, policy, or content).

    ``code`` is stable for the API: invalid_state, not_valid, dry_run_failed,
    policy, conflict, precondition_failed.
    """

    def __init__(self, message: str, *, code: str = "invalid_state") -> None:
        super().__init__(message)
        self.code = code


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


# --- reading -------------------------------------------------------------------


def active_approvals(change: ChangeRequest) -> list[ChangeReview]:
    """Approvals that count: not dismissed, not by the author."""
    return [
        review
        for review in change.reviews.all()
        if review.verdict == Verdict.APPROVE
        and review.dismissed_at is None
        and review.reviewer_id != change.author_id
    ]


def apply_blockers(
    change: ChangeRequest, user: User, now: datetime | None = None
) -> list[str]:
    """Why ``user`` may not apply ``change`` now ([] when they may)."""
    now = now or timezone.now()
    cluster = change.cluster
    reasons = []
    if change.state not in APPLICABLE:
        reasons.append(
            f"Only an approved change can be applied; this one is {_state(change)}."
        )
    if not has_role(user, cluster, Role.OPERATOR):
        reasons.append(f"Applying needs the operator role on {cluster.name}.")
    if change.author_id == user.pk and not cluster.author_may_apply:
        reasons.append(
            f"The policy of {cluster.name} does not let authors apply their own "
            "changes."
        )
    valid = [r for r in active_approvals(change) if _still_approver(r, cluster)]
    if len(valid) < cluster.approvals_required:
        reasons.append(
            f"{cluster.name} needs {cluster.approvals_required} approval"
            f"{'s' if cluster.approvals_required != 1 else ''} from people other than "
            f"the author; this change has {len(valid)}."
        )
    window = change_window.parse(cluster.change_window)
    if not window.is_open(now):
        opening = window.next_opening(now)
        when = f" It opens {opening:%a %Y-%m-%d %H:%M} UTC." if opening else ""
        reasons.append(
            f"Outside the change window of {cluster.name} ({window.text}, UTC).{when}"
        )
    return reasons


def review_blockers(change: ChangeRequest, user: User) -> list[str]:
    """Why ``user`` may not approve or request changes on ``change``."""
    reasons = []
    if change.author_id == user.pk:
        reasons.append("Authors cannot review their own change.")
    if change.state not in REVIEWABLE:
        reasons.append(
            f"Only a change in review can be reviewed; this one is {_state(change)}."
        )
    if not has_role(user, change.cluster, Role.APPROVER):
        reasons.append(f"Reviewing needs the approver role on {change.cluster.name}.")
    return reasons


def awaiting_review(user: User):
    """Open change requests ``user`` could approve and has not approved yet."""
    from webhooks_ui.permissions import clusters_with_role

    clusters = clusters_with_role(user, Role.APPROVER)
    approved = ChangeReview.objects.filter(
        reviewer=user, verdict=Verdict.APPROVE, dismissed_at__isnull=True
    ).values("change_id")
    return (
        ChangeRequest.objects.filter(cluster_id__in=clusters, state=State.IN_REVIEW)
        .exclude(author=user)
        .exclude(pk__in=approved)
    )


def my_open_changes(user: User):
    """``user``'s change requests that still need something from someone."""
    return ChangeRequest.objects.filter(
        author=user, state__in=[State.DRAFT, *REOPENABLE]
    ).filter(cluster__in=visible_clusters(user))


# --- transitions -----------------------------------------------------------------


def change_propose(
    *,
    change: ChangeRequest,
    user: User,
    title: str | None = None,
    description: str | None = None,
) -> ChangeRequest:
    """Submit a draft for review: it must validate and pass a server dry run.

    The dry run always runs here (against the text as it is now), so a
    proposal is never older than its verdict.
    """
    if title is not None or description is not None:
        change = change_update_details(
            change=change, user=user, title=title, description=description
        )
    with transaction.atomic():
        locked = _locked(change)
        _require_author(locked, user)
        _require_role(user, locked.cluster, Role.EDITOR, "Proposing")
        _require_state(locked, (State.DRAFT,), "proposed")
        _require_valid(locked)
    result = drafts_service.draft_dry_run(draft=locked, user=user)
    with transaction.atomic():
        locked = _locked(change)
        _require_state(locked, (State.DRAFT,), "proposed")
        _require_valid(locked)
        verdict = locked.dry_run_result or {}
        if not result.ok:
            raise ChangeError(
                f"The cluster's dry run rejected this change: {result.message}",
                code="dry_run_failed",
            )
        if verdict.get("text_sha256") != drafts_service.text_hash(locked.proposed_text):
            raise ChangeError(
                "The draft changed while it was being checked: propose again.",
                code="conflict",
            )
        locked.state = State.IN_REVIEW
        locked.proposed_at = timezone.now()
        locked.outcome = None
        _bump(locked)
        audit_record(
            action=Audit.CHANGE_PROPOSED,
            actor=user,
            change=locked,
            summary=f"{user.get_username()} proposed: {locked.title or locked}",
            detail={"object": locked.proposed_object, "dry_run": verdict},
        )
    return locked


def change_update_details(
    *,
    change: ChangeRequest,
    user: User,
    title: str | None = None,
    description: str | None = None,
) -> ChangeRequest:
    """Change the title or description (the content is edited as a draft)."""
    with transaction.atomic():
        locked = _locked(change)
        _require_author(locked, user)
        _require_state(locked, (State.DRAFT, *REOPENABLE), "edited")
        if title is not None:
            title = title.strip()
            if not title:
                raise ChangeError("A change request needs a title.", code="not_valid")
            locked.title = title[:200]
        if description is not None:
            locked.description = description
        _bump(locked)
        if locked.state != State.DRAFT:
            audit_record(
                action=Audit.CHANGE_EDITED,
                actor=user,
                change=locked,
                summary=f"{user.get_username()} edited the title or description",
            )
    return locked


def change_edit(*, change: ChangeRequest, user: User, text: str) -> ChangeRequest:
    """Replace the proposal's content (API and editor).

    A proposed change goes back to draft first: its approvals are dismissed and
    it has to be proposed (validated, dry-run) again.
    """
    if change.state != State.DRAFT:
        change = change_reopen(change=change, user=user)
    drafts_service.draft_save(draft=change, user=user, text=text)
    with transaction.atomic():
        locked = _locked(change)
        _bump(locked)
    return locked


def change_reopen(*, change: ChangeRequest, user: User) -> ChangeRequest:
    """Take a proposal back to draft to edit it; its approvals are dismissed."""
    with transaction.atomic():
        locked = _locked(change)
        _require_author(locked, user)
        _require_role(user, locked.cluster, Role.EDITOR, "Editing")
        _require_state(locked, REOPENABLE, "reopened")
        dismissed = _dismiss_approvals(locked, "the proposal went back to draft")
        locked.state = State.DRAFT
        _bump(locked)
        audit_record(
            action=Audit.CHANGE_REOPENED,
            actor=user,
            change=locked,
            summary=f"{user.get_username()} took the proposal back to draft"
            + (f" ({dismissed} approval(s) dismissed)" if dismissed else ""),
        )
    return locked


def change_review(
    *, change: ChangeRequest, user: User, verdict: str, body: str = ""
) -> ChangeReview:
    """Approve, request changes, reject, or comment.

    Comments are open to anyone who can see the cluster; verdicts need the
    approver role and are never accepted from the author (superusers too).
    """
    if verdict not in Verdict.values:
        raise ChangeError(f"Unknown verdict {verdict!r}.", code="not_valid")
    body = (body or "").strip()
    with transaction.atomic():
        locked = _locked(change)
        _require_visible(user, locked.cluster)
        if verdict == Verdict.COMMENT:
            if not body:
                raise ChangeError("A comment needs some text.", code="not_valid")
            if locked.state == State.DRAFT:
                raise ChangeError("Drafts are private to their author until proposed.")
            review = _add_review(locked, user, verdict, body)
            audit_record(
                action=Audit.CHANGE_COMMENTED,
                actor=user,
                change=locked,
                summary=f"{user.get_username()} commented",
                detail={"body": body},
            )
            return review
        blockers = review_blockers(locked, user)
        if blockers:
            if locked.author_id == user.pk or not has_role(
                user, locked.cluster, Role.APPROVER
            ):
                raise PermissionDenied(blockers[0])
            raise ChangeError(blockers[0])
        if verdict == Verdict.APPROVE:
            review = _approve(locked, user, body)
        elif verdict == Verdict.REQUEST_CHANGES:
            if not body:
                raise ChangeError("Say what should change.", code="not_valid")
            review = _request_changes(locked, user, body)
        else:
            review = _reject(locked, user, body)
    return review


def change_withdraw(*, change: ChangeRequest, user: User) -> ChangeRequest:
    """The author closes their own change request; it stays for the record."""
    with transaction.atomic():
        locked = _locked(change)
        _require_author(locked, user)
        _require_state(locked, WITHDRAWABLE, "withdrawn")
        _dismiss_approvals(locked, "withdrawn")
        locked.state = State.WITHDRAWN
        _bump(locked)
        audit_record(
            action=Audit.CHANGE_WITHDRAWN,
            actor=user,
            change=locked,
            summary=f"{user.get_username()} withdrew the change",
        )
    return locked


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


def change_rebase(
    *, change: ChangeRequest, user: User, manual: bool = False
) -> ChangeRequest:
    """Replay a stale proposal onto the live object it missed.

    One click when the cluster's changes and the proposal's touch different
    fields: the merged proposal is validated and dry-run and goes back to
    review (with fresh approvals needed). With ``manual`` (or conflicts the
    author resolves), the draft is re-based on the live object with the
    author's text kept, to edit and propose again.
    """
    with transaction.atomic():
        locked = _locked(change)
        _require_author(locked, user)
        _require_role(user, locked.cluster, Role.EDITOR, "Rebasing")
        _require_state(locked, (State.STALE,), "rebased")
        live = locked.live_object
        if live is None and locked.action != ActionKind.CREATE:
            raise ChangeError(
                "The object is no longer in the cluster: withdraw this change "
                "and start a new one.",
                code="conflict",
            )
        if locked.action == ActionKind.CREATE:
            raise ChangeError(
                "A configuration with this name now exists in the cluster: "
                "withdraw this change, or edit the existing one.",
                code="conflict",
            )
        text = locked.proposed_text
        summary = "re-based the draft on the live object (manual resolution)"
        if locked.action == ActionKind.UPDATE and not manual:
            result = three_way_merge(
                locked.base_object or {}, live, locked.proposed_object or {}
            )
            if not result.clean:
                raise ChangeError(
                    "The cluster's changes and this proposal touch the same "
                    f"fields ({', '.join(result.conflicts)}): resolve them by hand.",
                    code="conflict",
                )
            text = dump_yaml(result.merged)
            summary = "rebased the proposal onto the live object"
        if locked.action == ActionKind.DELETE:
            summary = "re-based the delete on the live object"
        dismissed = _dismiss_approvals(locked, "rebased onto a newer live object")
        locked.base_object = live
        locked.base_resource_version = locked.live_resource_version
        locked.live_object = None
        locked.live_resource_version = ""
        locked.state = State.DRAFT
        locked.dry_run_result = None
        _bump(locked)
        audit_record(
            action=Audit.CHANGE_REBASED,
            actor=user,
            change=locked,
            summary=f"{user.get_username()} {summary}"
            + (f"; {dismissed} approval(s) dismissed" if dismissed else ""),
        )
    if locked.action != ActionKind.DELETE:
        drafts_service.draft_save(draft=locked, user=user, text=text)
    if manual:
        return _fresh(locked)
    try:
        return change_propose(change=_fresh(locked), user=user)
    except ChangeError:
        # Kept as a draft, with the merge in place, for the author to finish.
        return _fresh(locked)


def change_restore(*, user: User, revision: ConfigurationRevision) -> ChangeRequest:
    """A draft that puts a configuration back the way ``revision`` recorded it.

    It goes through the same review as any change. An injected caBundle keeps
    its live value: restoring an old certificate would break the webhook.
    """
    configuration = revision.configuration
    cluster = configuration.cluster
    with transaction.atomic():
        _require_role(user, cluster, Role.EDITOR, "Restoring")
        if revision.change == ConfigurationRevision.Change.DELETED:
            raise ChangeError(
                "This revision records the deletion: restore the revision before it.",
                code="not_valid",
            )
        wanted = strip_server_fields(revision.raw)
        live_exists = not configuration.is_deleted
        if live_exists and ca_bundle_injected(configuration.raw):
            wanted = _with_live_ca_bundles(wanted, configuration.raw)
        draft = ChangeRequest(
            author=user,
            cluster=cluster,
            kind=configuration.kind,
            name=configuration.name,
            action=ActionKind.UPDATE if live_exists else ActionKind.CREATE,
            restores_revision=revision,
            title=f"Restore {configuration.name} to revision {revision.number}",
            description=(
                f"Restores the content recorded in revision {revision.number} "
                f"({revision.observed_at:%Y-%m-%d %H:%M} UTC)."
            ),
        )
        if live_exists:
            draft.base_object = configuration.raw
            draft.base_resource_version = configuration.resource_version
        draft.save()
        audit_record(
            action=Audit.CHANGE_RESTORE_OPENED,
            actor=user,
            change=draft,
            summary=f"{user.get_username()} opened a restore of revision "
            f"{revision.number}",
            detail={"revision": revision.number},
        )
    drafts_service.draft_save(draft=draft, user=user, text=dump_yaml(wanted))
    return _fresh(draft)


@dataclass(frozen=True)
class Promotion:
    """One target cluster of a promote: the new change request, or why none."""

    cluster: Cluster
    change: ChangeRequest | None
    message: str


def change_promote(
    *, change: ChangeRequest, user: User, targets: Iterable[Cluster]
) -> list[Promotion]:
    """Open linked change requests applying the same change to other clusters.

    An update is replayed onto each target's live object (three-way merge);
    where the target differs on the same fields, the full proposed object is
    used and the request says so. Each is proposed when it validates and its
    cluster's dry run accepts it, else left as a draft; each is reviewed under
    its own cluster's policy.
    """
    source = _fresh(change)
    _require_visible(user, source.cluster)
    if source.state not in (*REVIEWABLE, State.APPLIED):
        raise ChangeError(
            "Only a proposed, approved or applied change can be promoted.",
        )
    results = []
    for target in targets:
        if target.pk == source.cluster_id:
            continue
        results.append(_promote_one(source, user, target))
    return results


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
        reason = _stale_reason(change, _live_of(configuration))
        if reason is None:
            continue
        with transaction.atomic():
            locked = _locked(change)
            if locked.state not in (State.IN_REVIEW, State.APPROVED):
                continue
            _mark_stale(locked, None, _live_of(configuration), reason)
            marked += 1
    return marked


# --- internals -----------------------------------------------------------------


def _apply_locked(change: ChangeRequest, user: User) -> ApplyOutcome:
    sent: dict[str, Any] | None = None
    try:
        with cluster_client(cluster=change.cluster, timeout=APPLY_TIMEOUT) as client:
            live = _read_live(client, change)
            reason = _stale_reason(change, live)
            if reason is not None:
                _mark_stale(change, user, live, reason)
                return ApplyOutcome("stale", reason, change)
            _write(client, change, dry_run=True)
            sent = _request_record(change)
            answer = _write(client, change, dry_run=False)
    except Conflict as exc:
        message = (
            f"The cluster refused the write: {exc}. The object changed at the "
            "moment of apply; nothing was changed."
        )
        _mark_stale(change, user, None, message, answer=_error_answer(exc))
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


def _stale_reason(change: ChangeRequest, live: dict[str, Any] | None) -> str | None:
    if change.action == ActionKind.CREATE:
        if live is not None:
            return f"A configuration named {change.name} now exists in the cluster."
        return None
    if live is None:
        return f"{change.name} is no longer in the cluster."
    version = str((live.get("metadata") or {}).get("resourceVersion") or "")
    if version != change.base_resource_version:
        return (
            f"{change.name} changed in the cluster since this change was made "
            f"(resourceVersion {change.base_resource_version} → {version})."
        )
    return None


def _live_of(configuration: WebhookConfiguration | None) -> dict[str, Any] | None:
    if configuration is None or configuration.is_deleted:
        return None
    return configuration.raw


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
    _bump(change)
    message = f"Applied to {cluster.name}"
    if revision is not None:
        message += f"; recorded as revision {revision.number}"
    audit_record(
        action=Audit.CHANGE_APPLIED,
        actor=user,
        change=change,
        summary=f"{user.get_username()} applied: {change.title or change}",
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
    _bump(change)
    audit_record(
        action=Audit.CHANGE_APPLY_FAILED,
        actor=user,
        change=change,
        summary=f"Apply by {user.get_username()} failed: {exc}",
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
        summary=f"Apply by {user.get_username()} did not reach the cluster: {exc}",
        detail={"response": _error_answer(exc)},
    )
    return ApplyOutcome("not_sent", message, change)


def _mark_stale(
    change: ChangeRequest,
    user: User | None,
    live: dict[str, Any] | None,
    reason: str,
    *,
    answer: dict[str, Any] | None = None,
) -> None:
    change.state = State.STALE
    if live is not None:
        change.live_object = live
        change.live_resource_version = str(
            (live.get("metadata") or {}).get("resourceVersion") or ""
        )
    else:
        change.live_object = _live_of(
            WebhookConfiguration.objects.filter(
                cluster=change.cluster, kind=change.kind, name=change.name
            ).first()
        )
        change.live_resource_version = str(
            ((change.live_object or {}).get("metadata") or {}).get("resourceVersion")
            or ""
        )
    change.outcome = {"message": reason, "causes": [], "at": timezone.now().isoformat()}
    _bump(change)
    audit_record(
        action=Audit.CHANGE_STALE,
        actor=user,
        change=change,
        summary=f"Stale: {reason}",
        detail={"response": answer} if answer else {},
    )


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


def _approve(change: ChangeRequest, user: User, body: str) -> ChangeReview:
    already = change.reviews.filter(
        reviewer=user, verdict=Verdict.APPROVE, dismissed_at__isnull=True
    ).exists()
    if already:
        raise ChangeError("You have already approved this version.")
    # Approving supersedes this reviewer's earlier request for changes.
    review = _add_review(change, user, Verdict.APPROVE, body)
    count = len(active_approvals(_fresh(change)))
    required = change.cluster.approvals_required
    if count >= required and change.state == State.IN_REVIEW:
        change.state = State.APPROVED
    _bump(change)
    audit_record(
        action=Audit.CHANGE_APPROVED,
        actor=user,
        change=change,
        summary=f"{user.get_username()} approved ({count} of {required})",
        detail={"body": body} if body else {},
    )
    return review


def _request_changes(change: ChangeRequest, user: User, body: str) -> ChangeReview:
    change.reviews.filter(
        reviewer=user, verdict=Verdict.APPROVE, dismissed_at__isnull=True
    ).update(dismissed_at=timezone.now(), dismissed_reason="changes requested")
    review = _add_review(change, user, Verdict.REQUEST_CHANGES, body)
    if len(active_approvals(_fresh(change))) < change.cluster.approvals_required:
        change.state = State.IN_REVIEW
    _bump(change)
    audit_record(
        action=Audit.CHANGE_CHANGES_REQUESTED,
        actor=user,
        change=change,
        summary=f"{user.get_username()} requested changes",
        detail={"body": body},
    )
    return review


def _reject(change: ChangeRequest, user: User, body: str) -> ChangeReview:
    review = _add_review(change, user, Verdict.REJECT, body)
    _dismiss_approvals(change, "rejected")
    change.state = State.REJECTED
    _bump(change)
    audit_record(
        action=Audit.CHANGE_REJECTED,
        actor=user,
        change=change,
        summary=f"{user.get_username()} rejected the change",
        detail={"body": body} if body else {},
    )
    return review


def _add_review(
    change: ChangeRequest, user: User, verdict: str, body: str
) -> ChangeReview:
    return ChangeReview.objects.create(
        change=change,
        reviewer=user,
        verdict=verdict,
        body=body,
        change_version=change.version,
    )


def _dismiss_approvals(change: ChangeRequest, reason: str) -> int:
    dismissed = change.reviews.filter(
        verdict=Verdict.APPROVE, dismissed_at__isnull=True
    ).update(dismissed_at=timezone.now(), dismissed_reason=reason[:200])
    if dismissed:
        audit_record(
            action=Audit.CHANGE_APPROVALS_RESET,
            change=change,
            summary=f"{dismissed} approval(s) dismissed: {reason}",
        )
    return dismissed


def _promote_one(source: ChangeRequest, user: User, target: Cluster) -> Promotion:
    if not has_role(user, target, Role.EDITOR):
        return Promotion(target, None, f"You need the editor role on {target.name}.")
    live_row = WebhookConfiguration.objects.filter(
        cluster=target, kind=source.kind, name=source.name, deleted_at__isnull=True
    ).first()
    note = ""
    if source.action == ActionKind.DELETE:
        if live_row is None:
            return Promotion(target, None, f"{source.name} is not on {target.name}.")
        action, proposed = ActionKind.DELETE, None
    elif live_row is None:
        action = ActionKind.CREATE
        proposed = clone_object(
            source.proposed_object or {},
            name=source.name,
            drop_ca_bundles=ca_bundle_injected(source.proposed_object or {}),
        )
    else:
        action = ActionKind.UPDATE
        proposed, note = _replayed(source, live_row.raw)
    with transaction.atomic():
        promoted = ChangeRequest.objects.create(
            author=user,
            cluster=target,
            kind=source.kind,
            name=source.name,
            action=action,
            promoted_from=source,
            base_object=live_row.raw if live_row else None,
            base_resource_version=live_row.resource_version if live_row else "",
            title=_promoted_title(source),
            description=(source.description + ("\n\n" + note if note else "")).strip(),
        )
        audit_record(
            action=Audit.CHANGE_PROMOTED,
            actor=user,
            change=promoted,
            summary=f"{user.get_username()} promoted change {source.pk} from "
            f"{source.cluster.name} to {target.name}",
            detail={"source": source.pk, "note": note},
        )
    if proposed is not None:
        drafts_service.draft_save(draft=promoted, user=user, text=dump_yaml(proposed))
    try:
        promoted = change_propose(change=_fresh(promoted), user=user)
        message = f"Proposed on {target.name} for review."
    except ChangeError as exc:
        promoted = _fresh(promoted)
        message = f"Kept as a draft on {target.name}: {exc}"
    if note:
        message += f" {note}"
    return Promotion(target, promoted, message)


def _promoted_title(source: ChangeRequest) -> str:
    return f"{source.title or source.name} (from {source.cluster.name})"[:200]


def _replayed(source: ChangeRequest, target_live: dict[str, Any]) -> tuple[dict, str]:
    proposed = source.proposed_object or {}
    base = source.base_object
    if base is not None:
        result = three_way_merge(base, target_live, proposed)
        if result.clean and result.merged is not None:
            return result.merged, ""
        note = (
            "The target differs from the source on the fields this change touches "
            f"({', '.join(result.conflicts)}): it proposes the source's whole object."
        )
    else:
        note = "The source created this configuration: it proposes the whole object."
    whole = strip_server_fields(proposed)
    if ca_bundle_injected(target_live):
        whole = _with_live_ca_bundles(whole, target_live)
    return whole, note


def _with_live_ca_bundles(
    wanted: dict[str, Any], live: dict[str, Any]
) -> dict[str, Any]:
    # Drop the wanted bundles first, then carry the live ones in by name.
    stripped = clone_object(
        wanted, name=wanted["metadata"]["name"], drop_ca_bundles=True
    )
    if "ownerReferences" in (wanted.get("metadata") or {}):
        stripped["metadata"]["ownerReferences"] = wanted["metadata"]["ownerReferences"]
    merged, _ = carry_ca_bundles(stripped, live)
    return merged


def _locked(change: ChangeRequest) -> ChangeRequest:
    return (
        ChangeRequest.objects.select_for_update()
        .select_related("cluster", "author")
        .get(pk=change.pk)
    )


def _fresh(change: ChangeRequest) -> ChangeRequest:
    return ChangeRequest.objects.select_related("cluster", "author").get(pk=change.pk)


def _bump(change: ChangeRequest) -> None:
    change.version += 1
    change.save()


def _still_approver(review: ChangeReview, cluster: Cluster) -> bool:
    return has_role(review.reviewer, cluster, Role.APPROVER)


def _require_visible(user: User, cluster: Cluster) -> None:
    if not visible_clusters(user).filter(pk=cluster.pk).exists():
        raise PermissionDenied("You cannot see this cluster.")


def _require_author(change: ChangeRequest, user: User) -> None:
    if change.author_id != user.pk:
        raise PermissionDenied("Only the author can do this.")


def _require_role(user: User, cluster: Cluster, role: str, doing: str) -> None:
    if not has_role(user, cluster, role):
        raise PermissionDenied(f"{doing} needs the {role} role on {cluster.name}.")


def _require_state(change: ChangeRequest, allowed: Iterable[str], verb: str) -> None:
    if change.state not in allowed:
        raise ChangeError(f"A change that is {_state(change)} cannot be {verb}.")


def _require_valid(change: ChangeRequest) -> None:
    if change.action == ActionKind.DELETE:
        return
    if change.proposed_object is None or change.validation_errors:
        count = len(change.validation_errors or [])
        raise ChangeError(
            f"Fix the {count} validation error{'s' if count != 1 else ''} first: "
            "a proposal must be valid.",
            code="not_valid",
        )


def _state(change: ChangeRequest) -> str:
    return str(ChangeRequest.State(change.state).label)
