"""Who may see and do what on which cluster.

Every view and API endpoint asks here. Superusers hold every role; anyone else
holds the roles granted to them or to one of their groups on that cluster. Any
role implies read access to the cluster. A cluster you may not see is a 404,
never a 403: its name is not confirmed to exist.
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import Http404

from webhooks_ui.models import Cluster, ClusterMembership

Role = ClusterMembership.Role
AnyUser = User | AnonymousUser


def _membership_filter(user: AnyUser, prefix: str = "") -> Q:
    return Q(**{f"{prefix}user": user}) | Q(**{f"{prefix}group__in": user.groups.all()})


def visible_clusters(user: AnyUser) -> QuerySet[Cluster]:
    """Clusters ``user`` holds any role on (all of them for a superuser)."""
    clusters = Cluster.objects.defer("credentials_encrypted")
    if not user.is_authenticated or not user.is_active:
        return clusters.none()
    if user.is_superuser:
        return clusters
    granted = ClusterMembership.objects.filter(_membership_filter(user)).values(
        "cluster_id"
    )
    return clusters.filter(pk__in=granted)


def has_role(user: AnyUser, cluster: Cluster, role: str) -> bool:
    """Whether ``user`` holds ``role`` on ``cluster`` (directly or via a group)."""
    if not user.is_authenticated or not user.is_active:
        return False
    if user.is_superuser:
        return True
    return ClusterMembership.objects.filter(
        _membership_filter(user), cluster=cluster, role=role
    ).exists()


def cluster_for(user: AnyUser, name: str, *, role: str | None = None) -> Cluster:
    """The named cluster if ``user`` may see it (404 otherwise) and holds ``role``
    (403 otherwise)."""
    try:
        cluster = visible_clusters(user).get(name=name)
    except Cluster.DoesNotExist:
        raise Http404("No such cluster.") from None
    if role is not None and not has_role(user, cluster, role):
        raise PermissionDenied(f"This needs the {role} role on cluster {name}.")
    return cluster


def clusters_with_role(user: AnyUser, role: str) -> set[int]:
    """Ids of the clusters where ``user`` holds ``role`` (one query, for lists)."""
    if not user.is_authenticated or not user.is_active:
        return set()
    if user.is_superuser:
        return set(Cluster.objects.values_list("pk", flat=True))
    return set(
        ClusterMembership.objects.filter(
            _membership_filter(user), role=role
        ).values_list("cluster_id", flat=True)
    )


def cluster_ids_with_role(user: AnyUser, role: str) -> QuerySet:
    """The ids of the clusters where ``user`` holds ``role``, as a subquery."""
    if not user.is_authenticated or not user.is_active:
        return Cluster.objects.none().values("pk")
    if user.is_superuser:
        return Cluster.objects.values("pk")
    return ClusterMembership.objects.filter(_membership_filter(user), role=role).values(
        "cluster_id"
    )
