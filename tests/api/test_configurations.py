"""Configurations: the overview's filters, pagination, detail, history, compare."""

from __future__ import annotations

import pytest

from tests.api.conftest import error_of
from webhooks_ui.models import ConfigurationRevision, WebhookConfiguration


def _names(response) -> list[tuple[str, str]]:
    assert response.status_code == 200, response.content
    return [(c["cluster"], c["name"]) for c in response.json()["results"]]


def test_list_across_visible_clusters(admin_api):
    body = admin_api.get("/api/v1/configurations/").json()
    assert body["count"] == 6
    first = body["results"][0]
    assert first["url"].startswith("/api/v1/clusters/")
    assert "raw" not in first


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("cluster=beta", {("beta", "drifting"), ("beta", "shared-checks")}),
        ("environment=staging", {("beta", "drifting"), ("beta", "shared-checks")}),
        ("kind=mutating", {("alpha", "sidecar-injector")}),
        ("q=DRIFT", {("alpha", "drifting"), ("beta", "drifting")}),
        ("name=only-alpha", {("alpha", "only-alpha")}),
        (
            "cluster=alpha&cluster=beta&name=shared-checks",
            {("alpha", "shared-checks"), ("beta", "shared-checks")},
        ),
        # The overview's rule: absent somewhere, or more than one variant.
        (
            "only_different=true",
            {
                ("alpha", "drifting"),
                ("beta", "drifting"),
                ("alpha", "sidecar-injector"),
                ("alpha", "only-alpha"),
            },
        ),
        ("only_different=true&cluster=alpha", set()),
        (
            "fails_closed=true&name=drifting",
            {("alpha", "drifting"), ("beta", "drifting")},
        ),
        ("fails_closed=false", set()),
    ],
)
def test_filters_are_the_overviews(admin_api, query, expected):
    assert set(_names(admin_api.get("/api/v1/configurations/?" + query))) == expected


def test_has_risk_filter(admin_api, findings):
    risky = set(_names(admin_api.get("/api/v1/configurations/?has_risk=true")))
    calm = set(_names(admin_api.get("/api/v1/configurations/?has_risk=false")))
    assert ("alpha", "sidecar-injector") in risky  # its service does not exist
    assert risky and not risky & calm
    assert len(risky | calm) == 6


def test_a_bad_filter_value_is_400(admin_api):
    response = admin_api.get("/api/v1/configurations/?kind=sideways")
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "invalid" and "kind" in error["details"]


def test_an_invisible_cluster_filter_is_refused_like_an_unknown_one(as_user, role_user):
    api = as_user(role_user("viewer"))
    hidden = api.get("/api/v1/configurations/?cluster=beta")
    unknown = api.get("/api/v1/configurations/?cluster=gamma")
    assert hidden.status_code == unknown.status_code == 400
    # The same words for both: only the caller's own input is echoed.
    assert hidden.content.decode().replace("beta", "gamma") == unknown.content.decode()


def test_pagination(admin_api):
    first = admin_api.get("/api/v1/configurations/?page_size=4").json()
    assert first["count"] == 6 and len(first["results"]) == 4
    assert "page=2" in first["next"] and first["previous"] is None
    second = admin_api.get(first["next"]).json()
    assert len(second["results"]) == 2 and second["next"] is None
    assert admin_api.get("/api/v1/configurations/?page_size=100000").status_code == 200
    response = admin_api.get("/api/v1/configurations/?page=99")
    assert response.status_code == 404
    assert error_of(response)["code"] == "not_found"


def test_default_page_size_is_50(admin_api, clusters):
    alpha = clusters[0]
    configuration = WebhookConfiguration.objects.get(cluster=alpha, name="drifting")
    ConfigurationRevision.objects.bulk_create(
        ConfigurationRevision(
            configuration=configuration,
            number=100 + n,
            change="modified",
            raw=configuration.raw,
            content_hash="x",
            observed_at=configuration.last_changed,
        )
        for n in range(60)
    )
    url = "/api/v1/clusters/alpha/validating/drifting/history/"
    body = admin_api.get(url).json()
    assert body["count"] == 61 and len(body["results"]) == 50
    assert len(admin_api.get(url + "?page_size=500").json()["results"]) == 61


def test_detail_has_the_raw_object(admin_api):
    response = admin_api.get("/api/v1/clusters/alpha/validating/drifting/")
    body = response.json()
    assert body["kind"] == "ValidatingWebhookConfiguration"
    assert body["kind_slug"] == "validating"
    assert body["raw"]["metadata"]["name"] == "drifting"
    assert body["raw"]["webhooks"][0]["timeoutSeconds"] == 5


def test_unknown_configuration_is_404(admin_api):
    response = admin_api.get("/api/v1/clusters/alpha/validating/nope/")
    assert response.status_code == 404
    assert error_of(response)["code"] == "not_found"


def test_history_and_diff(admin_api, clusters):
    alpha = clusters[0]
    configuration = WebhookConfiguration.objects.get(cluster=alpha, name="drifting")
    newer = {**configuration.raw}
    newer["webhooks"] = [{**configuration.raw["webhooks"][0], "timeoutSeconds": 9}]
    ConfigurationRevision.objects.create(
        configuration=configuration,
        number=2,
        change="modified",
        raw=newer,
        content_hash="y",
        observed_at=configuration.last_changed,
    )
    base = "/api/v1/clusters/alpha/validating/drifting/history/"
    revisions = admin_api.get(base).json()["results"]
    assert [r["number"] for r in revisions] == [2, 1]
    assert revisions[0]["changes"][0]["path"].endswith("timeoutSeconds")
    diff = admin_api.get(base + "diff/?from=1&to=2").json()
    assert (diff["from_revision"], diff["to_revision"]) == (1, 2)
    change = diff["diff"]["changes"][0]
    assert (change["old"], change["new"]) == (5, 9)
    assert "\n-    timeoutSeconds: 5\n" in diff["diff"]["unified_text"]
    assert "\n+    timeoutSeconds: 9\n" in diff["diff"]["unified_text"]
    assert admin_api.get(base + "diff/?from=1&to=7").status_code == 404


def test_diff_of_a_single_revision_is_empty(admin_api):
    url = "/api/v1/clusters/alpha/validating/drifting/history/diff/"
    assert admin_api.get(url).json() == {
        "from_revision": None,
        "to_revision": None,
        "diff": None,
    }


def test_compare_across_clusters(admin_api):
    body = admin_api.get("/api/v1/compare/validating/drifting/").json()
    assert [c["cluster"] for c in body["copies"]] == ["alpha", "beta"]
    assert body["identical"] is False
    change = next(c for c in body["diff"]["changes"] if "timeoutSeconds" in c["path"])
    assert (change["old"], change["new"]) == (5, 25)
    same = admin_api.get("/api/v1/compare/validating/shared-checks/").json()
    assert same["identical"] is True and same["diff"]["changes"] == []


def test_compare_only_with_what_you_can_see(as_user, role_user):
    body = as_user(role_user("viewer")).get("/api/v1/compare/validating/drifting/")
    body = body.json()
    assert [c["cluster"] for c in body["copies"]] == ["alpha"]
    assert body["right"] is None and body["diff"] is None


def test_configuration_findings(admin_api, findings):
    url = "/api/v1/clusters/alpha/mutating/sidecar-injector/findings/"
    results = admin_api.get(url).json()["results"]
    assert results and {f["configuration_name"] for f in results} == {
        "sidecar-injector"
    }
