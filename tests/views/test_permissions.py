"""Who may see what: every review page requires sign-in and a role on the cluster."""

from __future__ import annotations

import pytest

from tests import factories

ALPHA_PAGES = [
    "/clusters/alpha/",
    "/clusters/alpha/sync/status/",
    "/clusters/alpha/validating/drifting/",
    "/clusters/alpha/validating/drifting/yaml/",
    "/clusters/alpha/validating/drifting/yaml/?download=1",
    "/clusters/alpha/validating/drifting/history/",
    "/compare/validating/drifting/",
]


@pytest.mark.parametrize("url", ["/", *ALPHA_PAGES])
def test_anonymous_visitors_are_sent_to_sign_in(client, clusters, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=")


@pytest.mark.parametrize("url", ALPHA_PAGES)
def test_a_user_without_a_role_cannot_tell_the_cluster_exists(client, nobody, url):
    client.force_login(nobody)
    assert client.get(url).status_code == 404


def test_a_user_without_a_role_sees_no_clusters_on_the_overview(
    client, nobody, clusters
):
    client.force_login(nobody)
    response = client.get("/")
    assert response.status_code == 200
    assert b"alpha" not in response.content and b"drifting" not in response.content
    assert b"No clusters you can see yet" in response.content


@pytest.mark.parametrize("via_group", [False, True])
@pytest.mark.parametrize("url", ALPHA_PAGES)
def test_any_role_on_a_cluster_grants_reading_it(client, role_user, url, via_group):
    client.force_login(role_user("viewer", via_group=via_group))
    assert client.get(url).status_code == 200


def test_a_viewer_of_one_cluster_sees_only_that_cluster(client, role_user):
    client.force_login(role_user("viewer"))
    overview = client.get("/").content.decode()
    assert 'data-cluster="alpha"' in overview
    assert 'data-cluster="beta"' not in overview
    assert client.get("/clusters/beta/").status_code == 404
    assert client.get("/clusters/beta/validating/drifting/").status_code == 404
    # Comparing needs two visible copies: beta's stays hidden.
    compare = client.get("/compare/validating/drifting/").content.decode()
    assert "nothing to compare it with" in compare
    assert "beta" not in compare


def test_only_an_operator_may_start_a_sync(client, role_user):
    client.force_login(role_user("viewer"))
    assert client.post("/clusters/alpha/sync/").status_code == 403
    assert b"Sync now" not in client.get("/clusters/alpha/").content


def test_sync_is_refused_without_a_csrf_token(role_user, clusters):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(role_user("operator"))
    assert strict.post("/clusters/alpha/sync/").status_code == 403


def test_sync_is_post_only(client, role_user):
    client.force_login(role_user("operator"))
    assert client.get("/clusters/alpha/sync/").status_code == 405


def test_pages_carry_a_strict_content_security_policy(admin_client, clusters):
    response = admin_client.get("/clusters/alpha/validating/drifting/")
    policy = response["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    # Nothing inline that such a policy would block.
    assert "<script>" not in response.content.decode()
    assert " onclick=" not in response.content.decode()


def test_only_a_cluster_admin_may_test_the_connection(client, role_user):
    client.force_login(role_user("operator"))
    assert client.post("/clusters/alpha/test-connection/").status_code == 403
    assert b"Test connection" not in client.get("/clusters/alpha/").content


def test_testing_the_connection_reports_version_and_list_rights(client, role_user):
    client.force_login(role_user("admin"))
    assert b"Test connection" in client.get("/clusters/alpha/").content
    response = client.post("/clusters/alpha/test-connection/", HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert 'data-connection="ok"' in html
    assert "Kubernetes v1." in html and "MutatingWebhookConfiguration: yes" in html
    assert "<html" not in html


def test_a_failing_connection_is_reported_plainly(client, role_user, sandboxes):
    client.force_login(role_user("admin"))
    sandboxes[0].inject_fault("/version", status=401, times=5)
    try:
        html = client.post("/clusters/alpha/test-connection/").content.decode()
    finally:
        sandboxes[0].clear_faults()
    assert 'data-connection="failed"' in html
    assert factories.SECRET_TOKEN not in html
