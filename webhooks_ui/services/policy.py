"""A cluster's approval policy: how many approvals, who may apply, and when.

Only a cluster admin changes it, re-checked inside the transaction that
writes it, and every change leaves an audit event with the before and after.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import transaction

from webhooks_ui.domain import change_window as change_window_rules
from webhooks_ui.models import Cluster
from webhooks_ui.permissions import Role, has_role
from webhooks_ui.services.audit import Action, audit_record

POLICY_CHANGED = Action.CLUSTER_POLICY_CHANGED
APPROVALS_MIN = 1
APPROVALS_MAX = 10
POLICY_FIELDS = ("approvals_required", "author_may_apply", "change_window")


class PolicyError(ValueError):
    """The policy asked for is not valid; ``field`` names the offending field."""

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message)
        self.field = field


def policy_of(cluster: Cluster) -> dict[str, Any]:
    """The policy fields of ``cluster`` as a plain dict (audit detail, API)."""
    return {name: getattr(cluster, name) for name in POLICY_FIELDS}


def cluster_policy_update(
    *,
    cluster: Cluster,
    user: User,
    approvals_required: int,
    author_may_apply: bool,
    change_window: str,
) -> Cluster:
    """Set ``cluster``'s approval policy (admin role only) and audit the change.

    Saving the policy it already has writes nothing and logs nothing.
    """
    window = (change_window or "").strip()
    _validate(approvals_required=approvals_required, change_window=window)
    with transaction.atomic():
        locked = (
            Cluster.objects.select_for_update()
            .defer("credentials_encrypted")
            .get(pk=cluster.pk)
        )
        if not has_role(user, locked, Role.ADMIN):
            raise PermissionDenied(
                f"Changing the approval policy needs the admin role on {locked.name}."
            )
        before = policy_of(locked)
        after = {
            "approvals_required": int(approvals_required),
            "author_may_apply": bool(author_may_apply),
            "change_window": window,
        }
        if before == after:
            return locked
        for name, value in after.items():
            setattr(locked, name, value)
        locked.save(update_fields=[*POLICY_FIELDS, "updated_at"])
        changed = [name for name in POLICY_FIELDS if before[name] != after[name]]
        audit_record(
            action=POLICY_CHANGED,
            actor=user,
            cluster=locked,
            summary=_summary(locked, after, changed),
            detail={"before": before, "after": after, "changed": changed},
        )
    return locked


def _validate(*, approvals_required: Any, change_window: str) -> None:
    if (
        isinstance(approvals_required, bool)
        or not isinstance(approvals_required, int)
        or not APPROVALS_MIN <= approvals_required <= APPROVALS_MAX
    ):
        raise PolicyError(
            f"Approvals required must be a whole number from {APPROVALS_MIN} "
            f"to {APPROVALS_MAX}.",
            field="approvals_required",
        )
    try:
        change_window_rules.parse(change_window)
    except change_window_rules.ChangeWindowError as exc:
        raise PolicyError(str(exc), field="change_window") from None


def _summary(cluster: Cluster, after: dict[str, Any], changed: list[str]) -> str:
    words = {
        "approvals_required": (
            f"{after['approvals_required']} approval"
            f"{'' if after['approvals_required'] == 1 else 's'} required"
        ),
        "author_may_apply": (
            "authors may apply their own changes"
            if after["author_may_apply"]
            else "authors may not apply their own changes"
        ),
        "change_window": (
            f"change window {cluster.change_window_text}"
            if after["change_window"]
            else "no change window"
        ),
    }
    return f"Approval policy of {cluster.name}: " + "; ".join(
        words[name] for name in changed
    )
