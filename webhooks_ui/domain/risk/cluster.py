"""Risk checks on everything one cluster runs, with its synced state.

Adds what a manifest cannot tell: whether the webhook's Service exists and
has ready endpoints, which namespaces really exist with which labels, and the
timeout budget across all configurations that intercept the same request.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from webhooks_ui.domain.risk import registry as ids
from webhooks_ui.domain.risk.budget import check_timeout_budget
from webhooks_ui.domain.risk.configuration import webhook_findings
from webhooks_ui.domain.risk.context import WebhookView, webhook_views
from webhooks_ui.domain.risk.model import (
    CRITICAL,
    DEFAULT_SETTINGS,
    WARNING,
    Finding,
    RiskSettings,
    ServiceState,
    sort_key,
)
from webhooks_ui.domain.risk.samples import (
    Environment,
    Matcher,
    Sample,
    critical_samples,
    pod_sample,
    rule_samples,
    system_namespaces,
)


def check_cluster(
    configurations: Iterable[Mapping[str, Any]],
    *,
    services: Mapping[tuple[str, str], ServiceState] | None,
    namespaces: Iterable[tuple[str, Mapping[str, str]]],
    now: datetime,
    settings: RiskSettings = DEFAULT_SETTINGS,
) -> list[Finding]:
    """Findings for the configurations stored on one cluster.

    ``services`` holds every synced Service by (namespace, name): a key that
    is absent means the Service does not exist. Pass None when services were
    not synced, to skip the Service checks. ``namespaces`` are the cluster's
    namespaces with their labels.
    """
    environment = Environment(
        namespaces={name: dict(labels or {}) for name, labels in namespaces},
        live=True,
    )
    matcher = Matcher()
    views = [view for obj in configurations for view in webhook_views(obj)]
    findings = webhook_findings(
        views, now=now, settings=settings, environment=environment, matcher=matcher
    )
    if services is not None:
        for view in views:
            findings.extend(check_service(view, services))
    samples, similar = _budget_samples(views, settings, environment)
    findings.extend(
        check_timeout_budget(
            views, samples, settings=settings, matcher=matcher, similar=similar
        )
    )
    return sorted(findings, key=sort_key)


def check_service(
    view: WebhookView, services: Mapping[tuple[str, str], ServiceState]
) -> list[Finding]:
    service = view.service
    if service is None or not view.rules:
        return []  # no rules: never called, so nothing waits on the service
    namespace, name = service
    state = services.get(service)
    severity = CRITICAL if view.fails_closed else WARNING
    if view.fails_closed:
        outcome = "every request it matches is rejected"
    else:
        outcome = "every request it matches skips the webhook's checks"
    field = view.field("clientConfig.service")
    if state is None or not state.exists:
        return [
            view.finding(
                ids.SERVICE_MISSING,
                severity,
                field,
                f"Service {namespace}/{name} does not exist, so every call fails and "
                f"{outcome}.",
                f"Reinstall the webhook's Service {namespace}/{name}, or delete this "
                "configuration if the webhook was uninstalled.",
            )
        ]
    if state.ready_endpoints == 0:
        return [
            view.finding(
                ids.SERVICE_NO_READY_ENDPOINTS,
                severity,
                field,
                f"Service {namespace}/{name} has no ready endpoints, so every call "
                f"fails and {outcome}.",
                f"Get the pods behind {namespace}/{name} running and ready (kubectl "
                f"-n {namespace} get endpointslices,pods), or set failurePolicy: "
                "Ignore while they are down.",
            )
        ]
    return []


def _budget_samples(
    views: list[WebhookView], settings: RiskSettings, environment: Environment
) -> tuple[list[Sample], dict[str, int]]:
    """Critical requests, pod writes per namespace, and requests from the rules.

    Namespaces that every namespaceSelector sees alike are matched
    identically, so one of each such group is probed (a cluster has hundreds
    of namespaces and a few selectors).
    """
    known = environment.namespaces or {}
    samples = critical_samples(
        (*settings.system_namespace_requests, *settings.critical_resource_requests),
        namespaces=system_namespaces(settings, environment),
        environment=environment,
    )
    selector_values = _selector_values(views)
    groups: dict[tuple[tuple[str, str | None], ...], list[str]] = {}
    for name in sorted(known):
        projection = _projection(known[name], selector_values)
        groups.setdefault(projection, []).append(name)
    similar: dict[str, int] = {}
    for names in groups.values():
        for operation in ("CREATE", "UPDATE"):
            sample = pod_sample(operation, names[0], known[names[0]])
            samples.append(sample)
            similar[sample.label] = len(names)
    user = "default" if "default" in known else next(iter(sorted(known)), None)
    if user is not None:
        samples.extend(rule_samples(views, namespace=user, labels=known[user]))
    return samples, similar


def _selector_values(views: list[WebhookView]) -> dict[str, frozenset[str]]:
    """For each label key any namespaceSelector reads, the values it names."""
    values: dict[str, set[str]] = {}
    for view in views:
        selector = view.selector("namespaceSelector") or {}
        labels = selector.get("matchLabels")
        if isinstance(labels, Mapping):
            for key, value in labels.items():
                values.setdefault(str(key), set()).add(str(value))
        expressions = selector.get("matchExpressions")
        if not isinstance(expressions, list):
            continue
        for expression in expressions:
            if not isinstance(expression, Mapping) or expression.get("key") is None:
                continue
            named = values.setdefault(str(expression["key"]), set())
            listed = expression.get("values")
            if isinstance(listed, list):
                named.update(str(value) for value in listed)
    return {key: frozenset(named) for key, named in values.items()}


def _projection(
    labels: Mapping[str, str], selector_values: Mapping[str, frozenset[str]]
) -> tuple[tuple[str, str | None], ...]:
    """What every namespaceSelector can see of ``labels``: a value no selector
    names only matters as "present" (Exists, NotIn), so it becomes a marker."""
    projected = []
    for key in sorted(selector_values):
        value = labels.get(key)
        if value is not None and value not in selector_values[key]:
            value = "<other>"  # not a legal label value, so no clash
        projected.append((key, value))
    return tuple(projected)
