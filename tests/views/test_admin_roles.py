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
