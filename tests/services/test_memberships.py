"""Granting and revoking roles on a cluster: admin only, audited, and never
leaving the cluster without a working admin by accident."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User
from django.core.exceptions import PermissionDenied

from webhooks_ui.models import AuditEvent, Cluster, ClusterMembership
from webhooks_ui.permissions import has_role
from webhooks_ui.services.memberships import (
    MEMBERSHIP_GRANTED,
    MEMBERSHIP_REVOKED,
    MembershipError,
    membership_grant,
    membership_revoke,
)


@pytest.fixture
def cluster(db) -> Cluster:
    return Cluster.objects.create(
        name="prod", api_server_url="https://127.0.0.1:1", auth_method="token"
    )


@pytest.fixture
def other(db) -> Cluster:
    return Cluster.objects.create(
        name="other", api_server_url="https://127.0.0.1:1", auth_method="token"
    )


def _user(cluster: Cluster | None, name: str, *roles: str, **extra) -> User:
    user = User.objects.create_user(name, **extra)
    for role in roles:
        ClusterMembership.objects.create(cluster=cluster, user=user, role=role)
    return user


def _events(action: str) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(action=action).order_by("pk"))


# --- grant --------------------------------------------------------------------------


def test_an_admin_grants_a_role_to_a_user_and_it_is_audited(cluster):
    admin = _user(cluster, "ann", "admin")
    bea = _user(None, "bea")
    membership = membership_grant(
        cluster=cluster, actor=admin, role="approver", username=" bea "
    )
    assert (membership.cluster, membership.user, membership.group) == (
        cluster,
        bea,
        None,
    )
    assert membership.role == "approver"
    assert has_role(bea, cluster, "approver")
    [event] = _events(MEMBERSHIP_GRANTED)
    assert event.actor == admin and event.cluster_name == "prod"
    assert event.detail == {
        "membership": membership.pk,
        "role": "approver",
        "kind": "user",
        "holder": "bea",
    }
    assert event.summary == "Granted the approver role on prod to user bea"


def test_an_admin_grants_a_role_to_a_group(cluster):
    admin = _user(cluster, "ann", "admin")
    sre = Group.objects.create(name="sre")
    gus = _user(None, "gus")
    gus.groups.add(sre)
    membership = membership_grant(
        cluster=cluster, actor=admin, role="operator", group_name="sre"
    )
    assert membership.group == sre and membership.user is None
    assert has_role(gus, cluster, "operator")
    [event] = _events(MEMBERSHIP_GRANTED)
    assert event.detail["kind"] == "group" and event.detail["holder"] == "sre"


@pytest.mark.parametrize(
    ("holder", "words"),
    [
        ({"username": "nobody-here"}, "There is no user named 'nobody-here'."),
        ({"group_name": "ghosts"}, "There is no group named 'ghosts'."),
    ],
)
def test_an_unknown_name_is_refused_on_the_name_field(cluster, holder, words):
    admin = _user(cluster, "ann", "admin")
    with pytest.raises(MembershipError) as caught:
        membership_grant(cluster=cluster, actor=admin, role="viewer", **holder)
    assert str(caught.value) == words
    assert caught.value.field == "holder_name"
    assert ClusterMembership.objects.count() == 1
    assert not _events(MEMBERSHIP_GRANTED)


@pytest.mark.parametrize(
    "holder",
    [{}, {"username": "  ", "group_name": ""}, {"username": "ann", "group_name": "x"}],
)
def test_exactly_one_of_user_or_group(cluster, holder):
    admin = _user(cluster, "ann", "admin")
    Group.objects.create(name="x")
    with pytest.raises(MembershipError, match="either a user or a group"):
        membership_grant(cluster=cluster, actor=admin, role="viewer", **holder)


@pytest.mark.parametrize("role", ["owner", "", "ADMIN"])
def test_an_unknown_role_is_refused(cluster, role):
    admin = _user(cluster, "ann", "admin")
    with pytest.raises(MembershipError) as caught:
        membership_grant(cluster=cluster, actor=admin, role=role, username="ann")
    assert caught.value.field == "role"


def test_granting_a_role_held_already_changes_nothing(cluster):
    admin = _user(cluster, "ann", "admin")
    bea = _user(cluster, "bea", "viewer")
    before = ClusterMembership.objects.get(user=bea)
    again = membership_grant(
        cluster=cluster, actor=admin, role="viewer", username="bea"
    )
    assert again.pk == before.pk
    assert ClusterMembership.objects.filter(user=bea).count() == 1
    assert not _events(MEMBERSHIP_GRANTED)


def test_the_same_holder_may_hold_several_roles(cluster):
    admin = _user(cluster, "ann", "admin")
    _user(cluster, "bea", "viewer")
    membership_grant(cluster=cluster, actor=admin, role="editor", username="bea")
    roles = ClusterMembership.objects.filter(user__username="bea").values_list(
        "role", flat=True
    )
    assert sorted(roles) == ["editor", "viewer"]


@pytest.mark.parametrize("roles", [(), ("viewer",), ("editor", "approver", "operator")])
def test_anyone_but_an_admin_is_refused(cluster, other, roles):
    eve = _user(cluster, "eve", *roles)
    ClusterMembership.objects.create(cluster=other, user=eve, role="admin")
    _user(None, "bea")
    with pytest.raises(PermissionDenied):
        membership_grant(cluster=cluster, actor=eve, role="admin", username="eve")
    with pytest.raises(PermissionDenied):
        membership_grant(cluster=cluster, actor=eve, role="viewer", username="bea")
    assert not ClusterMembership.objects.filter(
        cluster=cluster, user__username="bea"
    ).exists()
    assert not _events(MEMBERSHIP_GRANTED)


def test_the_admin_role_may_come_from_a_group_or_superuser(cluster):
    platform = Group.objects.create(name="platform")
    gina = _user(None, "gina")
    gina.groups.add(platform)
    ClusterMembership.objects.create(cluster=cluster, group=platform, role="admin")
    root = _user(None, "root", is_superuser=True)
    _user(None, "bea")
    membership_grant(cluster=cluster, actor=gina, role="viewer", username="bea")
    membership_grant(cluster=cluster, actor=root, role="editor", username="bea")
    assert len(_events(MEMBERSHIP_GRANTED)) == 2


def test_the_role_is_checked_again_inside_the_transaction(cluster):
    admin = _user(cluster, "ann", "admin")
    bea = _user(cluster, "bea", "viewer")
    ClusterMembership.objects.filter(user=admin).delete()
    with pytest.raises(PermissionDenied):
        membership_grant(cluster=cluster, actor=admin, role="admin", username="ann")
    with pytest.raises(PermissionDenied):
        membership_revoke(
            cluster=cluster,
            actor=admin,
            membership_id=ClusterMembership.objects.get(user=bea).pk,
        )


def test_an_inactive_admin_is_refused(cluster):
    admin = _user(cluster, "ann", "admin", is_active=False)
    with pytest.raises(PermissionDenied):
        membership_grant(cluster=cluster, actor=admin, role="viewer", username="ann")


# --- revoke -------------------------------------------------------------------------


def test_an_admin_revokes_a_membership_and_it_is_audited(cluster):
    admin = _user(cluster, "ann", "admin")
    bea = _user(cluster, "bea", "viewer", "editor")
    editor = ClusterMembership.objects.get(user=bea, role="editor")
    revoked = membership_revoke(cluster=cluster, actor=admin, membership_id=editor.pk)
    assert revoked.role == "editor"
    assert not ClusterMembership.objects.filter(pk=editor.pk).exists()
    assert has_role(bea, cluster, "viewer") and not has_role(bea, cluster, "editor")
    [event] = _events(MEMBERSHIP_REVOKED)
    assert event.actor == admin and event.cluster_name == "prod"
    assert event.detail == {
        "membership": editor.pk,
        "role": "editor",
        "kind": "user",
        "holder": "bea",
    }
    assert event.summary == "Revoked the editor role on prod from user bea"


def test_revoking_a_group_membership(cluster):
    admin = _user(cluster, "ann", "admin")
    sre = Group.objects.create(name="sre")
    held = ClusterMembership.objects.create(cluster=cluster, group=sre, role="viewer")
    membership_revoke(cluster=cluster, actor=admin, membership_id=held.pk)
    assert not ClusterMembership.objects.filter(group=sre).exists()
    [event] = _events(MEMBERSHIP_REVOKED)
    assert event.detail["kind"] == "group" and event.detail["holder"] == "sre"


def test_another_clusters_membership_or_a_gone_one_does_not_exist(cluster, other):
    admin = _user(cluster, "ann", "admin")
    elsewhere = _user(other, "olga", "viewer")
    theirs = ClusterMembership.objects.get(user=elsewhere)
    with pytest.raises(ClusterMembership.DoesNotExist):
        membership_revoke(cluster=cluster, actor=admin, membership_id=theirs.pk)
    with pytest.raises(ClusterMembership.DoesNotExist):
        membership_revoke(cluster=cluster, actor=admin, membership_id=999_999)
    assert ClusterMembership.objects.filter(pk=theirs.pk).exists()
    assert not _events(MEMBERSHIP_REVOKED)


def test_a_non_admin_cannot_revoke(cluster):
    _user(cluster, "ann", "admin")
    eve = _user(cluster, "eve", "operator", "viewer")
    held = ClusterMembership.objects.get(user__username="ann")
    with pytest.raises(PermissionDenied):
        membership_revoke(cluster=cluster, actor=eve, membership_id=held.pk)
    assert ClusterMembership.objects.filter(pk=held.pk).exists()


# --- never without an admin -------------------------------------------------------


def test_the_last_admin_cannot_revoke_themselves(cluster):
    admin = _user(cluster, "ann", "admin")
    held = ClusterMembership.objects.get(user=admin)
    with pytest.raises(MembershipError, match="last admin of prod") as caught:
        membership_revoke(cluster=cluster, actor=admin, membership_id=held.pk)
    assert caught.value.field is None
    assert ClusterMembership.objects.filter(pk=held.pk).exists()
    assert not _events(MEMBERSHIP_REVOKED)


def test_an_admin_may_leave_once_another_admin_exists(cluster):
    admin = _user(cluster, "ann", "admin")
    _user(cluster, "bob", "admin")
    held = ClusterMembership.objects.get(user=admin)
    membership_revoke(cluster=cluster, actor=admin, membership_id=held.pk)
    assert not has_role(admin, cluster, "admin")


def test_the_last_working_admin_is_kept_even_if_other_memberships_remain(cluster):
    """An admin membership of an empty group or of a deactivated user lets
    nobody in: it does not count as another admin."""
    admin = _user(cluster, "ann", "admin")
    _user(cluster, "old", "admin", is_active=False)
    empty = Group.objects.create(name="empty")
    ClusterMembership.objects.create(cluster=cluster, group=empty, role="admin")
    held = ClusterMembership.objects.get(user=admin)
    with pytest.raises(MembershipError):
        membership_revoke(cluster=cluster, actor=admin, membership_id=held.pk)
    # A member in the group makes it a working admin: now ann may go.
    _user(None, "gus").groups.add(empty)
    membership_revoke(cluster=cluster, actor=admin, membership_id=held.pk)


def test_a_group_admin_cannot_remove_the_last_admin_group(cluster):
    platform = Group.objects.create(name="platform")
    gina = _user(None, "gina")
    gina.groups.add(platform)
    held = ClusterMembership.objects.create(
        cluster=cluster, group=platform, role="admin"
    )
    with pytest.raises(MembershipError):
        membership_revoke(cluster=cluster, actor=gina, membership_id=held.pk)


def test_other_roles_of_the_last_admin_may_go(cluster):
    admin = _user(cluster, "ann", "admin", "operator")
    held = ClusterMembership.objects.get(user=admin, role="operator")
    membership_revoke(cluster=cluster, actor=admin, membership_id=held.pk)
    assert has_role(admin, cluster, "admin")


def test_a_superuser_may_remove_the_last_admin(cluster):
    _user(cluster, "ann", "admin")
    root = _user(None, "root", is_superuser=True)
    held = ClusterMembership.objects.get(user__username="ann")
    membership_revoke(cluster=cluster, actor=root, membership_id=held.pk)
    assert not ClusterMembership.objects.filter(cluster=cluster).exists()
    [event] = _events(MEMBERSHIP_REVOKED)
    assert event.actor == root
