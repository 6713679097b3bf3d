"""Cluster access for API views: the UI's rules (``webhooks_ui.permissions``).

A cluster the caller may not see is a 404 (its name is not confirmed to
exist); a visible cluster without the needed role is a 403. The same goes for
what lives on a cluster: change requests (a draft is its author's alone) and
audit events (those without a cluster, such as sign-ins, are superusers').
"""

from __future__ import annotations

from django.db.models import Q, QuerySet
from django.http import Http404
from rest_framework.request import Request

from webhooks_ui.models import AuditEvent, ChangeRequest, Cluster
from webhooks_ui.permissions import Role, cluster_for, visible_clusters

__all__ = [
    "Role",
    "api_change",
    "api_cluster",
    "api_visible_audit_events",
    "api_visible_changes",
    "api_visible_clusters",
]

# Larger ids cannot be in the database (and would overflow SQLite's integers).
MAX_ID = 2**63 - 1


def api_cluster(request: Request, name: str, *, role: str | None = None) -> Cluster:
    """The named cluster if visible (404) and ``role`` is held (403)."""
    return cluster_for(request.user, name, role=role)


def api_visible_clusters(request: Request) -> QuerySet[Cluster]:
    return visible_clusters(request.user)


def api_visible_changes(request: Request) -> QuerySet[ChangeRequest]:
    """Change requests of visible clusters; drafts only to their author."""
    user = request.user
    others_drafts = Q(state=ChangeRequest.State.DRAFT) & ~Q(author_id=user.pk)
    return (
        ChangeRequest.objects.filter(cluster__in=visible_clusters(user))
        .exclude(others_drafts)
        .select_related("cluster", "author", "applied_by", "applied_revision")
        .defer("cluster__credentials_encrypted")
        .prefetch_related("reviews__reviewer")
    )


def api_change(request: Request, change_id: int) -> ChangeRequest:
    """One visible change request (404 otherwise, hidden or not)."""
    if not 0 < change_id <= MAX_ID:
        raise Http404("No such change request.")
    try:
        return api_visible_changes(request).get(pk=change_id)
    except ChangeRequest.DoesNotExist:
        raise Http404("No such change request.") from None


def api_visible_audit_events(request: Request) -> QuerySet[AuditEvent]:
    """Events of visible clusters, newest first; superusers see every event
    (sign-ins, and events of clusters since removed, included)."""
    events = AuditEvent.objects.order_by("-at", "-pk")
    user = request.user
    if user.is_authenticated and user.is_active and user.is_superuser:
        return events
    return events.filter(cluster_id__in=visible_clusters(user).values("pk"))
