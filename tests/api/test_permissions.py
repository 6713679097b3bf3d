"""Who may do what through the API: the UI's rules, in the API's error shape."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from tests.api.conftest import error_of
from webhooks_ui.domain.kinds import VALIDATING
from webhooks_ui.models import ChangeRequest, ClusterMembership
from webhooks_ui.services.change_open import change_open
from webhooks_ui.services.changes import change_review
from webhooks_ui.services.tokens import api_token_create

READS = [
    "/api/v1/clusters/alpha/",
    "/api/v1/clusters/alpha/sync/status/",
    "/api/v1/clusters/alpha/policy/",
    "/api/v1/clusters/alpha/validating/drifting/",
    "/api/v1/clusters/alpha/validating/drifting/history/",
    "/api/v1/clusters/alpha/validating/drifting/history/diff/",
    "/api/v1/clusters/alpha/validating/drifting/coverage/",
    "/api/v1/clusters/alpha/validating/drifting/findings/",
    "/api/v1/compare/validating/drifting/",
    "/api/v1/coverage/?cluster=alpha&resource=v1/pods&operation=CREATE&namespace=x",
]
LISTS = [
    "/api/v1/clusters/",
    "/api/v1/configurations/",
    "/api/v1/findings/",
    "/api/v1/tokens/",
]
SYNC = "/api/v1/clusters/alpha/sync/"
TEST_CONNECTION = "/api/v1/clusters/alpha/test-connection/"


@pytest.mark.parametrize("url", READS + LISTS)
def test_anonymous_is_401_with_a_bearer_challenge(api, clusters, url):
    response = api.get(url)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Bearer"
    assert error_of(response)["code"] == "not_authenticated"


@pytest.mark.parametrize("url", [SYNC, TEST_CONNECTION, "/api/v1/validate/"])
def test_anonymous_writes_are_401(api, clusters, url):
    assert api.post(url).status_code == 401


@pytest.mark.parametrize("url", READS)
def test_no_role_is_404_never_403(as_user, nobody, url):
    response = as_user(nobody).get(url)
    assert response.status_code == 404
    assert error_of(response)["code"] == "not_found"


@pytest.mark.parametrize("url", [SYNC, TEST_CONNECTION])
def test_no_role_cannot_act_or_learn_the_cluster_exists(as_user, nobody, url):
    unknown = as_user(nobody).post(url.replace("alpha", "no-such-cluster"))
    hidden = as_user(nobody).post(url)
    assert hidden.status_code == unknown.status_code == 404
    assert error_of(hidden) == error_of(unknown)


def test_no_role_lists_are_empty(as_user, nobody, clusters):
    api = as_user(nobody)
    for url in LISTS:
        response = api.get(url)
        assert response.status_code == 200, url
        assert response.json()["count"] == (0 if url != "/api/v1/tokens/" else 1)


@pytest.mark.parametrize("url", READS)
def test_viewer_reads(as_user, role_user, url):
    assert as_user(role_user("viewer")).get(url).status_code == 200


@pytest.mark.parametrize("url", [SYNC, TEST_CONNECTION])
def test_viewer_is_403_on_actions(as_user, role_user, url):
    response = as_user(role_user("viewer")).post(url)
    assert response.status_code == 403
    error = error_of(response)
    assert error["code"] == "permission_denied"
    assert "role" in error["message"]


def test_viewer_sees_only_their_cluster(as_user, role_user):
    api = as_user(role_user("viewer"))
    names = [c["name"] for c in api.get("/api/v1/clusters/").json()["results"]]
    assert names == ["alpha"]
    assert api.get("/api/v1/clusters/beta/").status_code == 404
    clusters = {
        c["cluster"] for c in api.get("/api/v1/configurations/").json()["results"]
    }
    assert clusters == {"alpha"}


@pytest.mark.parametrize("via_group", [False, True])
def test_operator_can_sync(
    as_user, role_user, via_group, django_capture_on_commit_callbacks
):
    api = as_user(role_user("operator", via_group=via_group))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = api.post(SYNC)
    assert response.status_code == 202
    assert response.json()["status_url"] == "/api/v1/clusters/alpha/sync/status/"
    assert response["Location"] == "/api/v1/clusters/alpha/sync/status/"
    assert len(callbacks) == 1  # enqueued after commit, as from the UI
    assert api.post(TEST_CONNECTION).status_code == 403


def test_admin_role_can_test_the_connection(as_user, role_user):
    response = as_user(role_user("admin")).post(TEST_CONNECTION)
    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is True and body["server_version"]
    assert all(body["can_list"].values())


def test_editor_role_is_needed_for_a_dry_run(as_user, role_user):
    api = as_user(role_user("viewer"))
    response = api.post(
        "/api/v1/validate/?cluster=alpha",
        "kind: x",
        content_type="application/yaml",
    )
    assert response.status_code == 403


def test_session_authentication_works_for_browsers(api, admin_user, clusters):
    api.force_login(admin_user)
    assert api.get("/api/v1/clusters/").status_code == 200


# --- change requests and the audit log: the whole matrix ------------------------

ROWS = [
    "anonymous",
    "nobody",
    "viewer",
    "editor",  # an editor who did not write the change
    "author",  # the editor who wrote it
    "approver",
    "operator",
    "admin",  # the admin role on alpha (it implies no other role)
    "superuser",
]
_CHANGE = "/api/v1/changes/{id}/"
_RESTORE = "/api/v1/clusters/alpha/validating/only-alpha/history/1/restore/"
_BODY = {"body": "a reason"}
_CREATE = {
    "cluster": "alpha",
    "action": "update",
    "kind": "validating",
    "name": "only-alpha",
    "patch": {"metadata": {"labels": {"team": "a"}}},
}
# endpoint: (method, url, state of the change it acts on, body, statuses by row)
CHANGE_MATRIX = {
    "list": ("get", "/api/v1/changes/", None, None,
             [401, 200, 200, 200, 200, 200, 200, 200, 200]),
    "detail": ("get", _CHANGE, "in_review", None,
               [401, 404, 200, 200, 200, 200, 200, 200, 200]),
    "create": ("post", "/api/v1/changes/", None, _CREATE,
               [401, 404, 403, 201, 201, 403, 403, 403, 201]),
    "edit": ("patch", _CHANGE, "in_review", {"title": "New title"},
             [401, 404, 403, 403, 200, 403, 403, 403, 403]),
    # A draft is its author's alone: even a superuser does not see it.
    "propose": ("post", _CHANGE + "propose/", "draft", None,
                [401, 404, 404, 404, 200, 404, 404, 404, 404]),
    "dry-run": ("post", _CHANGE + "dry-run/", "draft", None,
                [401, 404, 404, 404, 200, 404, 404, 404, 404]),
    # The author never approves (not even holding the approver role).
    "approve": ("post", _CHANGE + "approve/", "in_review", None,
                [401, 404, 403, 403, 403, 200, 403, 403, 200]),
    "request-changes": ("post", _CHANGE + "request-changes/", "in_review", _BODY,
                        [401, 404, 403, 403, 403, 200, 403, 403, 200]),
    "reject": ("post", _CHANGE + "reject/", "in_review", _BODY,
               [401, 404, 403, 403, 403, 200, 403, 403, 200]),
    "comment": ("post", _CHANGE + "comment/", "in_review", _BODY,
                [401, 404, 200, 200, 200, 200, 200, 200, 200]),
    "reopen": ("post", _CHANGE + "reopen/", "in_review", None,
               [401, 404, 403, 403, 200, 403, 403, 403, 403]),
    "withdraw": ("post", _CHANGE + "withdraw/", "in_review", None,
                 [401, 404, 403, 403, 200, 403, 403, 403, 403]),
    # Only a stale change rebases: the author passes the permission check (409).
    "rebase": ("post", _CHANGE + "rebase/", "in_review", None,
               [401, 404, 403, 403, 409, 403, 403, 403, 403]),
    "apply": ("post", _CHANGE + "apply/", "approved", None,
              [401, 404, 403, 403, 403, 403, 200, 403, 200]),
    # Role holders on alpha cannot see beta: to them it does not exist (400).
    "promote": ("post", _CHANGE + "promote/", "in_review", {"clusters": ["beta"]},
                [401, 404, 400, 400, 400, 400, 400, 400, 200]),
    "restore": ("post", _RESTORE, None, None,
                [401, 404, 403, 201, 201, 403, 403, 403, 201]),
    "audit": ("get", "/api/v1/audit/", None, None,
              [401, 200, 200, 200, 200, 200, 200, 200, 200]),
    "audit-export": ("get", "/api/v1/audit/export/?format=json", None, None,
                     [401, 200, 200, 200, 200, 200, 200, 200, 200]),
}  # fmt: skip


@pytest.fixture
def matrix_people(clusters, role_user, nobody, admin_user):
    alpha = clusters[0]
    author = role_user("editor", via_group=False)
    author.username = "author"
    author.save()
    helper = User.objects.create_user("helper-approver")
    ClusterMembership.objects.create(cluster=alpha, user=helper, role="approver")
    people = {
        "anonymous": None,
        "nobody": nobody,
        "author": author,
        "superuser": admin_user,
        "helper": helper,
    }
    for role in ["viewer", "editor", "approver", "operator", "admin"]:
        people[role] = role_user(role, via_group=role == "editor")
    return people


def _change_in(state: str, people: dict, clusters, number: int) -> ChangeRequest:
    opened = change_open(
        user=people["author"],
        cluster=clusters[0],
        action="update",
        kind=VALIDATING,
        name="only-alpha",
        patch={"metadata": {"labels": {"round": f"r{number}"}}},
        propose=state != "draft",
    )
    change = opened.change
    assert change.state == ("draft" if state == "draft" else "in_review"), opened
    if state == "approved":
        change_review(change=change, user=people["helper"], verdict="approve")
    return change


@pytest.mark.parametrize("endpoint", list(CHANGE_MATRIX))
def test_change_and_audit_permission_matrix(
    api, matrix_people, clusters, endpoint, django_capture_on_commit_callbacks
):
    method, url, state, body, expected = CHANGE_MATRIX[endpoint]
    got = []
    for number, row in enumerate(ROWS):
        user = matrix_people[row]
        client = APIClient()
        if user is not None:
            secret = api_token_create(user=user, name="matrix").secret
            client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
        change = _change_in(state, matrix_people, clusters, number) if state else None
        target = url.format(id=change.pk) if change else url
        with django_capture_on_commit_callbacks(execute=False):
            response = getattr(client, method)(target, body, format="json")
        if response.status_code >= 400:
            error_of(response)  # the one error shape, always
        got.append(response.status_code)
    assert dict(zip(ROWS, got, strict=True)) == dict(zip(ROWS, expected, strict=True))


# --- cluster administration: the policy and memberships ---------------------------

_POLICY = "/api/v1/clusters/alpha/policy/"
_MEMBERSHIPS = "/api/v1/clusters/alpha/memberships/"
_NEW_POLICY = {"approvals_required": 2, "author_may_apply": False, "change_window": ""}
# endpoint: (method, url, body, statuses by row); {membership} is a fresh viewer
# membership of alpha per row, {target} a fresh user without a role.
CLUSTER_ADMIN_MATRIX = {
    "policy": ("get", _POLICY, None,
               [401, 404, 200, 200, 200, 200, 200, 200, 200]),
    "policy-put": ("put", _POLICY, _NEW_POLICY,
                   [401, 404, 403, 403, 403, 403, 403, 200, 200]),
    "policy-patch": ("patch", _POLICY, {"author_may_apply": True},
                     [401, 404, 403, 403, 403, 403, 403, 200, 200]),
    "memberships": ("get", _MEMBERSHIPS, None,
                    [401, 404, 403, 403, 403, 403, 403, 200, 200]),
    "grant": ("post", _MEMBERSHIPS, {"role": "viewer", "user": "{target}"},
              [401, 404, 403, 403, 403, 403, 403, 201, 201]),
    "revoke": ("delete", _MEMBERSHIPS + "{membership}/", None,
               [401, 404, 403, 403, 403, 403, 403, 204, 204]),
}  # fmt: skip


@pytest.mark.parametrize("endpoint", list(CLUSTER_ADMIN_MATRIX))
def test_cluster_admin_permission_matrix(matrix_people, clusters, endpoint):
    method, url, body, expected = CLUSTER_ADMIN_MATRIX[endpoint]
    got = []
    for number, row in enumerate(ROWS):
        user = matrix_people[row]
        client = APIClient()
        if user is not None:
            secret = api_token_create(user=user, name="matrix").secret
            client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
        target = User.objects.create_user(f"target-{number}")
        held = ClusterMembership.objects.create(
            cluster=clusters[0], user=target, role="viewer"
        )
        sent = body
        if body and body.get("user") == "{target}":
            held.delete()
            sent = {**body, "user": target.username}
        response = getattr(client, method)(
            url.format(membership=held.pk), sent, format="json"
        )
        if response.status_code >= 400:
            error_of(response)  # the one error shape, always
        got.append(response.status_code)
    assert dict(zip(ROWS, got, strict=True)) == dict(zip(ROWS, expected, strict=True))
