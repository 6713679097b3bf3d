"""Who holds which role on a cluster: granting and revoking memberships.

Only a cluster admin (or a superuser) does it, re-checked inside the
transaction that writes, and every grant or revoke leaves an audit event. A
cluster admin cannot remove the last working admin of the cluster (an active
user holding the role directly or through a group): only a superuser can,
so nobody locks every admin out by accident.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, User
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Q

from webhooks_ui.models import Cluster, ClusterMembership
from webhooks_ui.permissions import Role, has_role
from webhooks_ui.services.audit import Action, audit_record

MEMBERSHIP_GRANTED = Action.MEMBERSHIP_GRANTED
MEMBERSHIP_REVOKED = Action.MEMBERSHIP_REVOKED
USER = "user"
GROUP = "group"


class MembershipError(ValueError):
    """The grant or revoke asked for cannot be done; ``field`` names the form
    field the words belong under (``None``: the request as a whole)."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def holder_of(membership: ClusterMembership) -> tuple[str, str]:
    """``("user", username)`` or ``("group", name)``: who holds ``membership``."""
    if membership.user_id:
        return USER, membership.user.get_username()
    return GROUP, membership.group.name


def membership_grant(
    *,
    cluster: Cluster,
    actor: User,
    role: str,
    username: str | None = None,
    group_name: str | None = None,
) -> ClusterMembership:
    """Give ``role`` on ``cluster`` to the named user or group (exactly one).

    Granting a role the holder already has changes nothing, logs nothing and
    returns the existing membership.
    """
    username = (username or "").strip()
    group_name = (group_name or "").strip()
    if role not in Role.values:
        raise MembershipError(f"{role!r} is not a role.", field="role")
    if bool(username) == bool(group_name):
        raise MembershipError("Name either a user or a group.")
    with transaction.atomic():
        locked = _locked_as_admin(cluster, actor)
        if username:
            holder = {USER: _user_named(username)}
        else:
            holder = {GROUP: _group_named(group_name)}
        existing = ClusterMembership.objects.filter(
            cluster=locked, role=role, **holder
        ).first()
        if existing is not None:
            return existing
        membership = ClusterMembership.objects.create(
            cluster=locked, role=role, **holder
        )
        kind, name = holder_of(membership)
        audit_record(
            action=MEMBERSHIP_GRANTED,
            actor=actor,
            cluster=locked,
            summary=f"Granted the {role} role on {locked.name} to {kind} {name}",
            detail=_detail(membership),
        )
    return membership


def membership_revoke(
    *, cluster: Cluster, actor: User, membership_id: int
) -> ClusterMembership:
    """Remove one membership of ``cluster`` and return it (as it was).

    Raises ``ClusterMembership.DoesNotExist`` when ``cluster`` has no such
    membership (already revoked, or another cluster's), and ``MembershipError``
    when it would leave the cluster without a working admin and the actor is
    not a superuser.
    """
    with transaction.atomic():
        locked = _locked_as_admin(cluster, actor)
        membership = ClusterMembership.objects.select_related("user", "group").get(
            cluster=locked, pk=membership_id
        )
        if (
            membership.role == Role.ADMIN
            and not actor.is_superuser
            and not _keeps_an_admin(locked, without=membership)
        ):
            raise MembershipError(
                f"This is the last admin of {locked.name}: grant the admin role "
                "to another user first (only a superuser may remove the last one)."
            )
        detail = _detail(membership)
        kind, name = holder_of(membership)
        membership.delete()
        audit_record(
            action=MEMBERSHIP_REVOKED,
            actor=actor,
            cluster=locked,
            summary=(
                f"Revoked the {membership.role} role on {locked.name} "
                f"from {kind} {name}"
            ),
            detail=detail,
        )
    return membership


def _locked_as_admin(cluster: Cluster, actor: User) -> Cluster:
    # The row lock serialises grants and revokes on one cluster, so two admins
    # revoking each other at once cannot both pass the last-admin check.
    locked = (
        Cluster.objects.select_for_update()
        .defer("credentials_encrypted")
        .get(pk=cluster.pk)
    )
    if not has_role(actor, locked, Role.ADMIN):
        raise PermissionDenied(
            f"Managing memberships needs the admin role on {locked.name}."
        )
    return locked


def _user_named(username: str) -> User:
    model = get_user_model()
    try:
        return model.objects.get(**{model.USERNAME_FIELD: username})
    except model.DoesNotExist:
        raise MembershipError(
            f"There is no user named {username!r}.", field="holder_name"
        ) from None


def _group_named(name: str) -> Group:
    try:
        return Group.objects.get(name=name)
    except Group.DoesNotExist:
        raise MembershipError(
            f"There is no group named {name!r}.", field="holder_name"
        ) from None


def _keeps_an_admin(cluster: Cluster, *, without: ClusterMembership) -> bool:
    """Whether an active user still holds admin on ``cluster`` once ``without``
    is gone (an empty group or a deactivated user does not count)."""
    remaining = ClusterMembership.objects.filter(
        cluster=cluster, role=Role.ADMIN
    ).exclude(pk=without.pk)
    return (
        get_user_model()
        .objects.filter(is_active=True)
        .filter(
            Q(cluster_memberships__in=remaining)
            | Q(groups__cluster_memberships__in=remaining)
        )
        .exists()
    )


def _detail(membership: ClusterMembership) -> dict[str, object]:
    kind, name = holder_of(membership)
    # "holder" as the admin's own membership events name it.
    return {
        "membership": membership.pk,
        "role": membership.role,
        "kind": kind,
        "holder": name,
    }
