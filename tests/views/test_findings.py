"""Risk findings on the pages: overview counts, the fleet list, per webhook."""

from __future__ import annotations

import re

import pytest

from webhooks_ui.models import SyncRun
from webhooks_ui.services.risk import findings_refresh_after


@pytest.fixture
def analysed(clusters):
    findings_refresh_after(runs=SyncRun.objects.all())
    return clusters


def test_overview_cards_count_findings_by_severity(admin_client, analysed):
    html = admin_client.get("/").content.decode()
    card = html[html.index('data-findings="alpha"') :]
    # alpha's sidecar-injector calls a service that does not exist, fail-closed.
    critical = re.search(r'data-severity-count="critical">(\d+) critical', card)
    assert critical and int(critical[1]) >= 1
    # The worst few are listed on the overview itself, all critical.
    listed = html.split('id="critical-findings"')[1].split("</ul>")[0]
    assert 1 <= listed.count('data-severity="critical"') <= 8
    assert 'data-severity="warning"' not in listed


def test_the_findings_list_filters_by_severity_and_check(admin_client, analysed):
    html = admin_client.get("/findings/?severity=critical").content.decode()
    severities = set(re.findall(r'data-severity="(\w+)"', html))
    assert severities == {"critical"}
    only = admin_client.get("/findings/?check_id=service-missing").content.decode()
    assert set(re.findall(r'data-check="([\w-]+)"', only)) == {"service-missing"}
    assert "sidecar-injector" in only
    # The link goes to the webhook's section on its configuration page.
    assert "/clusters/alpha/mutating/sidecar-injector/#webhook-0" in only


def test_the_findings_list_answers_htmx_with_the_results_only(admin_client, analysed):
    response = admin_client.get("/findings/?q=sidecar", HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert html.lstrip().startswith('<div id="results">')
    assert "<html" not in html


def test_findings_of_an_invisible_cluster_stay_hidden(client, role_user, analysed):
    client.force_login(role_user("viewer"))
    html = client.get("/findings/?cluster=beta").content.decode()
    # beta is not a choice for this user: the filter is invalid, nothing leaks.
    assert "beta:" not in html


def test_the_configuration_page_shows_findings_next_to_the_webhook(
    admin_client, analysed
):
    html = admin_client.get("/clusters/alpha/mutating/sidecar-injector/").content
    section = html.decode().split('data-webhook="w0.sidecar-injector.example.com"')[1]
    assert 'data-check="service-missing"' in section.split("</section>")[0]
