"""Representative admission requests, and asking the matcher about them.

A risk check never re-implements rule or selector matching: it builds the
request that would hurt (CREATE of a pod in kube-system, UPDATE of a node's
status, ...) and asks ``matching`` whether the webhook would be called.

Assumptions, chosen so a finding means "this really happens":

* Objects carry no labels (``{}``): a webhook that only acts on opted-in
  objects (an ``In``/``Exists`` objectSelector) is not counted, one that
  only skips opted-out objects (``NotIn``/``DoesNotExist``) is.
* Namespaces carry the labels the environment knows; offline that is only
  ``kubernetes.io/metadata.name``, which the apiserver sets on every
  namespace since 1.21.
* matchConditions are not evaluated (they need the object): a webhook with
  matchConditions is counted as matching, and findings about it say so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from webhooks_ui.domain.matching import (
    Attributes,
    CompiledWebhook,
    compile_webhook,
    evaluate,
    read_request,
)
from webhooks_ui.domain.risk.context import WebhookView, strings
from webhooks_ui.domain.risk.model import (
    NAMESPACE_NAME_LABEL,
    CriticalRequest,
    RiskSettings,
)

# Resources whose requests carry no namespace, for requests built from rules.
_CLUSTER_SCOPED = frozenset(
    {
        "namespaces",
        "nodes",
        "persistentvolumes",
        "clusterroles",
        "clusterrolebindings",
        "customresourcedefinitions",
        "storageclasses",
        "priorityclasses",
        "ingressclasses",
        "runtimeclasses",
        "csidrivers",
        "csinodes",
        "apiservices",
        "certificatesigningrequests",
        "volumeattachments",
    }
)
# Stand-ins for a wildcard in a rule, so a request built from "*" still
# matches only other webhooks that also use a wildcard there.
_ANY_GROUP = "example.invalid"
_ANY_VERSION = "v1"
_ANY_RESOURCE = "anyresources"
# The name probed for "can a namespace be created at all".
NEW_NAMESPACE = "new-namespace"


@dataclass(frozen=True)
class Sample:
    """A request with a human label (``CREATE pods in kube-system``)."""

    label: str
    attributes: Attributes
    severity: str = "critical"
    why: str = ""
    # The M-2 review resources: probed as on clusters before 1.37.
    include_virtual: bool = False
    namespace: str = ""
    key: tuple[Any, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Environment:
    """What is known about the cluster's namespaces.

    ``namespaces`` None: offline, every namespace exists and carries only the
    well-known name label. ``live``: the objects are as stored on a cluster.
    """

    namespaces: Mapping[str, Mapping[str, str]] | None = None
    live: bool = False

    def namespace_labels(self, name: str) -> Mapping[str, str] | None:
        if self.namespaces is None:
            return {NAMESPACE_NAME_LABEL: name}
        return self.namespaces.get(name)


OFFLINE = Environment()


def request(
    *,
    operation: str,
    group: str,
    version: str,
    resource: str,
    kind: str,
    subresource: str = "",
    namespace: str = "",
    name: str = "",
    namespace_labels: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """A request dict for ``matching``, with unlabelled objects (see module doc)."""
    new = {} if operation in ("CREATE", "UPDATE") else None
    old = {} if operation in ("UPDATE", "DELETE") else None
    if operation == "CONNECT":
        new = old = None
    if resource == "namespaces" and subresource == "" and new is not None:
        # M-4: a namespace write is judged by its own new labels.
        new = dict(namespace_labels or {})
    return {
        "operation": operation,
        "group": group,
        "version": version,
        "resource": resource,
        "subresource": subresource,
        "kind": kind,
        "name": name,
        "namespace": namespace,
        "cluster_scoped": not namespace,
        "namespace_labels": namespace_labels,
        "object_labels": new,
        "old_object_labels": old,
    }


def critical_samples(
    critical: Iterable[CriticalRequest],
    *,
    namespaces: Iterable[str],
    environment: Environment,
) -> list[Sample]:
    """The given critical requests, namespaced ones once per namespace."""
    samples = []
    namespaces = list(namespaces)
    for spec in critical:
        if not spec.namespaced:
            samples.extend(_cluster_scoped_samples(spec, namespaces, environment))
            continue
        for namespace in spec.namespaces or namespaces:
            if namespace not in namespaces or namespace in spec.skip_namespaces:
                continue
            labels = environment.namespace_labels(namespace)
            if labels is None:
                continue  # not on this cluster: nothing to block
            attributes = read_request(
                request(
                    operation=spec.operation,
                    group=spec.group,
                    version=spec.version,
                    resource=spec.resource,
                    subresource=spec.subresource,
                    kind=spec.kind,
                    namespace=namespace,
                    namespace_labels=labels,
                )
            )
            samples.append(
                Sample(
                    f"{spec.label} in {namespace}",
                    attributes,
                    spec.severity,
                    spec.why,
                    namespace=namespace,
                )
            )
    return samples


def _cluster_scoped_samples(
    spec: CriticalRequest, namespaces: list[str], environment: Environment
) -> Iterable[Sample]:
    virtual = spec.group in ("authentication.k8s.io", "authorization.k8s.io")
    if spec.resource != "namespaces":
        attributes = read_request(
            request(
                operation=spec.operation,
                group=spec.group,
                version=spec.version,
                resource=spec.resource,
                subresource=spec.subresource,
                kind=spec.kind,
            )
        )
        yield Sample(spec.label, attributes, spec.severity, spec.why, virtual)
        return
    if spec.operation == "CREATE":
        # A new namespace carries no request namespace and is judged by its
        # own labels (M-4): the apiserver adds only the name label.
        labels = {NAMESPACE_NAME_LABEL: NEW_NAMESPACE}
        attributes = read_request(
            request(
                operation=spec.operation,
                group=spec.group,
                version=spec.version,
                resource=spec.resource,
                subresource=spec.subresource,
                kind=spec.kind,
                name=NEW_NAMESPACE,
                namespace_labels=labels,
            )
        )
        yield Sample(spec.label, attributes, spec.severity, spec.why)
        return
    # Updates of the system namespaces themselves: the request namespace is
    # the namespace's own name.
    for namespace in namespaces:
        labels = environment.namespace_labels(namespace)
        if labels is None:
            continue
        attributes = read_request(
            request(
                operation=spec.operation,
                group=spec.group,
                version=spec.version,
                resource=spec.resource,
                subresource=spec.subresource,
                kind=spec.kind,
                name=namespace,
                namespace=namespace,
                namespace_labels=labels,
            )
        )
        yield Sample(
            f"{spec.label} ({namespace})",
            attributes,
            spec.severity,
            spec.why,
            namespace=namespace,
        )


def pod_sample(
    operation: str,
    namespace: str,
    labels: Mapping[str, str] | None,
    *,
    subresource: str = "",
) -> Sample:
    """A pod request in ``namespace`` (CREATE, or CONNECT pods/exec and similar)."""
    attributes = read_request(
        request(
            operation=operation,
            group="",
            version="v1",
            resource="pods",
            subresource=subresource,
            kind="PodExecOptions" if subresource else "Pod",
            namespace=namespace,
            namespace_labels=labels,
        )
    )
    resource = f"pods/{subresource}" if subresource else "pods"
    return Sample(
        f"{operation} {resource} in {namespace}", attributes, namespace=namespace
    )


def rule_samples(
    views: Iterable[WebhookView], *, namespace: str, labels: Mapping[str, str]
) -> list[Sample]:
    """One CREATE/UPDATE (and listed DELETE) request per resource the rules name.

    Wildcards become stand-in names that only wildcard rules match, so two
    webhooks are found to overlap only where their rules really do.
    """
    seen: set[tuple[Any, ...]] = set()
    samples: list[Sample] = []
    for view in views:
        for rule in view.rules:
            operations = strings(rule.get("operations"))
            if "*" in operations:
                operations = ["CREATE", "UPDATE", "DELETE"]
            operations = [op for op in operations if op != "CONNECT"]
            groups = strings(rule.get("apiGroups"))[:1] or [_ANY_GROUP]
            versions = strings(rule.get("apiVersions"))[:1] or [_ANY_VERSION]
            group = _ANY_GROUP if groups[0] == "*" else groups[0]
            version = _ANY_VERSION if versions[0] == "*" else versions[0]
            cluster_rule = rule.get("scope") == "Cluster"
            for entry in strings(rule.get("resources")):
                resource, _, subresource = entry.partition("/")
                resource = _ANY_RESOURCE if resource == "*" else resource
                subresource = "" if subresource == "*" else subresource
                cluster = cluster_rule or resource in _CLUSTER_SCOPED
                for operation in operations:
                    key = (operation, group, version, resource, subresource, cluster)
                    if key in seen:
                        continue
                    seen.add(key)
                    attributes = read_request(
                        request(
                            operation=operation,
                            group=group,
                            version=version,
                            resource=resource,
                            subresource=subresource,
                            kind="",
                            namespace="" if cluster else namespace,
                            namespace_labels=None if cluster else labels,
                        )
                    )
                    where = "" if cluster else f" in {namespace}"
                    shown = f"{resource}/{subresource}" if subresource else resource
                    label = f"{operation} {shown} ({group or 'core'}/{version}){where}"
                    samples.append(
                        Sample(label, attributes, namespace=namespace, key=key)
                    )
    return samples


class Matcher:
    """Compiles each webhook once and answers "would it be called?"."""

    def __init__(self) -> None:
        # Keyed by id() but holding the webhook too, so an id is never reused.
        self._compiled: dict[int, tuple[Mapping[str, Any], CompiledWebhook]] = {}

    def compiled(self, view: WebhookView) -> CompiledWebhook:
        cached = self._compiled.get(id(view.webhook))
        if cached is not None and cached[0] is view.webhook:
            return cached[1]
        compiled = compile_webhook(view.webhook)
        self._compiled[id(view.webhook)] = (view.webhook, compiled)
        return compiled

    def intercepts(self, view: WebhookView, sample: Sample) -> bool:
        """True when the apiserver would call, or fail the request because of, it."""
        result = evaluate(
            self.compiled(view),
            sample.attributes,
            exclude_virtual_resources=not sample.include_virtual,
        )
        # A missing namespace or a broken selector also stops the request.
        return result.matched or result.fails_request


@dataclass(frozen=True)
class Probes:
    """The critical requests of one environment, built once per run."""

    system: tuple[Sample, ...]
    critical: tuple[Sample, ...]
    namespaces: tuple[str, ...]


def probes(settings: RiskSettings, environment: Environment) -> Probes:
    namespaces = system_namespaces(settings, environment)
    return Probes(
        system=tuple(
            critical_samples(
                settings.system_namespace_requests,
                namespaces=namespaces,
                environment=environment,
            )
        ),
        critical=tuple(
            critical_samples(
                settings.critical_resource_requests,
                namespaces=namespaces,
                environment=environment,
            )
        ),
        namespaces=tuple(namespaces),
    )


def system_namespaces(settings: RiskSettings, environment: Environment) -> list[str]:
    """The configured system namespaces that exist in ``environment``."""
    return [
        namespace
        for namespace in settings.system_namespaces
        if environment.namespace_labels(namespace) is not None
    ]
