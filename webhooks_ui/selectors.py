"""Read-side querysets for clusters and synced configurations.

Each list carries the joins and annotations its page needs, so the number of
queries stays the same however many rows there are.
"""

from __future__ import annotations

from django.db.models import Count, OuterRef, Q, QuerySet, Subquery, Sum

from webhooks_ui.models import (
    Cluster,
    ConfigurationRevision,
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
