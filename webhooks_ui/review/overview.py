"""The overview page: cluster cards and the configuration matrix."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import QuerySet
from django.urls import reverse

from webhooks_ui import selectors
from webhooks_ui.filters import ConfigurationFilterSet
from webhooks_ui.models import Cluster, RiskFinding, WebhookConfiguration
from webhooks_ui.review.findings import critical_findings
from webhooks_ui.review.matrix import Column, Matrix

MATRIX_PAGE_SIZE = 50


@dataclass
class Overview:
    clusters: list[Cluster]
    statuses: dict[int, selectors.SyncStatus]
    finding_counts: dict[int, dict[str, int]]
    critical_findings: list[RiskFinding]
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
    column_clusters = list(filterset.columns())
    columns = [Column(c.pk, c.name) for c in column_clusters]
    entries = (
        filterset.qs.filter(cluster__in=[c.cluster_id for c in columns])
        .order_by()
        .values_list("cluster_id", "kind", "name", "comparison_hash")
    )
    matrix = Matrix(entries, columns)
    keys = matrix.differing_keys() if filterset.wants_only_different else matrix.keys
    page = Paginator(keys, MATRIX_PAGE_SIZE).get_page(page_number)
    # One reverse() per cluster, not one per cell: thousands of cells per page.
    base_urls = {
        c.cluster_id: reverse("cluster-detail", kwargs={"cluster": c.cluster_name})
        for c in columns
    }
    page.object_list = [
        matrix.row(
            key,
            base_urls=base_urls,
            compare_url=reverse(
                "configuration-compare", kwargs={"kind": key[0], "name": key[1]}
            ),
        )
        for key in page.object_list
    ]
    return Overview(
        clusters=clusters,
        statuses=selectors.latest_sync_statuses(clusters=clusters),
        finding_counts=selectors.finding_counts(clusters=clusters),
        critical_findings=critical_findings(visible=visible),
        can_sync=can_sync,
        columns=column_clusters,
        filterset=filterset,
        page=page,
        total_rows=len(keys),
    )
