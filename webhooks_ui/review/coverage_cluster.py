"""Cluster-wide coverage: per served resource, how many webhooks intercept it
and how many of those fail closed; system namespaces and high-impact
resources called out, because a fail-closed webhook there can stall the
control plane when its backend is down."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from webhooks_ui.domain.coverage import Coverage, CoveredResource, PreparedWebhook
from webhooks_ui.domain.discovery import OPERATION_ORDER, ApiResource
from webhooks_ui.models import Cluster
from webhooks_ui.review.coverage import cluster_index, resource_label

SYSTEM_NAMESPACES = ("kube-system", "kube-public", "kube-node-lease")

# (group, resource, namespace or "" for anywhere, why it matters)
HIGH_IMPACT: tuple[tuple[str, str, str, str], ...] = (
    (
        "",
        "pods",
        "",
        "Every workload starts as a pod; a fail-closed webhook that is down "
        "blocks all pod creation, including its own backend's pods.",
    ),
    (
        "",
        "namespaces",
        "",
        "Namespace creation and deletion; a stuck webhook blocks onboarding "
        "and namespace clean-up.",
    ),
    (
        "",
        "nodes",
        "",
        "Kubelets update their Node objects; failures here can mark nodes "
        "NotReady and trigger evictions.",
    ),
    (
        "coordination.k8s.io",
        "leases",
        "",
        "Node heartbeats (kube-node-lease) and leader election of controllers "
        "and schedulers use leases; blocking them stalls the control plane.",
    ),
    (
        "authentication.k8s.io",
        "tokenreviews",
        "",
        "Every authenticated request may create one; virtual review resources "
        "are no longer sent to webhooks, but older clusters do send them.",
    ),
    (
        "authorization.k8s.io",
        "subjectaccessreviews",
        "",
        "Authorization checks of aggregated API servers and kubelets; virtual, "
        "excluded from webhooks on current clusters.",
    ),
    (
        "apiextensions.k8s.io",
        "customresourcedefinitions",
        "",
        "Operators install and upgrade their CRDs; a failure blocks whole "
        "products from upgrading.",
    ),
    (
        "",
        "configmaps",
        "kube-system",
        "Control-plane components keep configuration (and some leader "
        "election) in kube-system configmaps.",
    ),
    (
        "",
        "secrets",
        "kube-system",
        "Bootstrap tokens and service account credentials of system "
        "components live in kube-system secrets.",
    ),
)

SORTS = {
    "count": ("webhooks", True),
    "fail_closed": ("fail closed", True),
    "resource": ("resource", False),
}


@dataclass(frozen=True)
class Interceptor:
    """A webhook, as the cluster view links to it."""

    configuration_kind: str
    configuration_name: str
    index: int
    name: str
    failure_policy: str
    operations: tuple[str, ...]
    # "objectSelector", "matchConditions" or both: what may narrow it further.
    narrowed: str = ""

    @property
    def fails_closed(self) -> bool:
        return self.failure_policy == "Fail"


@dataclass(frozen=True)
class ResourceRow:
    resource: ApiResource
    label: str
    interceptors: tuple[Interceptor, ...]
    operation: str  # the operation the explorer link asks about

    @property
    def count(self) -> int:
        return len(self.interceptors)

    @property
    def fail_closed(self) -> int:
        return sum(1 for i in self.interceptors if i.fails_closed)


@dataclass(frozen=True)
class Highlight:
    """A system namespace or high-impact resource, with who can intercept it."""

    title: str
    explanation: str
    interceptors: tuple[Interceptor, ...]
    resource_label: str
    operation: str
    namespace: str
    exempt: int = 0
    synced: bool = True

    @property
    def fail_closed(self) -> int:
        return sum(1 for i in self.interceptors if i.fails_closed)

    @property
    def status(self) -> str:
        if not self.interceptors:
            return "clear"
        return "at risk" if self.fail_closed else "intercepted"


@dataclass(frozen=True)
class ClusterCoveragePage:
    cluster: Cluster
    rows: tuple[ResourceRow, ...]
    system_namespaces: tuple[Highlight, ...]
    high_impact: tuple[Highlight, ...]
    webhook_count: int
    sort: str
    intercepted_count: int
    default_namespace: str


def cluster_coverage_build(*, cluster: Cluster, sort: str = "") -> ClusterCoveragePage:
    """Counts per resource (sorted by ``sort``), and the highlights; a constant
    number of queries whatever the cluster's size (``cluster_index``)."""
    index = cluster_index(cluster)
    results = index.coverage()
    namespaces = {ns["name"] for ns in index.namespaces}
    default_ns = "default" if "default" in namespaces else min(namespaces, default="")
    by_key: dict[tuple[str, str, str, str], list[Interceptor]] = {}
    for hook, coverage in results:
        for covered in coverage.resources:
            by_key.setdefault(_key(covered), []).append(
                _interceptor(hook, covered, coverage)
            )
    rows = [_row(row, tuple(by_key.get(row.key, ()))) for row in index.table.rows]
    sort = sort if sort.lstrip("-") in SORTS else "count"
    rows = _sorted(rows, sort)
    return ClusterCoveragePage(
        cluster=cluster,
        rows=tuple(rows),
        system_namespaces=tuple(
            _system_namespace(name, results, namespaces) for name in SYSTEM_NAMESPACES
        ),
        high_impact=tuple(
            _high_impact(spec, results, index.table.rows, default_ns)
            for spec in HIGH_IMPACT
        ),
        webhook_count=len(results),
        sort=sort,
        intercepted_count=sum(1 for row in rows if row.interceptors),
        default_namespace=default_ns,
    )


def _key(covered: CoveredResource) -> tuple[str, str, str, str]:
    return (covered.group, covered.version, covered.resource, covered.subresource)


def _interceptor(
    hook: PreparedWebhook, covered: CoveredResource, coverage: Coverage
) -> Interceptor:
    narrowed = [
        name
        for name, narrows in (
            ("objectSelector", coverage.object_selector_narrows),
            ("matchConditions", coverage.match_conditions_narrow),
        )
        if narrows
    ]
    return Interceptor(
        configuration_kind=hook.configuration_kind,
        configuration_name=hook.configuration_name,
        index=hook.index,
        name=hook.name,
        failure_policy=hook.failure_policy,
        operations=covered.operations,
        narrowed=" and ".join(narrowed),
    )


def _row(row: ApiResource, interceptors: tuple[Interceptor, ...]) -> ResourceRow:
    operations = {op for i in interceptors for op in i.operations}
    chosen = next(
        (op for op in OPERATION_ORDER if op in operations),
        (row.operations or OPERATION_ORDER)[0],
    )
    return ResourceRow(row, resource_label(row), interceptors, chosen)


def _sorted(rows: list[ResourceRow], sort: str) -> list[ResourceRow]:
    field = sort.lstrip("-")
    descending = SORTS[field][1] != sort.startswith("-")
    by_name = sorted(rows, key=lambda r: r.label)
    if field == "resource":
        return list(reversed(by_name)) if sort.startswith("-") else by_name
    value = (lambda r: r.count) if field == "count" else (lambda r: r.fail_closed)
    return sorted(by_name, key=value, reverse=descending)


def _system_namespace(
    name: str, results: Sequence[tuple[PreparedWebhook, Coverage]], known: set[str]
) -> Highlight:
    interceptors = tuple(
        _interceptor(hook, covered, coverage)
        for hook, coverage in results
        if name in coverage.selected_namespaces
        for covered in coverage.resources
        if covered.group == ""
        and covered.resource == "pods"
        and not covered.subresource
    )
    return Highlight(
        title=name,
        explanation=(
            "Pods of the control plane and node agents run here; a fail-closed "
            "webhook that intercepts them can keep them from restarting while "
            "its own backend is down."
        ),
        interceptors=_unique(interceptors),
        resource_label="v1/pods",
        operation="CREATE",
        namespace=name,
        synced=name in known,
    )


def _high_impact(
    spec: tuple[str, str, str, str],
    results: Sequence[tuple[PreparedWebhook, Coverage]],
    served: Sequence[ApiResource],
    default_ns: str,
) -> Highlight:
    group, resource, namespace, why = spec
    interceptors = []
    exempt = 0
    for hook, coverage in results:
        if namespace and namespace not in coverage.selected_namespaces:
            continue
        for covered in coverage.resources:
            if (covered.group, covered.resource, covered.subresource) == (
                group,
                resource,
                "",
            ):
                interceptors.append(_interceptor(hook, covered, coverage))
        if any((r.group, r.resource) == (group, resource) for r in coverage.exempt):
            exempt += 1
    rows = [
        r
        for r in served
        if (r.group, r.resource, r.subresource) == (group, resource, "")
    ]
    row = next((r for r in rows if r.preferred), rows[0] if rows else None)
    label = resource_label(row) if row else ""
    title = resource if not namespace else f"{resource} in {namespace}"
    if row and row.namespaced and not namespace:
        namespace = default_ns
    unique = _unique(tuple(interceptors))
    operations = {op for i in unique for op in i.operations}
    operation = next((op for op in OPERATION_ORDER if op in operations), "CREATE")
    return Highlight(
        title=title,
        explanation=why,
        interceptors=unique,
        resource_label=label,
        operation=operation,
        namespace=namespace,
        exempt=exempt,
        synced=row is not None,
    )


def _unique(interceptors: tuple[Interceptor, ...]) -> tuple[Interceptor, ...]:
    """One entry per webhook (a webhook covers several versions of a resource)."""
    seen: dict[tuple[str, str, int], Interceptor] = {}
    for interceptor in interceptors:
        key = (
            interceptor.configuration_kind,
            interceptor.configuration_name,
            interceptor.index,
        )
        seen.setdefault(key, interceptor)
    return tuple(seen.values())
