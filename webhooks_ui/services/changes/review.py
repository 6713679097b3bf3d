"""Proposing and reviewing: from draft to approved (or closed).

Comments are open to anyone who can see the cluster; verdicts need the
approver role and never come from the author.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from webhooks_ui.models import (
    ChangeRequest,
    ChangeReview,
)
from webhooks_ui.permissions import (
    Role,
    cluster_ids_with_role,
    has_role,
    visible_clusters,
)
from webhooks_ui.services import drafts as drafts_service
from webhooks_ui.services.audit import Action as Audit
from webhooks_ui.services.audit import audit_record
from webhooks_ui.services.changes.common import (
    REOPENABLE,
    REVIEWABLE,
    WITHDRAWABLE,
    ChangeError,
    State,
    Verdict,
    active_approvals,
    add_review,
    bump,
    dismiss_approvals,
    lock_change,
    reload_change,
    require_author,
    require_role,
    require_state,
    require_valid,
    require_visible,
    state_label,
)


def review_blockers(change: ChangeRequest, user: User) -> list[str]:
    """Why ``user`` may not approve or request changes on ``change``."""
    reasons = []
    if change.author_id == user.pk:
        reasons.append("Authors cannot review their own change.")
    if change.state not in REVIEWABLE:
        reasons.append(
            "Only a change in review can be reviewed; this one is "
            f"{state_label(change)}."
        )
    if not has_role(user, change.cluster, Role.APPROVER):
        reasons.append(f"Reviewing needs the approver role on {change.cluster.name}.")
    return reasons


def awaiting_review(user: User):
    """Open change requests ``user`` could approve and has not approved yet.

    One query (the clusters are a subquery): the navigation counts it on
    every page.
    """
    clusters = cluster_ids_with_role(user, Role.APPROVER)
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
        locked = lock_change(change)
        require_author(locked, user)
        require_role(user, locked.cluster, Role.EDITOR, "Proposing")
        require_state(locked, (State.DRAFT,), "proposed")
        require_valid(locked)
    result = drafts_service.draft_dry_run(draft=locked, user=user)
    with transaction.atomic():
        locked = lock_change(change)
        require_state(locked, (State.DRAFT,), "proposed")
        require_valid(locked)
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
        bump(locked)
        audit_record(
            action=Audit.CHANGE_PROPOSED,
            actor=user,
            change=locked,
            summary=f"proposed: {locked.title or locked}",
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
        locked = lock_change(change)
        require_author(locked, user)
        require_state(locked, (State.DRAFT, *REOPENABLE), "edited")
        if title is not None:
            title = title.strip()
            if not title:
                raise ChangeError("A change request needs a title.", code="not_valid")
            locked.title = title[:200]
        if description is not None:
            locked.description = description
        bump(locked)
        if locked.state != State.DRAFT:
            audit_record(
                action=Audit.CHANGE_EDITED,
                actor=user,
                change=locked,
                summary="edited the title or description",
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
        locked = lock_change(change)
        bump(locked)
    return locked


def change_reopen(*, change: ChangeRequest, user: User) -> ChangeRequest:
    """Take a proposal back to draft to edit it; its approvals are dismissed."""
    with transaction.atomic():
        locked = lock_change(change)
        require_author(locked, user)
        require_role(user, locked.cluster, Role.EDITOR, "Editing")
        require_state(locked, REOPENABLE, "reopened")
        dismissed = dismiss_approvals(locked, "the proposal went back to draft")
        locked.state = State.DRAFT
        bump(locked)
        audit_record(
            action=Audit.CHANGE_REOPENED,
            actor=user,
            change=locked,
            summary="took the proposal back to draft"
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
        locked = lock_change(change)
        require_visible(user, locked.cluster)
        if verdict == Verdict.COMMENT:
            if not body:
                raise ChangeError("A comment needs some text.", code="not_valid")
            if locked.state == State.DRAFT:
                raise ChangeError("Drafts are private to their author until proposed.")
            review = add_review(locked, user, verdict, body)
            audit_record(
                action=Audit.CHANGE_COMMENTED,
                actor=user,
                change=locked,
                summary="commented",
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
        locked = lock_change(change)
        require_author(locked, user)
        require_state(locked, WITHDRAWABLE, "withdrawn")
        dismiss_approvals(locked, "withdrawn")
        locked.state = State.WITHDRAWN
        bump(locked)
        audit_record(
            action=Audit.CHANGE_WITHDRAWN,
            actor=user,
            change=locked,
            summary="withdrew the change",
        )
    return locked


def _approve(change: ChangeRequest, user: User, body: str) -> ChangeReview:
    already = change.reviews.filter(
        reviewer=user, verdict=Verdict.APPROVE, dismissed_at__isnull=True
    ).exists()
    if already:
        raise ChangeError("You have already approved this version.")
    # Approving supersedes this reviewer's earlier request for changes.
    review = add_review(change, user, Verdict.APPROVE, body)
    count = len(active_approvals(reload_change(change)))
    required = change.cluster.approvals_required
    if count >= required and change.state == State.IN_REVIEW:
        change.state = State.APPROVED
    bump(change)
    audit_record(
        action=Audit.CHANGE_APPROVED,
        actor=user,
        change=change,
        summary=f"approved ({count} of {required})",
        detail={"body": body} if body else {},
    )
    return review


def _request_changes(change: ChangeRequest, user: User, body: str) -> ChangeReview:
    change.reviews.filter(
        reviewer=user, verdict=Verdict.APPROVE, dismissed_at__isnull=True
    ).update(dismissed_at=timezone.now(), dismissed_reason="changes requested")
    review = add_review(change, user, Verdict.REQUEST_CHANGES, body)
    if len(active_approvals(reload_change(change))) < change.cluster.approvals_required:
        change.state = State.IN_REVIEW
    bump(change)
    audit_record(
        action=Audit.CHANGE_CHANGES_REQUESTED,
        actor=user,
        change=change,
        summary="requested changes",
        detail={"body": body},
    )
    return review


def _reject(change: ChangeRequest, user: User, body: str) -> ChangeReview:
    review = add_review(change, user, Verdict.REJECT, body)
    dismiss_approvals(change, "rejected")
    change.state = State.REJECTED
    bump(change)
    audit_record(
        action=Audit.CHANGE_REJECTED,
        actor=user,
        change=change,
        summary="rejected the change",
        detail={"body": body} if body else {},
    )
    return review
