"""The change request list: what the user may see, with approvals counted.

Read side only. Anyone who can see a cluster sees its change requests,
except drafts, which stay private to their author (as on the change page).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Count, IntegerField, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from webhooks_ui.filters import ChangeRequestFilterSet
from webhooks_ui.models import ChangeRequest, ChangeReview
from webhooks_ui.permissions import AnyUser, visible_clusters
from webhooks_ui.services.changes import awaiting_review

CHANGES_PAGE_SIZE = 50
State = ChangeRequest.State

# The list never shows the objects themselves: leave the big columns behind.
_HEAVY_FIELDS = (
    "cluster__credentials_encrypted",
    "base_object",
    "proposed_object",
    "proposed_text",
    "live_object",
    "validation_errors",
    "dry_run_result",
    "outcome",
    "description",
)


@dataclass
class ChangesPage:
    filterset: ChangeRequestFilterSet
    page: Page


def change_list(*, user: AnyUser) -> QuerySet[ChangeRequest]:
    """Change requests ``user`` may see, newest first, with ``approvals`` counted
    as the workflow counts them (not dismissed, not by the author)."""
    approvals = (
        ChangeReview.objects.filter(
            change=OuterRef("pk"),
            verdict=ChangeReview.Verdict.APPROVE,
            dismissed_at__isnull=True,
        )
        .exclude(reviewer_id=OuterRef("author_id"))
        .order_by()
        .values("change")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return (
        ChangeRequest.objects.filter(cluster__in=visible_clusters(user))
        .filter(~Q(state=State.DRAFT) | Q(author_id=user.pk))
        .select_related("cluster", "author")
        .defer(*_HEAVY_FIELDS)
        .annotate(
            approvals=Coalesce(Subquery(approvals, output_field=IntegerField()), 0)
        )
        .order_by("-updated_at", "-pk")
    )


def changes_page_build(*, user: AnyUser, params: Any, page_number: Any) -> ChangesPage:
    filterset = ChangeRequestFilterSet(
        params,
        queryset=change_list(user=user),
        clusters=visible_clusters(user),
        awaiting=awaiting_review(user),
        user_id=user.pk,
    )
    page = Paginator(filterset.qs, CHANGES_PAGE_SIZE).get_page(page_number)
    return ChangesPage(filterset, page)
