"""What every change-request transition shares: states, locking, checks, approvals."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.utils import timezone

from webhooks_ui.models import (
    ChangeRequest,
    ChangeReview,
    Cluster,
    WebhookConfiguration,
)
from webhooks_ui.permissions import Role, has_role, visible_clusters
from webhooks_ui.services.audit import Action as Audit
from webhooks_ui.services.audit import audit_record

State = ChangeRequest.State
Verdict = ChangeReview.Verdict
ActionKind = ChangeRequest.Action
REVIEWABLE = (State.IN_REVIEW, State.APPROVED)
REOPENABLE = (State.IN_REVIEW, State.APPROVED, State.STALE, State.FAILED)
WITHDRAWABLE = (State.DRAFT, *REOPENABLE)
APPLICABLE = (State.APPROVED, State.FAILED)


class ChangeError(ValueError):
    """The change request cannot do this now (its state, policy, or content).

    ``code`` is stable for the API: invalid_state, not_valid, dry_run_failed,
    policy, conflict.
    """

    def __init__(self, message: str, *, code: str = "invalid_state") -> None:
        super().__init__(message)
        self.code = code


def active_approvals(change: ChangeRequest) -> list[ChangeReview]:
    """Approvals that count: not dismissed, not by the author."""
    return [
        review
        for review in change.reviews.all()
        if review.verdict == Verdict.APPROVE
        and review.dismissed_at is None
        and review.reviewer_id != change.author_id
    ]


def still_approver(review: ChangeReview, cluster: Cluster) -> bool:
    return has_role(review.reviewer, cluster, Role.APPROVER)


def add_review(
    change: ChangeRequest, user: User, verdict: str, body: str
) -> ChangeReview:
    return ChangeReview.objects.create(
        change=change,
        reviewer=user,
        verdict=verdict,
        body=body,
        change_version=change.version,
    )


def dismiss_approvals(change: ChangeRequest, reason: str) -> int:
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


def lock_change(change: ChangeRequest) -> ChangeRequest:
    return (
        ChangeRequest.objects.select_for_update()
        .select_related("cluster", "author")
        .get(pk=change.pk)
    )


def reload_change(change: ChangeRequest) -> ChangeRequest:
    return ChangeRequest.objects.select_related("cluster", "author").get(pk=change.pk)


def bump(change: ChangeRequest) -> None:
    change.version += 1
    change.save()


def require_visible(user: User, cluster: Cluster) -> None:
    if not visible_clusters(user).filter(pk=cluster.pk).exists():
        raise PermissionDenied("You cannot see this cluster.")


def require_author(change: ChangeRequest, user: User) -> None:
    if change.author_id != user.pk:
        raise PermissionDenied("Only the author can do this.")


def require_role(user: User, cluster: Cluster, role: str, doing: str) -> None:
    if not has_role(user, cluster, role):
        raise PermissionDenied(f"{doing} needs the {role} role on {cluster.name}.")


def require_state(change: ChangeRequest, allowed: Iterable[str], verb: str) -> None:
    if change.state not in allowed:
        raise ChangeError(f"A change that is {state_label(change)} cannot be {verb}.")


def require_valid(change: ChangeRequest) -> None:
    if change.action == ActionKind.DELETE:
        return
    if change.proposed_object is None or change.validation_errors:
        count = len(change.validation_errors or [])
        raise ChangeError(
            f"Fix the {count} validation error{'s' if count != 1 else ''} first: "
            "a proposal must be valid.",
            code="not_valid",
        )


def state_label(change: ChangeRequest) -> str:
    return str(ChangeRequest.State(change.state).label)


def live_of(configuration: WebhookConfiguration | None) -> dict[str, Any] | None:
    if configuration is None or configuration.is_deleted:
        return None
    return configuration.raw


def stale_reason(change: ChangeRequest, live: dict[str, Any] | None) -> str | None:
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


def mark_stale(
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
        change.live_object = live_of(
            WebhookConfiguration.objects.filter(
                cluster=change.cluster, kind=change.kind, name=change.name
            ).first()
        )
        change.live_resource_version = str(
            ((change.live_object or {}).get("metadata") or {}).get("resourceVersion")
            or ""
        )
    change.outcome = {"message": reason, "causes": [], "at": timezone.now().isoformat()}
    bump(change)
    audit_record(
        action=Audit.CHANGE_STALE,
        actor=user,
        change=change,
        summary=f"turned stale: {reason}",
        detail={"response": answer} if answer else {},
    )
