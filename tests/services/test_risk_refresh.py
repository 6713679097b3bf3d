"""Risk analysis after sync: findings stored per cluster and for the fleet."""

from __future__ import annotations

import pytest

from tests import factories
from webhooks_ui.models import RiskFinding
from webhooks_ui.services.risk import (
    cluster_findings_refresh,
    findings_refresh_after,
)
from webhooks_ui.services.sync import cluster_sync


def _down_webhook() -> dict:
    """Fail-closed on pods, calling a service with no ready endpoint."""
    return factories.configuration("down", service=("webhooks", "down"))


@pytest.fixture
def sandbox():
    objects = [
        _down_webhook(),
        factories.service("webhooks", "down"),
        factories.endpoint_slice("webhooks", "down", ready=0, not_ready=1),
    ]
    sb = factories.start_sandbox("risky", objects)
    yield sb
    sb.stop()


def test_a_fail_closed_webhook_without_endpoints_is_a_critical_finding(db, sandbox):
    cluster = factories.sandbox_cluster(sandbox)
    run = cluster_sync(cluster=cluster)
    findings_refresh_after(runs=[run])
    finding = RiskFinding.objects.get(
        cluster=cluster, check_id="service-no-ready-endpoints"
    )
    assert finding.severity == "critical" and finding.rank == 0
    assert finding.configuration.name == "down"
    assert finding.webhook == "w0.down.example.com"
    assert finding.field.startswith("webhooks[0]")
    assert finding.fix


def test_every_sync_reanalyses_so_findings_follow_the_clock(db, sandbox):
    cluster = factories.sandbox_cluster(sandbox)
    findings_refresh_after(runs=[cluster_sync(cluster=cluster)])
    first = RiskFinding.objects.get(check_id="service-no-ready-endpoints")
    findings_refresh_after(runs=[cluster_sync(cluster=cluster)])
    again = RiskFinding.objects.get(check_id="service-no-ready-endpoints")
    assert again.computed_at > first.computed_at


def test_fixing_the_cluster_clears_the_finding(db, sandbox):
    cluster = factories.sandbox_cluster(sandbox)
    findings_refresh_after(runs=[cluster_sync(cluster=cluster)])
    assert RiskFinding.objects.filter(check_id="service-no-ready-endpoints").exists()
    sandbox.store.replace(factories.endpoint_slice("webhooks", "down", ready=2))
    try:
        cluster_findings_refresh(cluster=cluster)  # services not re-synced yet
        assert RiskFinding.objects.filter(
            check_id="service-no-ready-endpoints"
        ).exists()
        findings_refresh_after(runs=[cluster_sync(cluster=cluster)])
        assert not RiskFinding.objects.filter(
            check_id="service-no-ready-endpoints"
        ).exists()
    finally:
        sandbox.store.replace(
            factories.endpoint_slice("webhooks", "down", ready=0, not_ready=1)
        )


def test_a_failed_sync_keeps_the_previous_findings(db, sandbox):
    cluster = factories.sandbox_cluster(sandbox)
    findings_refresh_after(runs=[cluster_sync(cluster=cluster)])
    before = RiskFinding.objects.count()
    sandbox.inject_fault("/apis", status=500, times=50)
    try:
        run = cluster_sync(cluster=cluster)
        assert run.status == "failed"
        findings_refresh_after(runs=[run])
    finally:
        sandbox.clear_faults()
    assert RiskFinding.objects.count() == before > 0


def test_the_fleet_analysis_reports_risky_drift_between_environments(db):
    prod_config = factories.configuration("guard", failure_policy="Fail")
    staging_config = factories.configuration("guard", failure_policy="Ignore")
    prod = factories.start_sandbox("prod-x", [prod_config])
    staging = factories.start_sandbox("staging-x", [staging_config])
    try:
        runs = [
            cluster_sync(cluster=factories.sandbox_cluster(prod, environment="prod")),
            cluster_sync(
                cluster=factories.sandbox_cluster(staging, environment="staging")
            ),
        ]
        findings_refresh_after(runs=runs)
    finally:
        prod.stop()
        staging.stop()
    drift = RiskFinding.objects.get(scope="fleet", check_id="cross-cluster-risky-drift")
    assert drift.cluster is None and drift.configuration_name == "guard"
    assert drift.severity == "warning"
