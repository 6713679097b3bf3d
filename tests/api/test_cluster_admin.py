"""A cluster's approval policy and memberships through the API: the settings
page's services, rules and audit events, in the API's shapes and statuses."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User
from rest_framework.test import APIClient

from tests.api.conftest import error_of
from webhooks_ui.models import AuditEvent, Cluster, ClusterMembership
from webhooks_ui.services.memberships import MEMBERSHIP_GRANTED, MEMBERSHIP_REVOKED
from webhooks_ui.services.policy import POLICY_CHANGED
from webhooks_ui.services.tokens import api_token_revoke

POLICY = "/api/v1/clusters/alpha/policy/"
MEMBERSHIPS = "/api/v1/clusters/alpha/memberships/"
GOOD_POLICY = {
    "approvals_required": 2,
    "author_may_apply": True,
    "change_window": "Mon-Fri 09:00-17:00 Europe/Berlin",
}


def _membership_url(membership_id: int, cluster: str = "alpha") -> str:
    return f"/api/v1/clusters/{cluster}/memberships/{membership_id}/"


def _events(action: str) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(action=action).order_by("pk"))


def _alpha() -> Cluster:
    return Cluster.objects.get(name="alpha")


@pytest.fixture
def admin_role(role_user) -> User:
    """A user holding the admin role on alpha (and no superuser)."""
    return role_user("admin")


@pytest.fixture
def alpha_admin(as_user, admin_role) -> APIClient:
    return as_user(admin_role)


# --- the approval policy ----------------------------------------------------------


@pytest.mark.parametrize("role", ["viewer", "editor", "approver", "operator", "admin"])
def test_any_role_reads_the_policy(as_user, role_user, role):
    response = as_user(role_user(role)).get(POLICY)
    assert response.status_code == 200
    assert response.json() == {
        "approvals_required": 1,
        "author_may_apply": False,
        "change_window": "",
    }


def test_an_admin_replaces_the_policy_and_it_is_audited(alpha_admin, admin_role):
    response = alpha_admin.put(POLICY, GOOD_POLICY, format="json")
    assert response.status_code == 200
    assert response.json() == GOOD_POLICY
    alpha = _alpha()
    assert (alpha.approvals_required, alpha.author_may_apply, alpha.change_window) == (
        2,
        True,
        "Mon-Fri 09:00-17:00 Europe/Berlin",
    )
    [event] = _events(POLICY_CHANGED)
    assert event.actor == admin_role and event.actor_name == "admin"
    assert event.cluster_name == "alpha"
    assert event.detail["after"] == GOOD_POLICY
    assert alpha_admin.get(POLICY).json() == GOOD_POLICY


def test_patch_changes_only_what_it_names(alpha_admin):
    alpha_admin.put(POLICY, GOOD_POLICY, format="json")
    response = alpha_admin.patch(POLICY, {"author_may_apply": False}, format="json")
    assert response.status_code == 200
    assert response.json() == {**GOOD_POLICY, "author_may_apply": False}
    assert _events(POLICY_CHANGED)[-1].detail["changed"] == ["author_may_apply"]


def test_saving_the_same_policy_logs_nothing(alpha_admin):
    alpha_admin.put(POLICY, GOOD_POLICY, format="json")
    assert alpha_admin.put(POLICY, GOOD_POLICY, format="json").status_code == 200
    assert alpha_admin.patch(POLICY, {}, format="json").status_code == 200
    assert len(_events(POLICY_CHANGED)) == 1


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"approvals_required": 0}, "approvals_required", "from 1 to 10"),
        ({"approvals_required": 11}, "approvals_required", "from 1 to 10"),
        ({"approvals_required": "two"}, "approvals_required", "valid integer"),
        ({"author_may_apply": "perhaps"}, "author_may_apply", "valid boolean"),
        ({"change_window": "weekdays 9-5"}, "change_window", "is not a window"),
        (
            {"change_window": "Mon-Fri 09:00-17:00 Europe/Berln"},
            "change_window",
            "is not a time zone",
        ),
        ({"change_window": "x" * 201}, "change_window", "200 characters"),
    ],
)
def test_an_invalid_policy_is_a_400_on_the_field(alpha_admin, body, field, words):
    response = alpha_admin.patch(POLICY, body, format="json")
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "invalid"
    assert list(error["details"]) == [field]
    assert words in error["details"][field][0]
    assert error["message"].startswith(f"{field}: ")
    assert _alpha().approvals_required == 1
    assert not _events(POLICY_CHANGED)


def test_put_needs_every_field(alpha_admin):
    response = alpha_admin.put(POLICY, {"approvals_required": 2}, format="json")
    assert response.status_code == 400
    details = error_of(response)["details"]
    assert set(details) == {"author_may_apply", "change_window"}
    assert _alpha().approvals_required == 1


@pytest.mark.parametrize("role", ["viewer", "editor", "approver", "operator"])
@pytest.mark.parametrize("method", ["put", "patch"])
def test_only_an_admin_changes_the_policy(as_user, role_user, role, method):
    response = getattr(as_user(role_user(role)), method)(
        POLICY, GOOD_POLICY, format="json"
    )
    assert response.status_code == 403
    error = error_of(response)
    assert error["code"] == "permission_denied" and "role" in error["message"]
    assert _alpha().approvals_required == 1


def test_a_cluster_you_cannot_see_is_a_404(as_user, nobody, alpha_admin):
    hidden = as_user(nobody).get(POLICY)
    unknown = as_user(nobody).get("/api/v1/clusters/no-such/policy/")
    assert hidden.status_code == unknown.status_code == 404
    assert error_of(hidden) == error_of(unknown)
    # An admin of alpha holds no role on beta.
    beta = "/api/v1/clusters/beta/policy/"
    assert alpha_admin.patch(beta, GOOD_POLICY, format="json").status_code == 404


def test_a_superuser_changes_any_clusters_policy(admin_api):
    response = admin_api.patch(
        "/api/v1/clusters/beta/policy/", {"approvals_required": 3}, format="json"
    )
    assert response.status_code == 200
    assert Cluster.objects.get(name="beta").approvals_required == 3


# --- memberships ------------------------------------------------------------------


def test_an_admin_lists_the_memberships(alpha_admin, admin_role, role_user):
    role_user("approver", via_group=True)
    response = alpha_admin.get(MEMBERSHIPS)
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 2
    held = {(m["role"], m["user"], m["group"]) for m in body["results"]}
    assert held == {("admin", "admin", None), ("approver", None, "approver-team")}
    ids = {m["id"] for m in body["results"]}
    assert ids == set(_alpha().memberships.values_list("pk", flat=True))


def test_memberships_are_paginated(alpha_admin):
    group_names = [f"team-{n}" for n in range(3)]
    for name in group_names:
        group = Group.objects.create(name=name)
        ClusterMembership.objects.create(cluster=_alpha(), group=group, role="viewer")
    first = alpha_admin.get(MEMBERSHIPS + "?page_size=2").json()
    assert first["count"] == 4 and len(first["results"]) == 2 and first["next"]
    second = alpha_admin.get(first["next"]).json()
    assert len(second["results"]) == 2 and second["next"] is None


def test_the_membership_list_query_count_is_flat(
    alpha_admin, django_assert_max_num_queries
):
    for n in range(10):
        user = User.objects.create_user(f"u{n}")
        group = Group.objects.create(name=f"g{n}")
        ClusterMembership.objects.create(cluster=_alpha(), user=user, role="viewer")
        ClusterMembership.objects.create(cluster=_alpha(), group=group, role="editor")
    # token, cluster and role lookups, count, one page with users and groups
    with django_assert_max_num_queries(10):
        response = alpha_admin.get(MEMBERSHIPS)
    assert response.json()["count"] == 21


def test_an_admin_grants_a_role_to_a_user_and_it_is_audited(alpha_admin, admin_role):
    bea = User.objects.create_user("bea")
    response = alpha_admin.post(
        MEMBERSHIPS, {"role": "approver", "user": "bea"}, format="json"
    )
    assert response.status_code == 201
    body = response.json()
    membership = ClusterMembership.objects.get(pk=body["id"])
    assert (membership.cluster, membership.user, membership.role) == (
        _alpha(),
        bea,
        "approver",
    )
    assert body == {
        "id": membership.pk,
        "role": "approver",
        "user": "bea",
        "group": None,
    }
    [event] = _events(MEMBERSHIP_GRANTED)
    assert event.actor == admin_role and event.actor_name == "admin"
    assert event.detail["membership"] == membership.pk


def test_granting_a_role_held_already_is_a_200_and_logs_nothing(alpha_admin):
    Group.objects.create(name="sre")
    grant = {"role": "operator", "group": "sre"}
    created = alpha_admin.post(MEMBERSHIPS, grant, format="json")
    again = alpha_admin.post(MEMBERSHIPS, grant, format="json")
    assert (created.status_code, again.status_code) == (201, 200)
    assert created.json() == again.json()
    assert created.json()["group"] == "sre" and created.json()["user"] is None
    assert len(_events(MEMBERSHIP_GRANTED)) == 1


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"role": "viewer", "user": "ghost"}, "user", "no user named 'ghost'"),
        ({"role": "viewer", "group": "ghosts"}, "group", "no group named 'ghosts'"),
        ({"role": "owner", "user": "nobody"}, "role", "not a valid choice"),
        ({"user": "nobody"}, "role", "required"),
        ({"role": "viewer"}, "non_field_errors", "either a user or a group"),
        (
            {"role": "viewer", "user": "nobody", "group": "ghosts"},
            "non_field_errors",
            "either a user or a group",
        ),
        ({"role": "viewer", "user": "  "}, "user", "may not be blank"),
    ],
)
def test_a_grant_that_cannot_be_done_is_a_400_on_the_field(
    alpha_admin, nobody, body, field, words
):
    response = alpha_admin.post(MEMBERSHIPS, body, format="json")
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "invalid"
    assert list(error["details"]) == [field]
    assert words in error["details"][field][0]
    assert not _events(MEMBERSHIP_GRANTED)
    assert not ClusterMembership.objects.filter(user=nobody).exists()


def test_an_admin_revokes_a_membership_and_it_is_audited(
    alpha_admin, admin_role, role_user
):
    viewer = role_user("viewer")
    held = ClusterMembership.objects.get(user=viewer)
    response = alpha_admin.delete(_membership_url(held.pk))
    assert response.status_code == 204
    assert not response.content
    assert not ClusterMembership.objects.filter(pk=held.pk).exists()
    [event] = _events(MEMBERSHIP_REVOKED)
    assert event.actor == admin_role and event.cluster_name == "alpha"
    assert event.detail == {
        "membership": held.pk,
        "role": "viewer",
        "kind": "user",
        "holder": "viewer",
    }
    # Gone: a second revoke finds nothing.
    again = alpha_admin.delete(_membership_url(held.pk))
    assert again.status_code == 404
    assert error_of(again)["code"] == "not_found"


def test_another_clusters_membership_is_a_404(alpha_admin, clusters, nobody):
    beta_held = ClusterMembership.objects.create(
        cluster=clusters[1], user=nobody, role="viewer"
    )
    response = alpha_admin.delete(_membership_url(beta_held.pk))
    assert response.status_code == 404
    assert ClusterMembership.objects.filter(pk=beta_held.pk).exists()
    assert alpha_admin.delete(_membership_url(10**17)).status_code == 404


def test_the_last_admin_cannot_revoke_themselves(alpha_admin, admin_role):
    held = ClusterMembership.objects.get(user=admin_role)
    response = alpha_admin.delete(_membership_url(held.pk))
    assert response.status_code == 409
    error = error_of(response)
    assert error["code"] == "last_admin"
    assert "last admin of alpha" in error["message"]
    assert "grant the admin role to another user first" in error["message"]
    assert ClusterMembership.objects.filter(pk=held.pk).exists()
    assert not _events(MEMBERSHIP_REVOKED)


def test_an_admin_may_leave_once_another_admin_exists(alpha_admin, admin_role):
    User.objects.create_user("second")
    grant = {"role": "admin", "user": "second"}
    assert alpha_admin.post(MEMBERSHIPS, grant, format="json").status_code == 201
    held = ClusterMembership.objects.get(user=admin_role)
    assert alpha_admin.delete(_membership_url(held.pk)).status_code == 204
    # No longer an admin: the memberships are now out of reach.
    assert alpha_admin.get(MEMBERSHIPS).status_code == 404


def test_a_superuser_may_remove_the_last_admin(admin_api, admin_role):
    held = ClusterMembership.objects.get(user=admin_role)
    assert admin_api.delete(_membership_url(held.pk)).status_code == 204


@pytest.mark.parametrize("role", ["viewer", "editor", "approver", "operator"])
def test_memberships_need_the_admin_role(as_user, role_user, role):
    api = as_user(role_user(role))
    held = ClusterMembership.objects.get(user__username=role)
    responses = [
        api.get(MEMBERSHIPS),
        api.post(MEMBERSHIPS, {"role": "admin", "user": role}, format="json"),
        api.delete(_membership_url(held.pk)),
    ]
    for response in responses:
        assert response.status_code == 403
        assert error_of(response)["code"] == "permission_denied"
    assert list(_alpha().memberships.values_list("role", flat=True)) == [role]


def test_no_role_cannot_learn_the_cluster_or_its_memberships(as_user, nobody):
    api = as_user(nobody)
    grant = {"role": "admin", "user": "nobody"}
    for cluster in ["alpha", "no-such"]:
        url = f"/api/v1/clusters/{cluster}/memberships/"
        assert api.get(url).status_code == 404
        assert api.post(url, grant, format="json").status_code == 404
        assert api.delete(_membership_url(1, cluster)).status_code == 404
    assert not ClusterMembership.objects.filter(user=nobody).exists()


# --- authentication ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("get", POLICY),
        ("put", POLICY),
        ("patch", POLICY),
        ("get", MEMBERSHIPS),
        ("post", MEMBERSHIPS),
        ("delete", _membership_url(1)),
    ],
)
def test_anonymous_is_401(api, clusters, method, url):
    response = getattr(api, method)(url, {}, format="json")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Bearer"
    assert error_of(response)["code"] == "not_authenticated"


def test_a_bearer_token_works_and_a_revoked_one_does_not(api, as_user, admin_role):
    client = as_user(admin_role)  # Bearer <secret>
    assert (
        client.patch(POLICY, {"approvals_required": 2}, format="json").status_code
        == 200
    )
    assert client.get(MEMBERSHIPS).status_code == 200
    for token in admin_role.api_tokens.all():
        api_token_revoke(user=admin_role, token_id=token.pk)
    assert client.get(POLICY).status_code == 401


def test_a_browser_session_works_too(api, admin_role, clusters):
    api.force_login(admin_role)
    assert api.get(MEMBERSHIPS).status_code == 200
    response = api.patch(POLICY, {"approvals_required": 4}, format="json")
    assert response.status_code == 200
    assert _alpha().approvals_required == 4
