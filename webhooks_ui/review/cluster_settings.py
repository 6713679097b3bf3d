"""Who holds which role on a cluster, grouped per user or group."""

from __future__ import annotations

from dataclasses import dataclass

from webhooks_ui.models import Cluster, ClusterMembership

ROLE_ORDER = [role for role, _label in ClusterMembership.Role.choices]


@dataclass(frozen=True)
class Holder:
    kind: str  # "user" or "group"
    name: str
    roles: list[str]


def memberships_by_holder(*, cluster: Cluster) -> list[Holder]:
    """Users first, then groups, each with its roles in the usual order."""
    grouped: dict[tuple[str, str], set[str]] = {}
    memberships = ClusterMembership.objects.filter(cluster=cluster).select_related(
        "user", "group"
    )
    for membership in memberships:
        if membership.user_id:
            key = ("user", membership.user.get_username())
        else:
            key = ("group", membership.group.name)
        grouped.setdefault(key, set()).add(membership.role)
    return [
        Holder(kind, name, sorted(roles, key=ROLE_ORDER.index))
        for (kind, name), roles in sorted(grouped.items())
    ]
