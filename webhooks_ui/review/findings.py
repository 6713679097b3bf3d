"""Risk findings as the pages show them: the fleet list and per-webhook groups."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import QuerySet

from webhooks_ui import selectors
from webhooks_ui.filters import FindingFilterSet
from webhooks_ui.models import Cluster, RiskFinding, WebhookConfiguration

FINDINGS_PAGE_SIZE = 50
OVERVIEW_CRITICAL_LIMIT = 8


@dataclass
class FindingsPage:
    filterset: FindingFilterSet
    page: Page


def findings_page_build(
    *, visible: QuerySet[Cluster], params: Any, page_number: Any
) -> FindingsPage:
    filterset = FindingFilterSet(
        params, queryset=selectors.finding_list(clusters=visible), clusters=visible
    )
    page = Paginator(filterset.qs, FINDINGS_PAGE_SIZE).get_page(page_number)
    return FindingsPage(filterset, page)


def critical_findings(*, visible: QuerySet[Cluster]) -> list[RiskFinding]:
    """The worst findings for the overview: criticals first, a handful."""
    return list(
        selectors.finding_list(clusters=visible).filter(
            severity=RiskFinding.Severity.CRITICAL
        )[:OVERVIEW_CRITICAL_LIMIT]
    )


def findings_by_webhook(
    configuration: WebhookConfiguration,
) -> dict[str, list[RiskFinding]]:
    """This configuration's findings keyed by webhook name ("" = the whole object)."""
    grouped: dict[str, list[RiskFinding]] = defaultdict(list)
    for finding in configuration.findings.order_by("rank", "check_id"):
        grouped[finding.webhook].append(finding)
    return dict(grouped)
