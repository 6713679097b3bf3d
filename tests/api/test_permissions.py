"""Who may do what through the API: the UI's rules, in the API's error shape."""

from __future__ import annotations

import pytest

from tests.api.conftest import error_of

READS = [
    "/api/v1/clusters/alpha/",
    "/api/v1/clusters/alpha/sync/status/",
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
