"""The overview: cluster cards and the cross-cluster matrix with its filters."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests import factories
from webhooks_ui.domain.normalize import fingerprint
from webhooks_ui.models import Cluster, SyncRun, WebhookConfiguration


def _cells(html: str, row: str) -> dict[str, str]:
    """{cluster: state} of one matrix row."""
    match = re.search(rf'<tr data-row="{re.escape(row)}".*?</tr>', html, re.S)
    assert match, f"row {row} not in the matrix"
    return dict(re.findall(r'data-cluster="([^"]+)" data-state="([^"]+)"', match[0]))


def _rows(html: str) -> list[str]:
    return re.findall(r'<tr data-row="([^"]+)"', html)


def test_cluster_cards_show_counts_and_the_last_sync(admin_client, clusters):
    html = admin_client.get("/").content.decode()
    card = html[html.index('data-cluster="alpha"') :]
    # alpha: shared-checks (2), drifting (1), sidecar-injector (1), only-alpha (1)
    assert re.search(r'data-count="configurations">4<', card)
    assert re.search(r'data-count="webhooks">5<', card)
    assert re.search(r'data-count="fail-closed">5<', card)
    assert 'data-sync-state="succeeded"' in card


def test_matrix_says_identical_different_and_absent(admin_client, clusters):
    html = admin_client.get("/").content.decode()
    assert _cells(html, "shared-checks") == {"alpha": "identical", "beta": "identical"}
    assert _cells(html, "drifting") == {"alpha": "different", "beta": "different"}
    assert _cells(html, "only-alpha") == {"alpha": "present", "beta": "absent"}
    assert "only here" in html


def test_an_injected_ca_bundle_does_not_make_copies_differ(admin_client, clusters):
    alpha, beta = clusters
    # Same injector configuration on beta but with a different injected bundle.
    config = WebhookConfiguration.objects.get(cluster=alpha, name="sidecar-injector")
    raw = config.raw
    raw["webhooks"][0]["clientConfig"]["caBundle"] = "Y2VydA=="
    now = timezone.now()
    WebhookConfiguration.objects.create(
        cluster=beta,
        kind=config.kind,
        name=config.name,
        raw=raw,
        content_hash="x",
        comparison_hash=fingerprint(raw),
        first_seen=now,
        last_changed=now,
    )
    html = admin_client.get("/").content.decode()
    assert _cells(html, "sidecar-injector") == {
        "alpha": "identical",
        "beta": "identical",
    }


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("?only_different=true", ["drifting", "only-alpha", "sidecar-injector"]),
        ("?kind=mutating", ["sidecar-injector"]),
        ("?q=DRIFT", ["drifting"]),
        ("?environment=staging", ["drifting", "shared-checks"]),
    ],
)
def test_filters_live_in_the_url(admin_client, clusters, query, expected):
    html = admin_client.get("/" + query).content.decode()
    assert sorted(_rows(html)) == expected


def test_filtering_by_cluster_compares_only_the_chosen_clusters(admin_client, clusters):
    html = admin_client.get("/?cluster=beta").content.decode()
    assert _cells(html, "shared-checks") == {"beta": "present"}
    assert "only-alpha" not in _rows(html)
    both = admin_client.get("/?cluster=beta&cluster=alpha").content.decode()
    assert _cells(both, "drifting") == {"alpha": "different", "beta": "different"}


def test_htmx_filter_requests_get_only_the_matrix(admin_client, clusters):
    response = admin_client.get("/?q=shared", HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<div id="matrix">')
    assert "<html" not in html and "cluster-card" not in html
    assert _rows(html) == ["shared-checks"]
    assert "HX-Request" in response["Vary"]


def test_the_matrix_is_paginated_keeping_filters(admin_client, clusters, monkeypatch):
    monkeypatch.setattr("webhooks_ui.review.overview.MATRIX_PAGE_SIZE", 2)
    html = admin_client.get("/?kind=validating").content.decode()
    assert len(_rows(html)) == 2
    assert "kind=validating&amp;page=2" in html
    second = admin_client.get("/?kind=validating&page=2").content.decode()
    assert len(_rows(second)) == 1


def _fill(clusters: int, configurations: int) -> None:
    now = timezone.now()
    for c in range(clusters):
        cluster = factories.token_cluster(f"c{Cluster.objects.count()}-{c}")
        SyncRun.objects.create(cluster=cluster, started_at=now, status="succeeded")
        rows = []
        for i in range(configurations):
            raw = factories.configuration(f"conf-{i}")
            rows.append(
                WebhookConfiguration(
                    cluster=cluster,
                    kind=raw["kind"],
                    name=f"conf-{i}",
                    raw=raw,
                    content_hash="h",
                    comparison_hash=fingerprint(raw),
                    webhook_count=1,
                    fail_closed_count=1,
                    first_seen=now,
                    last_changed=now,
                )
            )
        WebhookConfiguration.objects.bulk_create(rows)


def _queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


@pytest.mark.parametrize("url", ["/", "/?only_different=true&q=conf"])
def test_overview_queries_stay_constant_as_the_fleet_grows(admin_client, db, url):
    _fill(2, 3)
    small = _queries(admin_client, url)
    _fill(4, 12)
    assert _queries(admin_client, url) == small


def test_cluster_page_queries_stay_constant_as_the_cluster_grows(admin_client, db):
    _fill(1, 2)
    name = Cluster.objects.get().name
    small = _queries(admin_client, f"/clusters/{name}/")
    now = timezone.now()
    cluster = Cluster.objects.get()
    for i in range(10, 30):
        raw = factories.configuration(f"more-{i}")
        WebhookConfiguration.objects.create(
            cluster=cluster,
            kind=raw["kind"],
            name=raw["metadata"]["name"],
            raw=raw,
            content_hash="h",
            first_seen=now,
            last_changed=now,
        )
        SyncRun.objects.create(cluster=cluster, started_at=now, status="failed")
    assert _queries(admin_client, f"/clusters/{name}/") == small
