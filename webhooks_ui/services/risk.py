"""Risk analysis of synced clusters: findings stored where the pages read them.

Analysis runs after a sync, outside its transaction: findings are derived
data, so a failed analysis leaves the previous findings (with their
``computed_at``) rather than failing the sync that fed it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from webhooks_ui.domain import risk
from webhooks_ui.models import (
    Cluster,
    Namespace,
    RiskFinding,
    Service,
    SyncRun,
    WebhookConfiguration,
)
from webhooks_ui.services.sync import Trigger, clusters_sync

logger = logging.getLogger(__name__)
_RANK = {severity: rank for rank, severity in enumerate(risk.SEVERITIES)}


def cluster_findings_refresh(*, cluster: Cluster, now: datetime | None = None) -> int:
    """Analyse one cluster's synced state and replace its findings; returns how many."""
    now = now or timezone.now()
    configurations = list(
        WebhookConfiguration.objects.filter(cluster=cluster, deleted_at__isnull=True)
    )
    services = {
        (row.namespace, row.name): risk.ServiceState(
            exists=row.exists, ready_endpoints=row.ready_endpoint_count
        )
        for row in Service.objects.filter(cluster=cluster)
    }
    namespaces = [
        (row.name, row.labels or {})
        for row in Namespace.objects.filter(cluster=cluster)
    ]
    findings = risk.check_cluster(
        [c.raw for c in configurations],
        services=services,
        namespaces=namespaces,
        now=now,
    )
    by_label = {f"{c.kind}/{c.name}": c for c in configurations}
    rows = [
        _row(finding, now=now, cluster=cluster, by_label=by_label)
        for finding in findings
    ]
    with transaction.atomic():
        RiskFinding.objects.filter(
            cluster=cluster, scope=RiskFinding.Scope.CLUSTER
        ).delete()
        RiskFinding.objects.bulk_create(rows, batch_size=500)
    return len(rows)


def fleet_findings_refresh(*, now: datetime | None = None) -> int:
    """Compare the live configurations of all clusters and replace fleet findings."""
    now = now or timezone.now()
    by_cluster: dict[str, tuple[str, list[dict]]] = {}
    for cluster in Cluster.objects.defer("credentials_encrypted"):
        by_cluster[cluster.name] = (cluster.environment, [])
    for name, raw in WebhookConfiguration.objects.filter(
        deleted_at__isnull=True
    ).values_list("cluster__name", "raw"):
        by_cluster[name][1].append(raw)
    findings = risk.check_fleet(by_cluster)
    rows = [_row(finding, now=now, cluster=None, by_label={}) for finding in findings]
    with transaction.atomic():
        RiskFinding.objects.filter(scope=RiskFinding.Scope.FLEET).delete()
        RiskFinding.objects.bulk_create(rows, batch_size=500)
    return len(rows)


def findings_refresh(*, clusters: Iterable[Cluster]) -> None:
    """Re-analyse these clusters, then the fleet (when any was analysed).

    Never raises: findings are derived data, and neither a sync nor a watch
    may fail because of its analysis; the previous findings stay.
    """
    try:
        analysed = False
        for cluster in clusters:
            cluster_findings_refresh(cluster=cluster)
            analysed = True
        if analysed:
            fleet_findings_refresh()
    except Exception:  # derived data: log loudly, keep the previous findings
        logger.exception("Risk analysis failed")


def findings_refresh_after(*, runs: Iterable[SyncRun]) -> None:
    """Re-analyse every cluster these syncs read successfully, then the fleet.

    Always, not only when configurations changed: findings also depend on
    services' endpoints and on the clock (certificates expire).
    """
    findings_refresh(
        clusters=[run.cluster for run in runs if run.status == SyncRun.Status.SUCCEEDED]
    )


def clusters_sync_and_analyse(
    *, clusters: Iterable[Cluster] | None = None, triggered_by: Trigger = None
) -> list[SyncRun]:
    """Sync clusters (in parallel), then refresh the findings of what changed."""
    runs = clusters_sync(clusters=clusters, triggered_by=triggered_by)
    findings_refresh_after(runs=runs)
    return runs


def _row(
    finding: risk.Finding,
    *,
    now: datetime,
    cluster: Cluster | None,
    by_label: dict[str, WebhookConfiguration],
) -> RiskFinding:
    kind, _, name = finding.configuration.partition("/")
    return RiskFinding(
        scope=RiskFinding.Scope.CLUSTER if cluster else RiskFinding.Scope.FLEET,
        cluster=cluster,
        configuration=by_label.get(finding.configuration),
        configuration_kind=kind,
        configuration_name=name,
        check_id=finding.check_id,
        severity=finding.severity,
        rank=_RANK.get(finding.severity, len(_RANK)),
        webhook=finding.webhook or "",
        field=finding.field,
        message=finding.message,
        fix=finding.fix,
        detail=list(finding.detail),
        computed_at=now,
    )
