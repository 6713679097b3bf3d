"""Granting and revoking roles from a cluster's settings page, over HTTP."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from webhooks_ui.models import AuditEvent, Cluster, ClusterMembership

SETTINGS = "/clusters/prod/settings/"
GRANT = "/clusters/prod/settings/memberships/"


def _revoke_url(membership: ClusterMembership) -> str:
    return f"/clusters/prod/settings/memberships/{membership.pk}/revoke/"


@pytest.fixture
def prod(db) -> Cluster:
    return Cluster.objects.create(
        name="prod", api_server_url="https://127.0.0.1:1", auth_method="token"
    )


@pytest.fixture
def other(db) -> Cluster:
    return Cluster.objects.create(
        name="other", api_server_url="https://127.0.0.1:1", auth_method="token"
    )


def _user(cluster: Cluster | None, name: str, *roles: str, **extra) -> User:
    user = User.objects.create_user(name, password="pw", **extra)
    for role in roles:
        ClusterMembership.objects.create(cluster=cluster, user=user, role=role)
    return user


def _client(user: User, **options) -> Client:
    client = Client(**options)
    client.force_login(user)
    return client


def _as(cluster: Cluster | None, name: str, *roles: str, **extra) -> Client:
    return _client(_user(cluster, name, *roles, **extra))


def _grant(client: Client, name: str, role: str = "viewer", kind: str = "user"):
    return client.post(GRANT, {"holder_kind": kind, "holder_name": name, "role": role})


def _memberships(text: str) -> str:
    return text.split('id="memberships"')[1].split("</table>")[0]


# --- granting -----------------------------------------------------------------------


def test_the_page_offers_the_grant_form_and_a_revoke_button_per_role(prod):
    client = _as(prod, "ann", "admin")
    bea = _user(prod, "bea", "viewer", "editor")
    text = client.get(SETTINGS).text
    form = text.split('id="grant-form"')[1].split("</form>")[0]
    assert f'action="{GRANT}"' in text
    assert 'name="csrfmiddlewaretoken"' in form
    assert 'name="holder_name"' in form and 'name="holder_kind"' in form
    for role in ("viewer", "editor", "approver", "operator", "admin"):
        assert f'<option value="{role}"' in form
    row = _memberships(text).split('data-holder="user:bea"')[1].split("</tr>")[0]
    for role in ("viewer", "editor"):
        held = ClusterMembership.objects.get(user=bea, role=role)
        assert f'action="{_revoke_url(held)}"' in row
        assert f"Revoke {role} from bea</button>" in row
    assert row.count('name="csrfmiddlewaretoken"') == 2
    # The rule that keeps an admin is spelt out before anyone hits it.
    assert "Only a superuser may remove the last admin" in text


def test_granting_a_user_a_role_takes_effect_and_is_audited(prod):
    admin = _as(prod, "ann", "admin")
    bea = _user(None, "bea")
    assert _client(bea).get("/clusters/prod/").status_code == 404
    response = _grant(admin, "bea", "viewer")
    assert response.status_code == 302 and response["Location"] == SETTINGS
    assert ClusterMembership.objects.filter(cluster=prod, user=bea).count() == 1
    assert _client(bea).get("/clusters/prod/").status_code == 200
    event = AuditEvent.objects.get(action="membership.granted")
    assert event.actor_name == "ann" and event.cluster_name == "prod"
    assert event.detail["holder"] == "bea" and event.detail["role"] == "viewer"
    text = admin.get(SETTINGS).text
    assert "bea (user) holds the viewer role." in text
    assert 'data-holder="user:bea"' in _memberships(text)


def test_granting_a_group_the_admin_role_lets_its_members_in(prod):
    admin = _as(prod, "ann", "admin")
    sre = Group.objects.create(name="sre")
    gus = _user(None, "gus")
    gus.groups.add(sre)
    assert _client(gus).get(SETTINGS).status_code == 404
    response = _grant(admin, "sre", "admin", kind="group")
    assert response.status_code == 302
    assert ClusterMembership.objects.filter(group=sre, role="admin").exists()
    assert _client(gus).get(SETTINGS).status_code == 200
    assert 'data-holder="group:sre"' in _memberships(admin.get(SETTINGS).text)


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("user", "There is no user named &#x27;ghost&#x27;."),
        ("group", "There is no group named &#x27;ghost&#x27;."),
    ],
)
def test_an_unknown_name_is_shown_under_the_field(prod, kind, words):
    response = _grant(_as(prod, "ann", "admin"), "ghost", "editor", kind=kind)
    assert response.status_code == 200
    text = response.text
    error = text.split('id="error_grant_name"')[1].split("</div>")[0]
    assert words in error
    field = text.split('name="holder_name"')[1].split(">")[0]
    assert 'value="ghost"' in field and "is-invalid" in field
    # What was chosen stays chosen; nothing was granted or logged.
    assert '<option value="editor" selected>' in text
    assert '<option value="' + kind + '" selected>' in text
    assert ClusterMembership.objects.filter(cluster=prod).count() == 1
    assert not AuditEvent.objects.filter(action="membership.granted").exists()


def test_a_missing_name_or_role_is_refused_by_the_form(prod):
    client = _as(prod, "ann", "admin")
    response = _grant(client, "", "viewer")
    assert response.status_code == 200 and 'id="error_grant_name"' in response.text
    response = _grant(client, "ann", "owner")
    assert response.status_code == 200 and 'id="error_grant_role"' in response.text
    assert ClusterMembership.objects.filter(cluster=prod).count() == 1


def test_granting_a_role_held_already_changes_nothing(prod):
    client = _as(prod, "ann", "admin")
    _user(prod, "bea", "viewer")
    assert _grant(client, "bea", "viewer").status_code == 302
    assert ClusterMembership.objects.filter(user__username="bea").count() == 1
    assert not AuditEvent.objects.filter(action="membership.granted").exists()


# --- revoking -----------------------------------------------------------------------


def test_revoking_a_role_takes_effect_and_is_audited(prod):
    admin = _as(prod, "ann", "admin")
    bea = _user(prod, "bea", "viewer")
    held = ClusterMembership.objects.get(user=bea)
    response = admin.post(_revoke_url(held))
    assert response.status_code == 302 and response["Location"] == SETTINGS
    assert not ClusterMembership.objects.filter(pk=held.pk).exists()
    assert _client(bea).get("/clusters/prod/").status_code == 404
    event = AuditEvent.objects.get(action="membership.revoked")
    assert event.actor_name == "ann" and event.detail["holder"] == "bea"
    text = admin.get(SETTINGS).text
    assert "Revoked the viewer role from user bea." in text
    assert 'data-holder="user:bea"' not in _memberships(text)


def test_the_last_admin_is_kept_and_the_page_says_why(prod):
    client = _as(prod, "ann", "admin")
    held = ClusterMembership.objects.get(user__username="ann")
    response = client.post(_revoke_url(held))
    assert response.status_code == 200
    error = response.text.split('id="revoke-error"')[1].split("</div>")[0]
    assert "This is the last admin of prod" in error
    assert ClusterMembership.objects.filter(pk=held.pk).exists()
    assert not AuditEvent.objects.filter(action="membership.revoked").exists()


def test_an_admin_who_leaves_is_sent_where_they_may_still_go(prod):
    _user(prod, "bob", "admin")
    ann = _user(prod, "ann", "admin", "viewer")
    client = _client(ann)
    held = ClusterMembership.objects.get(user=ann, role="admin")
    response = client.post(_revoke_url(held))
    assert response.status_code == 302 and response["Location"] == "/clusters/prod/"
    viewer = ClusterMembership.objects.get(user=ann, role="viewer")
    # bob's admin membership still stands, so the viewer role may go too: but
    # ann is no admin any more, so she cannot revoke it herself.
    assert client.post(_revoke_url(viewer)).status_code == 403


def test_a_superuser_may_remove_the_last_admin(prod):
    ann = _user(prod, "ann", "admin")
    root = _as(None, "root", is_superuser=True)
    held = ClusterMembership.objects.get(user=ann)
    assert root.post(_revoke_url(held)).status_code == 302
    assert not ClusterMembership.objects.filter(cluster=prod).exists()


def test_an_unknown_or_other_clusters_membership_is_a_404(prod, other):
    client = _as(prod, "ann", "admin")
    theirs = ClusterMembership.objects.create(
        cluster=other, user=_user(None, "olga"), role="viewer"
    )
    assert client.post(_revoke_url(theirs)).status_code == 404
    assert client.post(GRANT + "999999/revoke/").status_code == 404
    # Longer than any row id: no such route, never a 500.
    assert client.post(GRANT + ("9" * 30) + "/revoke/").status_code == 404
    assert ClusterMembership.objects.filter(pk=theirs.pk).exists()


# --- who may ------------------------------------------------------------------------


def test_anonymous_is_sent_to_sign_in(prod):
    bea = _user(prod, "bea", "viewer")
    held = ClusterMembership.objects.get(user=bea)
    for response in (
        _grant(Client(), "bea", "admin"),
        Client().post(_revoke_url(held)),
    ):
        assert response.status_code == 302
        assert response["Location"].startswith("/login/?next=")
    assert ClusterMembership.objects.filter(cluster=prod).count() == 1


@pytest.mark.parametrize("role", ["viewer", "editor", "approver", "operator"])
def test_any_other_role_is_a_403(prod, role):
    client = _as(prod, "pat", role)
    _user(prod, "ann", "admin")
    held = ClusterMembership.objects.get(user__username="ann")
    assert _grant(client, "pat", "admin").status_code == 403
    assert client.post(_revoke_url(held)).status_code == 403
    assert not ClusterMembership.objects.filter(user__username="pat", role="admin")
    assert ClusterMembership.objects.filter(pk=held.pk).exists()
    assert not AuditEvent.objects.filter(action__startswith="membership.").exists()


def test_an_admin_elsewhere_cannot_tell_the_cluster_exists(prod, other):
    client = _as(other, "olga", "admin")
    held = ClusterMembership.objects.create(
        cluster=prod, user=_user(None, "bea"), role="viewer"
    )
    assert _grant(client, "olga", "admin").status_code == 404
    assert client.post(_revoke_url(held)).status_code == 404
    assert not ClusterMembership.objects.filter(cluster=prod, user__username="olga")


def test_only_post(prod):
    client = _as(prod, "ann", "admin")
    held = ClusterMembership.objects.get(user__username="ann")
    assert client.get(GRANT).status_code == 405
    assert client.get(_revoke_url(held)).status_code == 405


def test_csrf_is_enforced(prod):
    ann = _user(prod, "ann", "admin")
    bea = _user(prod, "bea", "viewer")
    held = ClusterMembership.objects.get(user=bea)
    client = _client(ann, enforce_csrf_checks=True)
    data = {"holder_kind": "user", "holder_name": "bea", "role": "admin"}
    assert client.post(GRANT, data).status_code == 403
    assert client.post(_revoke_url(held)).status_code == 403
    assert ClusterMembership.objects.filter(user=bea).count() == 1
    # With the token the page hands out, both go through.
    page = client.get(SETTINGS).text
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
    assert client.post(GRANT, {**data, "csrfmiddlewaretoken": token}).status_code == (
        302
    )
    response = client.post(_revoke_url(held), {"csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert list(ClusterMembership.objects.filter(user=bea).values_list("role")) == [
        ("admin",)
    ]


# --- escaping -----------------------------------------------------------------------


def test_names_are_escaped(prod):
    client = _as(prod, "ann", "admin")
    evil = '<script>alert("x")</script>'
    group = Group.objects.create(name=evil)
    ClusterMembership.objects.create(cluster=prod, group=group, role="viewer")
    text = client.get(SETTINGS).text
    assert "<script>alert" not in text
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in _memberships(text)
    response = _grant(client, "<b>ghost</b>", kind="user")
    assert "<b>ghost</b>" not in response.text
    assert "&lt;b&gt;ghost&lt;/b&gt;" in response.text
