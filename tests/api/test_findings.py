"""The fleet-wide findings list, with the UI's FilterSet."""

from __future__ import annotations

from tests.api.conftest import error_of


def test_fleet_list_worst_first(admin_api, findings):
    body = admin_api.get("/api/v1/findings/").json()
    assert body["count"] > 0
    ranks = ["critical", "warning", "info"]
    severities = [ranks.index(f["severity"]) for f in body["results"]]
    assert severities == sorted(severities)


def test_filters(admin_api, findings):
    everything = admin_api.get("/api/v1/findings/?page_size=500").json()["results"]
    critical = admin_api.get("/api/v1/findings/?severity=critical").json()
    assert critical["count"] == sum(f["severity"] == "critical" for f in everything)
    beta = admin_api.get("/api/v1/findings/?cluster=beta").json()["results"]
    assert {f["cluster"] for f in beta} <= {"beta"}
    text = admin_api.get("/api/v1/findings/?q=sidecar").json()["results"]
    assert text and all("sidecar" in f["configuration_name"] for f in text)
    check_id = everything[0]["check_id"]
    same = admin_api.get(f"/api/v1/findings/?check_id={check_id}").json()["results"]
    assert {f["check_id"] for f in same} == {check_id}


def test_a_bad_filter_is_400(admin_api, findings):
    response = admin_api.get("/api/v1/findings/?severity=apocalyptic")
    assert response.status_code == 400
    assert "severity" in error_of(response)["details"]


def test_a_viewer_sees_findings_of_their_cluster_only(as_user, role_user, findings):
    results = as_user(role_user("viewer")).get("/api/v1/findings/?page_size=500")
    clusters = {f["cluster"] for f in results.json()["results"]}
    assert "beta" not in clusters
