"""A cluster's approval policy: admin only, validated, audited."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User
from django.core.exceptions import PermissionDenied

from webhooks_ui.models import AuditEvent, Cluster, ClusterMembership
from webhooks_ui.services.policy import (
    POLICY_CHANGED,
    PolicyError,
    cluster_policy_update,
)


@pytest.fixture
def cluster(db) -> Cluster:
    return Cluster.objects.create(
        name="prod", api_server_url="https://127.0.0.1:1", auth_method="token"
    )


def _user(cluster: Cluster, name: str, *roles: str) -> User:
    user = User.objects.create_user(name)
    for role in roles:
        ClusterMembership.objects.create(cluster=cluster, user=user, role=role)
    return user


def _update(cluster, user, **changes):
    policy = {"approvals_required": 2, "author_may_apply": True, "change_window": ""}
    return cluster_policy_update(cluster=cluster, user=user, **{**policy, **changes})


def test_an_admin_changes_the_policy_and_it_is_audited(cluster):
    admin = _user(cluster, "ann", "admin")
    updated = _update(cluster, admin, change_window="  Mon-Fri 09:00-17:00 ")
    cluster.refresh_from_db()
    assert (cluster.approvals_required, cluster.author_may_apply) == (2, True)
    assert cluster.change_window == "Mon-Fri 09:00-17:00"
    assert updated.change_window == "Mon-Fri 09:00-17:00"
    event = AuditEvent.objects.get(action=POLICY_CHANGED)
    assert event.actor == admin and event.actor_name == "ann"
    assert event.cluster_id == cluster.pk and event.cluster_name == "prod"
    assert event.detail["before"] == {
        "approvals_required": 1,
        "author_may_apply": False,
        "change_window": "",
    }
    assert event.detail["after"]["change_window"] == "Mon-Fri 09:00-17:00"
    assert event.detail["changed"] == [
        "approvals_required",
        "author_may_apply",
        "change_window",
    ]
    assert "2 approvals required" in event.summary


def test_the_role_can_come_from_a_group(cluster):
    user = User.objects.create_user("gina")
    group = Group.objects.create(name="platform")
    user.groups.add(group)
    ClusterMembership.objects.create(cluster=cluster, group=group, role="admin")
    _update(cluster, user, approvals_required=3)
    cluster.refresh_from_db()
    assert cluster.approvals_required == 3


def test_superusers_may(cluster):
    root = User.objects.create_user("root", is_superuser=True)
    _update(cluster, root)
    assert AuditEvent.objects.filter(action=POLICY_CHANGED).count() == 1


@pytest.mark.parametrize("roles", [(), ("viewer",), ("editor", "approver", "operator")])
def test_anyone_else_is_refused_and_nothing_changes(cluster, roles):
    user = _user(cluster, "eve", *roles)
    with pytest.raises(PermissionDenied):
        _update(cluster, user)
    cluster.refresh_from_db()
    assert cluster.approvals_required == 1
    assert not AuditEvent.objects.filter(action=POLICY_CHANGED).exists()


def test_the_role_is_checked_again_inside_the_transaction(cluster):
    """A stale object in hand (fetched while the user was still admin) is not
    enough: the service reads the memberships again."""
    admin = _user(cluster, "ann", "admin")
    ClusterMembership.objects.filter(user=admin).delete()
    with pytest.raises(PermissionDenied):
        _update(cluster, admin)


@pytest.mark.parametrize("value", [0, 11, -1, True, "2", None])
def test_approvals_must_be_1_to_10(cluster, value):
    admin = _user(cluster, "ann", "admin")
    with pytest.raises(PolicyError) as caught:
        _update(cluster, admin, approvals_required=value)
    assert caught.value.field == "approvals_required"
    assert not AuditEvent.objects.filter(action=POLICY_CHANGED).exists()


@pytest.mark.parametrize(
    ("window", "words"),
    [
        ("Monday to Friday", "is not a window"),
        ("Mon-Fri 09:00-09:00", "opens and closes at the same time"),
        ("Xyz 09:00-17:00", "is not a day"),
        ("daily 25:00-26:00", "is not a time of day"),
    ],
)
def test_the_change_window_is_checked_by_the_domain_parser(cluster, window, words):
    admin = _user(cluster, "ann", "admin")
    with pytest.raises(PolicyError) as caught:
        _update(cluster, admin, change_window=window)
    assert caught.value.field == "change_window"
    assert words in str(caught.value)
    cluster.refresh_from_db()
    assert cluster.change_window == ""


def test_saving_the_same_policy_logs_nothing(cluster):
    admin = _user(cluster, "ann", "admin")
    _update(cluster, admin, approvals_required=1, author_may_apply=False)
    assert not AuditEvent.objects.filter(action=POLICY_CHANGED).exists()


def test_the_audit_summary_names_only_what_changed(cluster):
    admin = _user(cluster, "ann", "admin")
    _update(
        cluster,
        admin,
        approvals_required=1,
        author_may_apply=False,
        change_window="daily 22:00-02:00",
    )
    event = AuditEvent.objects.get(action=POLICY_CHANGED)
    assert event.detail["changed"] == ["change_window"]
    assert event.summary == (
        "Approval policy of prod: change window daily 22:00-02:00 UTC"
    )
