"""The audit log: one append-only row for every state change, sync and push.

Rows are written inside the transaction of what they record, so an event is
logged exactly when the thing it describes happened (a rolled-back action
leaves no event). Names are copied so a row outlives its cluster or user.
"""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.dispatch import receiver
from django.utils import timezone

from webhooks_ui.models import AuditEvent, ChangeRequest, Cluster

logger = logging.getLogger(__name__)

SYSTEM = "system"


class Action:
    """Every action the log knows, with its stable id (used in filters, exports)."""

    CHANGE_PROPOSED = "change.proposed"
    CHANGE_EDITED = "change.edited"
    CHANGE_REOPENED = "change.reopened"
    CHANGE_APPROVED = "change.approved"
    CHANGE_CHANGES_REQUESTED = "change.changes_requested"
    CHANGE_COMMENTED = "change.commented"
    CHANGE_REJECTED = "change.rejected"
    CHANGE_WITHDRAWN = "change.withdrawn"
    CHANGE_APPROVALS_RESET = "change.approvals_reset"
    CHANGE_STALE = "change.stale"
    CHANGE_REBASED = "change.rebased"
    CHANGE_APPLIED = "change.applied"
    CHANGE_APPLY_FAILED = "change.apply_failed"
    CHANGE_APPLY_NOT_SENT = "change.apply_not_sent"
    CHANGE_RESTORE_OPENED = "change.restore_opened"
    CHANGE_PROMOTED = "change.promoted"
    CLUSTER_POLICY_CHANGED = "cluster.policy_changed"
    MEMBERSHIP_GRANTED = "membership.granted"
    MEMBERSHIP_REVOKED = "membership.revoked"
    SYNC_SUCCEEDED = "sync.succeeded"
    SYNC_FAILED = "sync.failed"
    USER_LOGIN = "user.login"
    USER_LOGIN_FAILED = "user.login_failed"

    @classmethod
    def all(cls) -> list[str]:
        return sorted(
            value
            for key, value in vars(cls).items()
            if key.isupper() and isinstance(value, str)
        )


def audit_record(
    *,
    action: str,
    summary: str,
    actor: AbstractBaseUser | None = None,
    cluster: Cluster | None = None,
    change: ChangeRequest | None = None,
    kind: str = "",
    name: str = "",
    detail: dict[str, Any] | None = None,
) -> AuditEvent:
    """Append one event. ``change`` fills in the cluster and configuration."""
    if change is not None:
        cluster = cluster or change.cluster
        kind = kind or change.kind
        name = name or change.name
    event = AuditEvent.objects.create(
        at=timezone.now(),
        actor=actor if actor is not None and actor.is_authenticated else None,
        actor_name=(actor.get_username() if actor is not None else SYSTEM)[:150],
        action=action,
        cluster=cluster,
        cluster_name=cluster.name if cluster is not None else "",
        configuration_kind=kind,
        configuration_name=name[:253],
        change=change if change is not None and change.pk else None,
        summary=summary,
        detail=detail or {},
    )
    logger.info("audit %s by %s: %s", action, event.actor_name, summary)
    return event


@receiver(user_logged_in, dispatch_uid="audit-login")
def _logged_in(sender, request, user, **kwargs) -> None:
    audit_record(action=Action.USER_LOGIN, actor=user, summary="signed in")


@receiver(user_login_failed, dispatch_uid="audit-login-failed")
def _login_failed(sender, credentials, request=None, **kwargs) -> None:
    # Only the username: never the password Django passes along (it is
    # already masked, but the log has no use for it).
    username = str((credentials or {}).get("username") or "")[:150]
    AuditEvent.objects.create(
        at=timezone.now(),
        actor=None,
        actor_name=username or "(unknown)",
        action=Action.USER_LOGIN_FAILED,
        summary=f"Failed sign-in as {username or '(no username)'}",
    )
