"""Cluster access for API views: the UI's rules (``webhooks_ui.permissions``).

A cluster the caller may not see is a 404 (its name is not confirmed to
exist); a visible cluster without the needed role is a 403.
"""

from __future__ import annotations

from django.db.models import QuerySet
from rest_framework.request import Request

from webhooks_ui.models import Cluster
from webhooks_ui.permissions import Role, cluster_for, visible_clusters

__all__ = ["Role", "api_cluster", "api_visible_clusters"]


def api_cluster(request: Request, name: str, *, role: str | None = None) -> Cluster:
    """The named cluster if visible (404) and ``role`` is held (403)."""
    return cluster_for(request.user, name, role=role)


def api_visible_clusters(request: Request) -> QuerySet[Cluster]:
    return visible_clusters(request.user)
