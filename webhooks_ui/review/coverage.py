"""Coverage pages, shared part: a cluster indexed for coverage questions (cached
in-process per sync state), and the configuration page's Coverage tab.

Preparing a cluster's configurations (compiling every webhook) and indexing
its discovery are the expensive steps, so they are done once per cluster and
kept in a small LRU keyed by the cluster's sync state: a new sync run, or a
configuration created, changed or deleted (by a sync or a watch), makes a
new key and the old entry is simply never hit again.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Max, OuterRef, Q, Subquery

from webhooks_ui.domain.coverage import (
    Coverage,
    PreparedConfigurations,
    PreparedWebhook,
    cluster_coverage,
    prepare_configurations,
)
from webhooks_ui.domain.discovery import (
    ApiResource,
    ResourceTable,
    resources_from_rows,
)
from webhooks_ui.domain.explain import describe_selector
from webhooks_ui.domain.kinds import KINDS
from webhooks_ui.models import (
    Cluster,
    DiscoveredResource,
    Namespace,
    SyncRun,
    WebhookConfiguration,
)

# Clusters kept prepared at once; a fleet page visit touches a few at a time.
CACHE_SIZE = 16
# A covered-resource list longer than this starts folded on the page.
OPEN_RESOURCE_LIMIT = 25
_VERSION = re.compile(r"v\d+((alpha|beta)\d+)?")


# --- the cached index ----------------------------------------------------------


@dataclass
class ClusterIndex:
    """One cluster's configurations compiled in call order, its discovery
    indexed, and its namespaces: what every coverage question needs."""

    cluster_id: int
    version: tuple[Any, ...]
    prepared: PreparedConfigurations
    table: ResourceTable
    namespaces: tuple[dict[str, Any], ...]
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _coverage: list[tuple[PreparedWebhook, Coverage]] | None = field(
        default=None, repr=False
    )

    @property
    def namespace_labels(self) -> dict[str, dict[str, str]]:
        return {ns["name"]: ns["labels"] for ns in self.namespaces}

    def coverage(self) -> list[tuple[PreparedWebhook, Coverage]]:
        """Coverage of every webhook, computed once per index."""
        with self._lock:
            if self._coverage is None:
                self._coverage = cluster_coverage(
                    self.prepared, resources=self.table, namespaces=self.namespaces
                )
            return self._coverage

    def resource(self, text: str) -> ApiResource | None:
        """The served resource a user typed (see ``parse_resource``), or None."""
        key = parse_resource(text)
        if key is None:
            return None
        if key[1] == "":
            return _unique_preferred(self.table, key[2], key[3])
        return self.table.by_key.get(key)

    @property
    def resource_options(self) -> list[tuple[str, ApiResource]]:
        """(what to type, row) for every served resource, for a datalist."""
        rows = sorted(self.table.rows, key=lambda r: (r.group, r.name, r.version))
        return [(resource_label(row), row) for row in rows]


_CACHE: OrderedDict[int, ClusterIndex] = OrderedDict()
_CACHE_LOCK = threading.Lock()


def cluster_index(cluster: Cluster) -> ClusterIndex:
    """The cluster's coverage index: one query when cached and current, four
    when (re)built, however many configurations and resources it has."""
    version = _sync_state(cluster)
    with _CACHE_LOCK:
        cached = _CACHE.get(cluster.pk)
        if cached is not None and cached.version == version:
            _CACHE.move_to_end(cluster.pk)
            return cached
    index = _build_index(cluster, version)
    with _CACHE_LOCK:
        _CACHE[cluster.pk] = index
        _CACHE.move_to_end(cluster.pk)
        while len(_CACHE) > CACHE_SIZE:
            _CACHE.popitem(last=False)
    return index


def coverage_cache_clear() -> None:
    """Forget every prepared cluster (tests, and after bulk imports)."""
    with _CACHE_LOCK:
        _CACHE.clear()


def _sync_state(cluster: Cluster) -> tuple[Any, ...]:
    latest_run = SyncRun.objects.filter(cluster=OuterRef("pk")).order_by(
        "-started_at", "-pk"
    )
    configurations = (
        WebhookConfiguration.objects.filter(cluster=OuterRef("pk"))
        .order_by()
        .values("cluster")
    )
    row = (
        Cluster.objects.filter(pk=cluster.pk)
        .annotate(
            run_id=Subquery(latest_run.values("pk")[:1]),
            run_status=Subquery(latest_run.values("status")[:1]),
            changed=Subquery(
                configurations.annotate(m=Max("last_changed")).values("m")[:1]
            ),
            live=Subquery(
                configurations.annotate(
                    n=Count("pk", filter=Q(deleted_at__isnull=True))
                ).values("n")[:1]
            ),
        )
        .values_list("run_id", "run_status", "changed", "live")
        .first()
    )
    return (cluster.pk, *(row or ()))


def _build_index(cluster: Cluster, version: tuple[Any, ...]) -> ClusterIndex:
    raws = WebhookConfiguration.objects.filter(
        cluster=cluster, deleted_at__isnull=True, kind__in=KINDS
    ).values_list("raw", flat=True)
    prepared = prepare_configurations(
        raw for raw in raws if isinstance(raw, dict) and raw.get("kind") in KINDS
    )
    rows = DiscoveredResource.objects.filter(cluster=cluster).values(
        "group",
        "version",
        "resource",
        "subresource",
        "kind",
        "namespaced",
        "verbs",
        "preferred",
    )
    table = ResourceTable.build(resources_from_rows(list(rows)))
    namespaces = tuple(
        {"name": name, "labels": labels if isinstance(labels, dict) else {}}
        for name, labels in Namespace.objects.filter(cluster=cluster)
        .order_by("name")
        .values_list("name", "labels")
    )
    return ClusterIndex(cluster.pk, version, prepared, table, namespaces)


# --- resources as people type them ---------------------------------------------


def resource_label(row: ApiResource) -> str:
    """``v1/pods``, ``apps/v1/deployments/scale``: what the explorer accepts."""
    prefix = f"{row.group}/{row.version}" if row.group else row.version
    return f"{prefix}/{row.name}"


def parse_resource(text: str) -> tuple[str, str, str, str] | None:
    """(group, version, resource, subresource) from ``v1/pods``,
    ``core/v1/pods``, ``apps/v1/deployments/scale``; a bare ``pods`` or
    ``pods/exec`` gives version "" (the preferred version is looked up)."""
    parts = text.strip().split("/")
    if not parts or not all(parts):
        return None
    if parts[0] == "core" and len(parts) > 2:
        parts = parts[1:]
    if len(parts) <= 2 and not _VERSION.fullmatch(parts[0]):
        return ("", "", parts[0], parts[1] if len(parts) == 2 else "")
    if _VERSION.fullmatch(parts[0]):
        group, rest = "", parts
    else:
        group, rest = parts[0], parts[1:]
    if len(rest) not in (2, 3):
        return None
    return (group, rest[0], rest[1], rest[2] if len(rest) == 3 else "")


def _unique_preferred(
    table: ResourceTable, resource: str, subresource: str
) -> ApiResource | None:
    found = [
        row
        for row in table.rows
        if row.resource == resource and row.subresource == subresource
    ]
    preferred = [row for row in found if row.preferred] or found
    return preferred[0] if len({row.group for row in preferred}) == 1 else None


# --- the configuration page's Coverage tab -------------------------------------


@dataclass(frozen=True)
class WebhookCoverageCard:
    """What one webhook of the configuration intercepts on its cluster."""

    index: int
    name: str
    anchor: str
    failure_policy: str
    coverage: Coverage
    namespace_selector: str
    object_selector: str
    match_conditions: tuple[Mapping[str, Any], ...]

    @property
    def resources_open(self) -> bool:
        return len(self.coverage.resources) <= OPEN_RESOURCE_LIMIT


@dataclass(frozen=True)
class CoverageTab:
    cards: tuple[WebhookCoverageCard, ...]
    resource_count: int
    namespace_count: int
    synced: bool


def configuration_coverage_build(*, configuration: WebhookConfiguration) -> CoverageTab:
    """Each webhook's coverage against the cluster's discovery and namespaces."""
    index = cluster_index(configuration.cluster)
    raw = configuration.raw if isinstance(configuration.raw, dict) else {}
    prepared = prepare_configurations([raw]) if raw.get("kind") in KINDS else None
    results = (
        cluster_coverage(prepared, resources=index.table, namespaces=index.namespaces)
        if prepared
        else []
    )
    cards = tuple(_card(hook, coverage) for hook, coverage in results)
    return CoverageTab(
        cards=cards,
        resource_count=len(index.table.rows),
        namespace_count=len(index.namespaces),
        synced=index.version[1] is not None,
    )


def _card(hook: PreparedWebhook, coverage: Coverage) -> WebhookCoverageCard:
    conditions = hook.webhook.get("matchConditions")
    return WebhookCoverageCard(
        index=hook.index,
        name=hook.name,
        anchor=f"webhook-{hook.index}",
        failure_policy=hook.failure_policy,
        coverage=coverage,
        namespace_selector=_selector_text(
            hook.webhook.get("namespaceSelector"), "namespaces"
        ),
        object_selector=_selector_text(hook.webhook.get("objectSelector"), "objects"),
        match_conditions=tuple(
            c for c in (conditions if isinstance(conditions, list) else ()) if c
        ),
    )


def _selector_text(selector: Any, noun: str) -> str:
    return describe_selector({} if selector is None else selector, noun=noun)
