"""Read-side querysets for clusters and synced configurations.

Each list carries the joins and annotations its page needs, so the number of
queries stays the same however many rows there are.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, OuterRef, Q, QuerySet, Subquery, Sum
from django.http import Http404
from django.shortcuts import get_object_or_404

from webhooks_ui.models import (
    Cluster,
    ConfigurationRevision,
    RiskFinding,
    SyncRun,
    WebhookConfiguration,
)


def cluster_list() -> QuerySet[Cluster]:
    """Clusters with live configuration counts and their latest sync's outcome."""
    latest = SyncRun.objects.filter(cluster=OuterRef("pk")).order_by(
        "-started_at", "-pk"
    )
    live = Q(configurations__deleted_at__isnull=True)
    return (
        Cluster.objects.defer("credentials_encrypted")
        .annotate(
            configuration_count=Count("configurations", filter=live),
            webhook_count=Sum("configurations__webhook_count", filter=live),
            fail_closed_count=Sum("configurations__fail_closed_count", filter=live),
            last_sync_status=Subquery(latest.values("status")[:1]),
            last_sync_started_at=Subquery(latest.values("started_at")[:1]),
            last_sync_error=Subquery(latest.values("error")[:1]),
            server_version=Subquery(
                latest.filter(status=SyncRun.Status.SUCCEEDED).values("server_version")[
                    :1
                ]
            ),
            last_success_at=Subquery(
                latest.filter(status=SyncRun.Status.SUCCEEDED).values("finished_at")[:1]
            ),
        )
        .order_by("environment", "name")
    )


def configuration_list(
    *,
    cluster: Cluster | None = None,
    include_deleted: bool = False,
) -> QuerySet[WebhookConfiguration]:
    """Configurations for list pages, without the raw objects (they are large)."""
    queryset = WebhookConfiguration.objects.select_related("cluster").defer(
        "raw", "cluster__credentials_encrypted"
    )
    if cluster is not None:
        queryset = queryset.filter(cluster=cluster)
    if not include_deleted:
        queryset = queryset.filter(deleted_at__isnull=True)
    return queryset.order_by("cluster__name", "kind", "name")


def configuration_revisions(
    *, configuration: WebhookConfiguration
) -> QuerySet[ConfigurationRevision]:
    """A configuration's history, newest first, with the sync that saw each change."""
    return (
        ConfigurationRevision.objects.filter(configuration=configuration)
        .select_related("sync_run")
        .order_by("-number")
    )


def sync_runs(*, cluster: Cluster | None = None) -> QuerySet[SyncRun]:
    """Sync runs, newest first."""
    queryset = SyncRun.objects.select_related("cluster").defer(
        "cluster__credentials_encrypted"
    )
    if cluster is not None:
        queryset = queryset.filter(cluster=cluster)
    return queryset.order_by("-started_at", "-pk")


# --- review pages ------------------------------------------------------------


@dataclass(frozen=True)
class SyncStatus:
    """What the "sync now" region shows; ``polling`` while a sync is pending."""

    cluster: Cluster
    run: SyncRun | None
    requested_at: datetime | None

    @property
    def pending(self) -> bool:
        """Requested and not finished yet (queued, or running)."""
        if self.run is not None and self.run.status == SyncRun.Status.RUNNING:
            return True
        if self.requested_at is None:
            return False
        # Queued: the background sync has not created its run yet.
        return self.run is None or self.run.started_at < self.requested_at


def sync_status(
    *, cluster: Cluster, requested_at: datetime | None = None
) -> SyncStatus:
    """The latest sync of ``cluster``, seen from a request made at ``requested_at``."""
    run = sync_runs(cluster=cluster).first()
    return SyncStatus(cluster, run, requested_at)


def configuration_get(
    *, cluster: Cluster, kind: str, name: str
) -> WebhookConfiguration:
    """One configuration of a cluster (deleted ones too, for history), or 404."""
    return get_object_or_404(
        WebhookConfiguration.objects.select_related("cluster").defer(
            "cluster__credentials_encrypted"
        ),
        cluster=cluster,
        kind=kind,
        name=name,
    )


def revision_pair(
    revisions: list[ConfigurationRevision], old: str | None, new: str | None
) -> tuple[ConfigurationRevision, ConfigurationRevision] | None:
    """The two revisions to diff, by number; default: the latest against the one
    before it. None when there is nothing to compare."""
    by_number = {revision.number: revision for revision in revisions}
    if old and new and old.isdigit() and new.isdigit():
        pair = by_number.get(int(old)), by_number.get(int(new))
        if pair[0] is None or pair[1] is None:
            raise Http404("No such revision.")
        return pair[0], pair[1]
    ordered = sorted(by_number)
    if len(ordered) < 2:
        return None
    return by_number[ordered[-2]], by_number[ordered[-1]]


def configuration_copies(
    *, clusters: QuerySet[Cluster], kind: str, name: str
) -> list[WebhookConfiguration]:
    """The live copies of one configuration across ``clusters``, by cluster name."""
    return list(
        WebhookConfiguration.objects.filter(
            cluster__in=clusters, kind=kind, name=name, deleted_at__isnull=True
        )
        .select_related("cluster")
        .defer("cluster__credentials_encrypted")
        .order_by("cluster__environment", "cluster__name")
    )


def compare_pair(
    copies: list[WebhookConfiguration], left: str | None, right: str | None
) -> tuple[WebhookConfiguration | None, WebhookConfiguration | None]:
    """The copies named by cluster; default: the first two."""
    by_cluster = {copy.cluster.name: copy for copy in copies}
    if not copies:
        raise Http404("No cluster you can see has this configuration.")
    chosen_left = by_cluster.get(left or "") or copies[0]
    fallback = next((c for c in copies if c is not chosen_left), None)
    chosen_right = by_cluster.get(right or "") or fallback
    return chosen_left, chosen_right


def latest_sync_statuses(*, clusters: list[Cluster]) -> dict[int, SyncStatus]:
    """The latest sync of each cluster, in one query whatever their number."""
    latest = SyncRun.objects.filter(cluster=OuterRef("pk")).order_by(
        "-started_at", "-pk"
    )
    run_ids = Cluster.objects.filter(pk__in=[c.pk for c in clusters]).annotate(
        run_id=Subquery(latest.values("pk")[:1])
    )
    runs = {
        run.cluster_id: run
        for run in SyncRun.objects.filter(pk__in=run_ids.values("run_id"))
    }
    return {c.pk: SyncStatus(c, runs.get(c.pk), None) for c in clusters}


# --- risk findings -------------------------------------------------------------


def finding_list(*, clusters: QuerySet[Cluster]) -> QuerySet[RiskFinding]:
    """Findings on ``clusters`` plus fleet findings about configurations one of
    them has, worst first, with what the list shows joined in."""
    visible_names = WebhookConfiguration.objects.filter(
        cluster__in=clusters, deleted_at__isnull=True
    ).values("name")
    return (
        RiskFinding.objects.filter(
            Q(cluster__in=clusters)
            | Q(scope=RiskFinding.Scope.FLEET, configuration_name__in=visible_names)
        )
        .select_related("cluster", "configuration")
        .defer("cluster__credentials_encrypted", "configuration__raw")
        .order_by("rank", "cluster__name", "configuration_name", "webhook", "check_id")
    )


def finding_counts(*, clusters: list[Cluster]) -> dict[int, dict[str, int]]:
    """{cluster id: {severity: count}} in one query."""
    counts: dict[int, dict[str, int]] = {c.pk: {} for c in clusters}
    rows = (
        RiskFinding.objects.filter(cluster__in=[c.pk for c in clusters])
        .values_list("cluster_id", "severity")
        .annotate(n=Count("pk"))
        .order_by()
    )
    for cluster_id, severity, n in rows:
        counts[cluster_id][severity] = n
    return counts
