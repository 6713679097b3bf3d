"""Roles are managed in the admin; a role belongs to a user or a group, not both."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.db import IntegrityError, transaction

from tests import factories
from webhooks_ui.models import ClusterMembership


def test_the_cluster_admin_page_manages_roles_without_showing_credentials(
    admin_client, db
):
    cluster = factories.token_cluster("roles")
    html = admin_client.get(
        f"/admin/webhooks_ui/cluster/{cluster.pk}/change/"
    ).content.decode()
    assert "memberships-TOTAL_FORMS" in html  # the roles inline is on the page
    assert factories.SECRET_TOKEN not in html
    assert "stored, encrypted" in html


def test_a_role_is_held_by_a_user_or_a_group_never_both(admin_user, db):
    cluster = factories.token_cluster("xor")
    group = Group.objects.create(name="sre")
    with pytest.raises(IntegrityError), transaction.atomic():
        ClusterMembership.objects.create(
            cluster=cluster, user=admin_user, group=group, role="viewer"
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        ClusterMembership.objects.create(cluster=cluster, role="viewer")
    ClusterMembership.objects.create(cluster=cluster, group=group, role="viewer")


def test_policy_and_role_changes_made_in_the_admin_are_audited(admin_client, db):
    from django.contrib.auth.models import User

    from webhooks_ui.models import AuditEvent

    cluster = factories.token_cluster("audited")
    bob = User.objects.create_user("bob")
    old = ClusterMembership.objects.create(cluster=cluster, user=bob, role="viewer")
    url = f"/admin/webhooks_ui/cluster/{cluster.pk}/change/"
    data = {
        "name": cluster.name,
        "display_name": "",
        "environment": "test",
        "approvals_required": "2",
        "change_window": "Mon-Fri 09:00-17:00",
        "memberships-TOTAL_FORMS": "2",
        "memberships-INITIAL_FORMS": "1",
        "memberships-MIN_NUM_FORMS": "0",
        "memberships-MAX_NUM_FORMS": "1000",
        "memberships-0-id": str(old.pk),
        "memberships-0-cluster": str(cluster.pk),
        "memberships-0-user": str(bob.pk),
        "memberships-0-role": "viewer",
        "memberships-0-DELETE": "on",
        "memberships-1-cluster": str(cluster.pk),
        "memberships-1-user": str(bob.pk),
        "memberships-1-role": "approver",
    }
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    events = {e.action: e for e in AuditEvent.objects.filter(cluster_id=cluster.pk)}
    assert events["cluster.policy_changed"].detail["after"]["approvals_required"] == 2
    assert "approver" in events["membership.granted"].summary
    assert "viewer" in events["membership.revoked"].summary
    assert all(e.actor_name == "root" for e in events.values())
