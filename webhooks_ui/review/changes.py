"""The change request page: everything a reviewer needs in one place.

Read side only. Who may see a change request: anyone who can see its
cluster, except drafts, which stay private to their author.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Q, QuerySet
from django.http import Http404

from webhooks_ui.domain.merge import MergeResult, three_way_merge
from webhooks_ui.models import AuditEvent, ChangeRequest, ChangeReview, Cluster
from webhooks_ui.permissions import (
    AnyUser,
    Role,
    clusters_with_role,
    has_role,
    visible_clusters,
)
from webhooks_ui.review.drafts import DraftPreview, draft_preview_build
from webhooks_ui.review.history import ObjectDiff, object_diff
from webhooks_ui.services.changes import (
    APPLICABLE,
    REOPENABLE,
    REVIEWABLE,
    WITHDRAWABLE,
    active_approvals,
    apply_blockers,
    review_blockers,
)

State = ChangeRequest.State


def change_get(*, user: AnyUser, pk: int) -> ChangeRequest:
    """A change request ``user`` may see (404 otherwise, never 403)."""
    visible = (
        ChangeRequest.objects.select_related("cluster", "author", "applied_by")
        .defer("cluster__credentials_encrypted")
        .filter(cluster__in=visible_clusters(user))
        .filter(~Q(state=State.DRAFT) | Q(author_id=user.pk))
    )
    try:
        return visible.get(pk=pk)
    except ChangeRequest.DoesNotExist:
        raise Http404("No such change request.") from None


@dataclass(frozen=True)
class ThreeWay:
    """A stale change: what the cluster changed, what the proposal changes."""

    cluster_changes: ObjectDiff
    proposal_changes: ObjectDiff
    merge: MergeResult | None
    live_resource_version: str


@dataclass(frozen=True)
class ChangePage:
    change: ChangeRequest
    preview: DraftPreview
    reviews: list[ChangeReview]
    approvals: int
    required: int
    apply_blockers: list[str]
    review_blockers: list[str]
    events: list[AuditEvent]
    promotions: list[ChangeRequest]
    promote_targets: list[Cluster]
    three_way: ThreeWay | None
    can: dict[str, bool] = field(default_factory=dict)


def change_page_build(
    *, change: ChangeRequest, user: AnyUser, now: datetime
) -> ChangePage:
    cluster = change.cluster
    reviews = list(change.reviews.select_related("reviewer").order_by("created_at"))
    is_author = change.author_id == user.pk
    blocked_apply = apply_blockers(change, user, now)
    blocked_review = review_blockers(change, user)
    editor = has_role(user, cluster, Role.EDITOR)
    can = {
        "edit": is_author and editor and change.state == State.DRAFT,
        "reopen": is_author and editor and change.state in REOPENABLE,
        "withdraw": is_author and change.state in WITHDRAWABLE,
        "review": not blocked_review,
        "comment": change.state != State.DRAFT,
        "apply": not blocked_apply,
        "show_apply": change.state in APPLICABLE
        and has_role(user, cluster, Role.OPERATOR),
        "rebase": is_author and editor and change.state == State.STALE,
        "promote": change.state in (*REVIEWABLE, State.APPLIED),
        "restore": False,
    }
    return ChangePage(
        change=change,
        preview=draft_preview_build(draft=change, now=now),
        reviews=reviews,
        approvals=len(active_approvals(change)),
        required=cluster.approvals_required,
        apply_blockers=blocked_apply,
        review_blockers=blocked_review,
        events=list(
            AuditEvent.objects.filter(change_id=change.pk).order_by("at", "pk")
        ),
        promotions=list(
            change.promotions.select_related("cluster").filter(
                cluster__in=visible_clusters(user)
            )
        ),
        promote_targets=_promote_targets(change, user) if can["promote"] else [],
        three_way=_three_way(change) if change.state == State.STALE else None,
        can=can,
    )


def _promote_targets(change: ChangeRequest, user: AnyUser) -> list[Cluster]:
    ids = clusters_with_role(user, Role.EDITOR) - {change.cluster_id}
    return list(
        Cluster.objects.filter(pk__in=ids)
        .defer("credentials_encrypted")
        .order_by("name")
    )


def _three_way(change: ChangeRequest) -> ThreeWay | None:
    base, live = change.base_object, change.live_object
    if base is None:
        return None
    proposed: dict[str, Any] | None = (
        None if change.action == ChangeRequest.Action.DELETE else change.proposed_object
    )
    merge = None
    if live is not None and proposed is not None:
        merge = three_way_merge(base, live, proposed)
    return ThreeWay(
        cluster_changes=object_diff(base, live),
        proposal_changes=object_diff(base, proposed),
        merge=merge,
        live_resource_version=change.live_resource_version,
    )


def changes_for_configuration(
    *, cluster: Cluster, kind: str, name: str
) -> QuerySet[ChangeRequest]:
    """Open change requests on one configuration (shown on its page to anyone
    who can see the cluster; drafts stay private)."""
    return (
        ChangeRequest.objects.filter(
            cluster=cluster,
            kind=kind,
            name=name,
            state__in=[State.IN_REVIEW, State.APPROVED, State.STALE, State.FAILED],
        )
        .select_related("author")
        .order_by("-updated_at")
    )
