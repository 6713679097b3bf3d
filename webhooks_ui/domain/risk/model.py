"""What a risk check reports, the settings the checks read, and the check registry.

A finding is a sentence a platform engineer can act on at 3 a.m.: which
webhook, which field, what goes wrong, and what to change. Check ids are
stable (kebab-case) because CI pipelines select them with ``--fail-on`` and
people silence them by id.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CRITICAL = "critical"
WARNING = "warning"
INFO = "info"
SEVERITIES = (CRITICAL, WARNING, INFO)  # worst first
_RANK = {severity: rank for rank, severity in enumerate(SEVERITIES)}

# kube-apiserver's --request-timeout defaults to 1m0s ("the default request
# timeout for requests", kube-apiserver reference); admission, webhook calls
# included, must finish inside it or the client gets a timeout.
APISERVER_REQUEST_TIMEOUT_SECONDS = 60

# Set by the apiserver on every namespace since Kubernetes 1.21 (GA 1.22), so
# offline checks can evaluate namespaceSelectors against system namespaces.
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"


@dataclass(frozen=True)
class Finding:
    """One risk found on one webhook (or one configuration when ``webhook`` is None).

    ``configuration`` is ``Kind/name``; ``field`` is an apiserver field path
    (``webhooks[0].failurePolicy``); ``message`` says the consequence in one
    sentence and ``fix`` the concrete change; ``detail`` holds supporting facts.
    """

    check_id: str
    severity: str
    configuration: str
    webhook: str | None
    field: str
    message: str
    fix: str
    detail: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "check_id": self.check_id,
            "severity": self.severity,
            "configuration": self.configuration,
            "webhook": self.webhook,
            "field": self.field,
            "message": self.message,
            "fix": self.fix,
            "detail": list(self.detail),
        }


@dataclass(frozen=True)
class CriticalRequest:
    """A request the cluster cannot live without, used to probe webhooks.

    ``namespaced`` requests are probed in each system namespace listed in
    ``namespaces`` (empty: all of ``RiskSettings.system_namespaces`` except
    ``skip_namespaces``).
    ``severity`` is what blocking it costs: nodes going NotReady is critical,
    not being able to create a namespace is a warning.
    """

    label: str
    operation: str
    group: str
    version: str
    resource: str
    kind: str
    subresource: str = ""
    namespaced: bool = True
    namespaces: tuple[str, ...] = ()
    skip_namespaces: tuple[str, ...] = ()
    severity: str = CRITICAL
    why: str = ""


# Requests in system namespaces: blocking them stops the control plane and
# node agents from restarting or heartbeating. kube-public and
# kube-node-lease hold no pods, so pods are not probed there (a webhook that
# excludes only kube-system is fine for pods).
_NO_PODS = ("kube-public", "kube-node-lease")
DEFAULT_SYSTEM_NAMESPACE_REQUESTS: tuple[CriticalRequest, ...] = (
    CriticalRequest(
        "CREATE pods",
        "CREATE",
        "",
        "v1",
        "pods",
        "Pod",
        skip_namespaces=_NO_PODS,
        why="DNS, CNI and other system pods cannot be recreated",
    ),
    CriticalRequest(
        "UPDATE pods",
        "UPDATE",
        "",
        "v1",
        "pods",
        "Pod",
        skip_namespaces=_NO_PODS,
        severity=WARNING,
        why="system pods cannot be relabelled or adopted by their controllers",
    ),
    CriticalRequest(
        "UPDATE leases",
        "UPDATE",
        "coordination.k8s.io",
        "v1",
        "leases",
        "Lease",
        namespaces=("kube-system", "kube-node-lease"),
        why="node heartbeats and controller leader election stop",
    ),
    CriticalRequest(
        "UPDATE configmaps",
        "UPDATE",
        "",
        "v1",
        "configmaps",
        "ConfigMap",
        namespaces=("kube-system",),
        why="control-plane configuration (for example CoreDNS) cannot change",
    ),
    CriticalRequest(
        "UPDATE configmaps",
        "UPDATE",
        "",
        "v1",
        "configmaps",
        "ConfigMap",
        namespaces=("kube-public",),
        severity=WARNING,
        why="the cluster-info ConfigMap cannot be re-signed, so kubeadm nodes "
        "cannot join",
    ),
    CriticalRequest(
        "CREATE serviceaccounts/token",
        "CREATE",
        "",
        "v1",
        "serviceaccounts",
        "TokenRequest",
        subresource="token",
        namespaces=("kube-system",),
        why="system components cannot renew their service-account tokens",
    ),
)

# Cluster-scoped requests the control plane depends on.
DEFAULT_CRITICAL_RESOURCE_REQUESTS: tuple[CriticalRequest, ...] = (
    CriticalRequest(
        "CREATE nodes",
        "CREATE",
        "",
        "v1",
        "nodes",
        "Node",
        namespaced=False,
        why="new nodes cannot register",
    ),
    CriticalRequest(
        "UPDATE nodes",
        "UPDATE",
        "",
        "v1",
        "nodes",
        "Node",
        namespaced=False,
        why="nodes cannot be cordoned, labelled or tainted",
    ),
    CriticalRequest(
        "UPDATE nodes/status",
        "UPDATE",
        "",
        "v1",
        "nodes",
        "Node",
        subresource="status",
        namespaced=False,
        why="kubelets cannot report node status, so nodes go NotReady",
    ),
    CriticalRequest(
        "CREATE tokenreviews",
        "CREATE",
        "authentication.k8s.io",
        "v1",
        "tokenreviews",
        "TokenReview",
        namespaced=False,
        why="webhook token authentication (kubelets, aggregated APIs) fails",
    ),
    CriticalRequest(
        "CREATE subjectaccessreviews",
        "CREATE",
        "authorization.k8s.io",
        "v1",
        "subjectaccessreviews",
        "SubjectAccessReview",
        namespaced=False,
        why="delegated authorization (kubelets, aggregated APIs) fails",
    ),
    CriticalRequest(
        "CREATE namespaces",
        "CREATE",
        "",
        "v1",
        "namespaces",
        "Namespace",
        namespaced=False,
        severity=WARNING,
        why="no namespace can be created",
    ),
    CriticalRequest(
        "UPDATE namespaces",
        "UPDATE",
        "",
        "v1",
        "namespaces",
        "Namespace",
        namespaced=False,
        severity=WARNING,
        why="namespaces cannot be labelled, so no one can opt out of the webhook",
    ),
    CriticalRequest(
        "CREATE customresourcedefinitions",
        "CREATE",
        "apiextensions.k8s.io",
        "v1",
        "customresourcedefinitions",
        "CustomResourceDefinition",
        namespaced=False,
        severity=WARNING,
        why="operators cannot install or upgrade their CRDs",
    ),
    CriticalRequest(
        "UPDATE customresourcedefinitions",
        "UPDATE",
        "apiextensions.k8s.io",
        "v1",
        "customresourcedefinitions",
        "CustomResourceDefinition",
        namespaced=False,
        severity=WARNING,
        why="operators cannot install or upgrade their CRDs",
    ),
)


@dataclass(frozen=True)
class RiskSettings:
    """Thresholds and the lists of what counts as critical; defaults are documented."""

    expiring_days: int = 30
    # Above this a hung webhook holds every matching request that long.
    long_timeout_seconds: int = 15
    request_budget_seconds: int = APISERVER_REQUEST_TIMEOUT_SECONDS
    system_namespaces: tuple[str, ...] = (
        "kube-system",
        "kube-public",
        "kube-node-lease",
    )
    system_namespace_requests: tuple[CriticalRequest, ...] = (
        DEFAULT_SYSTEM_NAMESPACE_REQUESTS
    )
    critical_resource_requests: tuple[CriticalRequest, ...] = (
        DEFAULT_CRITICAL_RESOURCE_REQUESTS
    )
    # A CA-injected configuration still without a caBundle this long after it
    # was created means the injector is not doing its job.
    ca_injection_grace_seconds: int = 600
    # Fleet: timeouts differing by at least this factor between clusters.
    fleet_timeout_ratio: float = 2.0


DEFAULT_SETTINGS = RiskSettings()


@dataclass(frozen=True)
class ServiceState:
    """A webhook service as last synced: whether it exists, and its ready endpoints.

    ``ready_endpoints`` None means the endpointslices were not synced (unknown).
    """

    exists: bool
    ready_endpoints: int | None = None


@dataclass(frozen=True)
class CheckInfo:
    """A check as listed by the UI, the API and ``check_webhooks --fail-on``.

    ``scope``: "configuration" (works offline on a manifest), "cluster" (needs
    synced cluster state) or "fleet" (compares clusters).
    """

    check_id: str
    title: str
    default_severity: str
    scope: str
    description: str = field(default="", compare=False)


def severity_at_least(severity: str, threshold: str) -> bool:
    """True when ``severity`` is as bad as ``threshold`` or worse."""
    return _RANK[severity] <= _RANK[threshold]


def worst(severities: list[str] | tuple[str, ...]) -> str:
    """The worst of ``severities`` (INFO for none)."""
    return min(severities, key=_RANK.__getitem__, default=INFO)


def milder(severity: str) -> str:
    """One step milder: used when something we cannot evaluate may narrow a match."""
    return SEVERITIES[min(_RANK[severity] + 1, len(SEVERITIES) - 1)]


def sort_key(finding: Finding) -> tuple[int, str, str, str, str]:
    """Worst first, then by configuration, webhook, field and check id."""
    return (
        _RANK[finding.severity],
        finding.configuration,
        finding.webhook or "",
        finding.field,
        finding.check_id,
    )
