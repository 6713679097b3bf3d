"""The overview page: cluster cards and the configuration matrix."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import QuerySet

from webhooks_ui import selectors
from webhooks_ui.filters import ConfigurationFilterSet
from webhooks_ui.models import Cluster, WebhookConfiguration
from webhooks_ui.review.matrix import MatrixEntry, build_matrix

MATRIX_PAGE_SIZE = 50


@dataclass
class Overview:
    clusters: list[Cluster]
    statuses: dict[int, selectors.SyncStatus]
    can_sync: set[int]
    columns: list[Cluster]
    filterset: ConfigurationFilterSet
    page: Page
    total_rows: int


def overview_build(
    *, visible: QuerySet[Cluster], can_sync: set[int], params: Any, page_number: Any
) -> Overview:
    """Cluster cards plus one page of the filtered matrix, in a fixed number of
    queries whatever the number of clusters and configurations."""
    clusters = list(selectors.cluster_list().filter(pk__in=visible.values("pk")))
    filterset = ConfigurationFilterSet(
        params,
        queryset=WebhookConfiguration.objects.filter(
            deleted_at__isnull=True, cluster__in=visible
        ),
        clusters=visible,
    )
    columns = list(filterset.columns())
    column_ids = [cluster.pk for cluster in columns]
    column_names = [(cluster.pk, cluster.name) for cluster in columns]
    entries = (
        MatrixEntry(*values)
        for values in filterset.qs.filter(cluster__in=column_ids)
        .order_by()
        .values_list("cluster_id", "kind", "name", "comparison_hash", "pk")
    )
    rows = build_matrix(entries, column_names)
    if filterset.wants_only_different:
        rows = [row for row in rows if row.differs]
    page = Paginator(rows, MATRIX_PAGE_SIZE).get_page(page_number)
    statuses = selectors.latest_sync_statuses(clusters=clusters)
    return Overview(clusters, statuses, can_sync, columns, filterset, page, len(rows))
