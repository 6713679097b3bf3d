"""Who holds which role on a cluster, grouped per user or group."""

from __future__ import annotations

from dataclasses import dataclass

from webhooks_ui.models import Cluster, ClusterMembership
from webhooks_ui.services.memberships import holder_of

ROLE_ORDER = [role for role, _label in ClusterMembership.Role.choices]


@dataclass(frozen=True)
class Held:
    """One membership: the row a "Revoke" button posts to."""

    id: int
    role: str


@dataclass(frozen=True)
class Holder:
    kind: str  # "user" or "group"
    name: str
    memberships: list[Held]


def memberships_by_holder(*, cluster: Cluster) -> list[Holder]:
    """Users first, then groups, each with its roles in the usual order."""
    grouped: dict[tuple[str, str], list[Held]] = {}
    memberships = ClusterMembership.objects.filter(cluster=cluster).select_related(
        "user", "group"
    )
    for membership in memberships:
        grouped.setdefault(holder_of(membership), []).append(
            Held(membership.pk, membership.role)
        )
    return [
        Holder(kind, name, sorted(held, key=lambda h: ROLE_ORDER.index(h.role)))
        for (kind, name), held in sorted(grouped.items())
    ]
