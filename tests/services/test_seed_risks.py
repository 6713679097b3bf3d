"""The built-in sandbox seeds show every critical risk the dashboard knows."""

from __future__ import annotations

from tests import factories
from webhooks_ui.domain.risk import CHECKS, CRITICAL
from webhooks_ui.models import RiskFinding
from webhooks_ui.sandbox.seed_loader import BUILTIN_SEEDS_DIR
from webhooks_ui.sandbox.server import SandboxServer
from webhooks_ui.services.risk import findings_refresh_after
from webhooks_ui.services.sync import cluster_sync


def test_the_dev_seed_trips_every_critical_check(db):
    sandbox = SandboxServer(name="dev", seed_dir=BUILTIN_SEEDS_DIR / "dev").start()
    try:
        cluster = factories.sandbox_cluster(sandbox, environment="dev")
        findings_refresh_after(runs=[cluster_sync(cluster=cluster)])
    finally:
        sandbox.stop()
    tripped = set(
        RiskFinding.objects.filter(cluster=cluster, severity=CRITICAL).values_list(
            "check_id", flat=True
        )
    )
    critical_checks = {
        check_id
        for check_id, info in CHECKS.items()
        if info.default_severity == CRITICAL
    }
    assert critical_checks - tripped == set()
