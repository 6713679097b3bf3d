"""Coverage: the explorer's parameters, and a configuration's per-webhook coverage."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from tests.api.conftest import error_of

URL = "/api/v1/coverage/?"


def _ask(api, **params):
    return api.get(URL + urlencode(params))


def test_who_intercepts_pod_creation(admin_api):
    response = _ask(
        admin_api,
        cluster="alpha",
        resource="v1/pods",
        operation="CREATE",
        namespace="team-a",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["cluster"] == "alpha"
    assert body["question"]["summary"].startswith("CREATE v1/pods")
    assert body["question"]["resource"] == "v1/pods"
    matched = {(m["configuration_name"], m["webhook_name"]) for m in body["matched"]}
    assert ("drifting", "w0.drifting.example.com") in matched
    assert all(m["verdict"] for m in body["matched"])
    assert body["total_worst_case_seconds"] >= 5


def test_same_parameters_as_the_page(admin_client, admin_api):
    params = {
        "cluster": "alpha",
        "resource": "v1/pods",
        "operation": "CREATE",
        "namespace": "team-a",
        "labels": "app=web",
        "username": "alice",
        "groups": "devs, ops",
    }
    api = _ask(admin_api, **params).json()
    page = admin_client.get("/coverage/?" + urlencode(params)).content.decode()
    for entry in api["matched"]:
        assert entry["webhook_name"] in page


@pytest.mark.parametrize(
    ("params", "field"),
    [
        (
            {"cluster": "alpha", "resource": "v1/nothing", "operation": "CREATE"},
            "resource",
        ),
        ({"cluster": "alpha", "operation": "CREATE"}, "resource"),
        (
            {"cluster": "alpha", "resource": "v1/pods", "operation": "CREATE"},
            "namespace",
        ),
        (
            {
                "cluster": "alpha",
                "resource": "v1/pods",
                "operation": "READ",
                "namespace": "x",
            },
            "operation",
        ),
        (
            {
                "cluster": "alpha",
                "resource": "v1/pods",
                "operation": "CREATE",
                "namespace": "x",
                "labels": "no-equals",
            },
            "labels",
        ),
        (
            {
                "cluster": "alpha",
                "resource": "v1/pods",
                "operation": "CREATE",
                "namespace": "x",
                "sample": "a: [b",
            },
            "sample",
        ),
    ],
)
def test_bad_questions_are_400_naming_the_field(admin_api, params, field):
    response = _ask(admin_api, **params)
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "invalid" and field in error["details"]


def test_a_hidden_or_missing_cluster(as_user, role_user):
    api = as_user(role_user("viewer"))
    hidden = _ask(api, cluster="beta", resource="v1/pods", operation="CREATE")
    assert hidden.status_code == 404
    assert _ask(api, resource="v1/pods").status_code == 404


def test_configuration_coverage(admin_api):
    url = "/api/v1/clusters/alpha/validating/shared-checks/coverage/"
    body = admin_api.get(url).json()
    assert body["synced"] is True and body["resource_count"] > 0
    assert [w["name"] for w in body["webhooks"]] == [
        "w0.shared-checks.example.com",
        "w1.shared-checks.example.com",
    ]
    pods = [r for r in body["webhooks"][0]["resources"] if r["resource"] == "pods"]
    assert pods and "CREATE" in pods[0]["operations"]
