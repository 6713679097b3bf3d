"""A configuration explained, as YAML, its history, and compared across clusters."""

from __future__ import annotations

import time

import pytest
import yaml

from webhooks_ui import tasks
from webhooks_ui.domain.kinds import VALIDATING
from webhooks_ui.models import RiskFinding, SyncRun
from webhooks_ui.services.sync import cluster_sync

DRIFTING = "/clusters/alpha/validating/drifting/"


def test_each_webhook_is_explained_in_plain_words(admin_client, clusters):
    html = admin_client.get(DRIFTING).content.decode()
    assert 'data-webhook="w0.drifting.example.com"' in html
    assert "Fails closed" in html
    # failurePolicy Fail is also the default; matchPolicy was never set.
    assert "Waits up to 5 s" in html or "5 s" in html
    assert html.count('badge text-bg-light border fw-normal">default<') >= 3
    # The target service exists and has a ready endpoint (factories.backend()).
    assert 'data-service-state="ready"' in html
    assert "webhooks/checker:443" in html


def test_a_webhook_whose_service_is_missing_says_so(admin_client, clusters):
    html = admin_client.get("/clusters/alpha/mutating/sidecar-injector/").content
    assert b'data-service-state="missing"' in html
    assert b"service not found in the cluster" in html
    # The CA injector is recognised as an owner that rewrites the caBundle.
    assert b"cert-manager" in html and b"writes the caBundle itself" in html


def test_unknown_configuration_is_404(admin_client, clusters):
    assert admin_client.get("/clusters/alpha/validating/nope/").status_code == 404
    assert admin_client.get("/clusters/alpha/mutating/drifting/").status_code == 404


def test_yaml_tab_is_highlighted_and_downloadable(admin_client, clusters):
    page = admin_client.get(DRIFTING + "yaml/").content.decode()
    assert 'class="highlight"' in page and "timeoutSeconds" in page
    download = admin_client.get(DRIFTING + "yaml/?download=1")
    assert download["Content-Type"].startswith("application/yaml")
    assert 'filename="alpha-drifting.yaml"' in download["Content-Disposition"]
    obj = yaml.safe_load(download.content)
    assert obj["kind"] == VALIDATING and obj["metadata"]["name"] == "drifting"
    assert obj["webhooks"][0]["timeoutSeconds"] == 5


def test_tabs_answer_htmx_with_the_tab_region_only(admin_client, clusters):
    response = admin_client.get(DRIFTING + "history/", HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="tab">')
    assert "<html" not in html and 'id="revisions"' in html
    assert "HX-Request" in response["Vary"]


def test_history_shows_what_changed_and_diffs_two_revisions(
    admin_client, clusters, sandboxes
):
    alpha_sb, _ = sandboxes
    obj = alpha_sb.store.get("admissionregistration.k8s.io/v1", VALIDATING, "drifting")
    obj["webhooks"][0]["timeoutSeconds"] = 7
    alpha_sb.store.replace(obj)
    try:
        assert cluster_sync(cluster=clusters[0]).status == "succeeded"
        html = admin_client.get(DRIFTING + "history/").content.decode()
        assert 'data-revision="2"' in html and 'data-revision="1"' in html
        assert "timeoutSeconds 5 → 7" in html
        diff = admin_client.get(DRIFTING + "history/?from=1&to=2").content.decode()
        assert 'id="semantic-diff"' in diff
        assert "webhooks[0].timeoutSeconds" in diff
        assert "diff-removed" in diff and "diff-added" in diff
        assert admin_client.get(DRIFTING + "history/?from=1&to=9").status_code == 404
    finally:
        obj = alpha_sb.store.get(
            "admissionregistration.k8s.io/v1", VALIDATING, "drifting"
        )
        obj["webhooks"][0]["timeoutSeconds"] = 5
        alpha_sb.store.replace(obj)


def test_compare_shows_two_clusters_side_by_side(admin_client, clusters):
    html = admin_client.get(
        "/compare/validating/drifting/?left=alpha&right=beta"
    ).content.decode()
    assert "alpha → beta" in html
    assert 'id="yaml-diff-columns"' in html
    assert "webhooks[0].timeoutSeconds" in html
    same = admin_client.get("/compare/validating/shared-checks/").content.decode()
    assert 'id="semantic-diff-empty"' in same


def test_compare_of_a_configuration_nobody_has_is_404(admin_client, clusters):
    assert admin_client.get("/compare/validating/nope/").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_sync_now_runs_in_the_background_and_the_status_stops_polling(
    client, sandboxes
):
    from django.contrib.auth.models import User

    from tests import factories

    cluster = factories.sandbox_cluster(sandboxes[0], environment="prod")
    user = User.objects.create_superuser("op", password="x")
    client.force_login(user)

    response = client.post(f"/clusters/{cluster.name}/sync/", HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200
    assert 'data-sync-state="queued"' in html and 'hx-trigger="every 1s"' in html
    poll_url = html.split('hx-get="', 1)[1].split('"', 1)[0].replace("&amp;", "&")

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        response = client.get(poll_url, HTTP_HX_REQUEST="true")
        html = response.content.decode()
        if "hx-trigger" not in html:
            break
        time.sleep(0.2)
    # The task goes on to analyse risks: let it finish before the test ends.
    assert tasks.drain(timeout=30)
    runs = list(SyncRun.objects.values("status", "error", "started_at"))
    assert 'data-sync-state="succeeded"' in html, (runs, html)
    assert RiskFinding.objects.filter(cluster=cluster).exists()
    assert "hx-trigger" not in html  # polling stops once the sync is done
    assert response["HX-Refresh"] == "true"  # and the page reloads its data
    run = SyncRun.objects.get(cluster=cluster)
    assert run.triggered_by == "op" and run.created_count == 4
