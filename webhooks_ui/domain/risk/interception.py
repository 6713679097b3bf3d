"""What a webhook intercepts: lockouts, self-deadlocks, over-broad rules.

Every "would it be called" question goes to ``matching`` through the
representative requests of ``samples``; nothing here matches rules itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from webhooks_ui.domain.explain import describe_selector
from webhooks_ui.domain.risk import registry as ids
from webhooks_ui.domain.risk.context import WebhookView, is_empty_selector, strings
from webhooks_ui.domain.risk.model import (
    CRITICAL,
    INFO,
    NAMESPACE_NAME_LABEL,
    WARNING,
    Finding,
    milder,
    worst,
)
from webhooks_ui.domain.risk.samples import (
    Environment,
    Matcher,
    Probes,
    Sample,
    pod_sample,
)

_CONDITIONS_NOTE = (
    "matchConditions are not evaluated here and may exclude these requests; "
    "severity lowered one step"
)
_MAX_LISTED = 6


def check_system_namespaces(
    view: WebhookView, *, probes: Probes, matcher: Matcher
) -> list[Finding]:
    if not view.fails_closed:
        return []
    namespaces = probes.namespaces
    hits = [sample for sample in probes.system if matcher.intercepts(view, sample)]
    if not hits:
        return []
    hits.sort(key=lambda hit: hit.severity != CRITICAL)
    hit_namespaces = sorted({hit.namespace for hit in hits})
    exclusion = ", ".join(namespaces)
    return [
        _lockout(
            view,
            ids.FAIL_CLOSED_SYSTEM_NAMESPACES,
            hits,
            field=view.field("namespaceSelector"),
            message=(
                f"If this webhook is down the apiserver rejects {hits[0].label}"
                f"{_more(hits)}: {hits[0].why}"
                + (
                    ", so the cluster cannot heal itself until someone deletes "
                    "this configuration."
                    if any(hit.severity == CRITICAL for hit in hits)
                    else "."
                )
            ),
            fix=(
                f"Exclude the system namespaces with a namespaceSelector "
                f"expression {{key: {NAMESPACE_NAME_LABEL}, operator: NotIn, "
                f"values: [{exclusion}]}}, or set failurePolicy: Ignore if the "
                "webhook does not enforce security."
            ),
            extra=(f"system namespaces intercepted: {', '.join(hit_namespaces)}",),
        )
    ]


def check_critical_resources(
    view: WebhookView, *, probes: Probes, matcher: Matcher
) -> list[Finding]:
    if not view.fails_closed:
        return []
    hits = [sample for sample in probes.critical if matcher.intercepts(view, sample)]
    if not hits:
        return []
    # The worst consequence leads the sentence.
    hits.sort(key=lambda hit: hit.severity != CRITICAL)
    resources = sorted({_resource(hit) for hit in hits})
    extra: tuple[str, ...] = ()
    if any(hit.include_virtual for hit in hits):
        extra = (
            "token and access reviews are no longer sent to webhooks from "
            "Kubernetes 1.37 (ExcludeAdmissionWebhookVirtualResources); older "
            "clusters still send them",
        )
    return [
        _lockout(
            view,
            ids.FAIL_CLOSED_CRITICAL_RESOURCES,
            hits,
            field=view.field("rules"),
            message=(
                f"If this webhook is down the apiserver rejects {hits[0].label}"
                f"{_more(hits)}: {hits[0].why}."
            ),
            fix=(
                f"Narrow the rules so they no longer cover {', '.join(resources)} "
                "(or exclude them with a namespaceSelector/objectSelector), or set "
                "failurePolicy: Ignore."
            ),
            extra=extra,
        )
    ]


def check_own_pods(
    view: WebhookView, *, environment: Environment, matcher: Matcher
) -> list[Finding]:
    service = view.service
    if service is None or not view.fails_closed:
        return []
    namespace, name = service
    labels = environment.namespace_labels(namespace)
    if labels is None:
        return []  # the namespace is not there: service-missing says so
    sample = pod_sample("CREATE", namespace, labels)
    if not matcher.intercepts(view, sample):
        return []
    severity = CRITICAL
    detail = [f"would intercept: {sample.label}"]
    object_selector = view.selector("objectSelector")
    if not is_empty_selector(object_selector):
        # It matched a pod without labels, so it only has opt-outs; the
        # webhook's own pods may carry one, which we cannot see from here.
        severity = WARNING
        detail.append(
            "the objectSelector only selects "
            + describe_selector(object_selector, noun="pods")
            + "; the webhook's own pods are safe only if they are excluded by it"
        )
    if view.has_match_conditions:
        severity = milder(severity)
        detail.append(_CONDITIONS_NOTE)
    return [
        view.finding(
            ids.INTERCEPTS_OWN_PODS,
            severity,
            view.field("namespaceSelector"),
            f"When the pods behind service {namespace}/{name} go away (a rollout, a "
            "node drain) this webhook blocks creating their replacements, so it "
            "can never come back without deleting this configuration.",
            f"Exclude namespace {namespace} with a namespaceSelector expression "
            f"{{key: {NAMESPACE_NAME_LABEL}, operator: NotIn, values: "
            f"[{namespace}]}} (or exclude the webhook's own pods with an "
            "objectSelector), or set failurePolicy: Ignore.",
            detail,
        )
    ]


def check_connect(
    view: WebhookView, *, environment: Environment, matcher: Matcher
) -> list[Finding]:
    if not view.fails_closed:
        return []
    namespaces = ["default"]
    if view.service is not None:
        namespaces.append(view.service[0])
    hits: list[Sample] = []
    for namespace in dict.fromkeys(namespaces):
        labels = environment.namespace_labels(namespace)
        if labels is None:
            continue
        for subresource in ("exec", "attach"):
            sample = pod_sample("CONNECT", namespace, labels, subresource=subresource)
            if matcher.intercepts(view, sample):
                hits.append(sample)
    if not hits:
        return []
    detail = [f"would intercept: {hit.label}" for hit in hits]
    severity = WARNING
    if view.has_match_conditions:
        severity = milder(severity)
        detail.append(_CONDITIONS_NOTE)
    return [
        view.finding(
            ids.CONNECT_EXEC_FAIL_CLOSED,
            severity,
            view.field("rules"),
            "If this webhook is down nobody can kubectl exec or attach into pods, "
            "which is how people debug the outage it causes.",
            "Move the CONNECT rule into its own webhook with failurePolicy: Ignore, "
            "or drop pods/exec and pods/attach from the rules.",
            detail,
        )
    ]


def covers_everything(rule: Mapping[str, Any]) -> bool:
    """Every resource of every API group (any operations)."""
    resources = strings(rule.get("resources"))
    return "*" in strings(rule.get("apiGroups")) and any(
        resource in ("*", "*/*") for resource in resources
    )


def check_broad(view: WebhookView) -> list[Finding]:
    broad = [index for index, rule in enumerate(view.rules) if covers_everything(rule)]
    if not broad:
        return []
    narrowed = (
        not is_empty_selector(view.selector("namespaceSelector"))
        or not is_empty_selector(view.selector("objectSelector"))
        or view.has_match_conditions
    )
    if narrowed:
        return []
    policy = (
        "rejects them all when it is down"
        if view.fails_closed
        else "adds its latency to all of them"
    )
    return [
        view.finding(
            ids.BROAD_INTERCEPTION,
            WARNING if view.fails_closed else INFO,
            view.field(f"rules[{broad[0]}]"),
            "This webhook sees every write to every resource in every namespace, "
            f"system ones included, and {policy}.",
            "List only the groups and resources the webhook acts on, and exclude "
            "namespaces it does not need with a namespaceSelector.",
        )
    ]


def check_reinvocation(view: WebhookView) -> list[Finding]:
    if not view.mutating or view.webhook.get("reinvocationPolicy") != "IfNeeded":
        return []
    broad = [index for index, rule in enumerate(view.rules) if covers_everything(rule)]
    if not broad:
        return []
    return [
        view.finding(
            ids.REINVOCATION_BROAD,
            WARNING,
            view.field("reinvocationPolicy"),
            "reinvocationPolicy IfNeeded on rules that cover every resource means "
            "any later mutation re-calls this webhook, up to doubling its latency "
            "and load on every request in the cluster.",
            "Narrow the rules to what the webhook mutates, or set "
            "reinvocationPolicy: Never if it does not depend on other webhooks' "
            "changes.",
            (f"rule covering everything: {view.field(f'rules[{broad[0]}]')}",),
        )
    ]


def check_object_selector_bypass(view: WebhookView) -> list[Finding]:
    if not view.validating or not view.fails_closed:
        return []
    selector = view.selector("objectSelector")
    if selector is None or is_empty_selector(selector) or not view.rules:
        return []
    opt_out = _has_opt_out(selector)
    how = "adding" if opt_out else "removing"
    return [
        view.finding(
            ids.OBJECT_SELECTOR_BYPASS,
            # An opt-out label is an escape hatch anyone can use; an opt-in
            # selector usually marks a project's own objects.
            WARNING if opt_out else INFO,
            view.field("objectSelector"),
            f"Anyone who can edit an object's labels can escape this fail-closed "
            f"validating webhook by {how} a label (it only checks "
            f"{describe_selector(selector)}), so its policy is not enforced for "
            "them.",
            "If the webhook enforces security, select with a namespaceSelector "
            "(namespace labels are admin-controlled) or decide inside the webhook; "
            "otherwise this finding can be ignored.",
        )
    ]


def _has_opt_out(selector: Mapping[str, Any]) -> bool:
    expressions = selector.get("matchExpressions")
    if not isinstance(expressions, list):
        return False
    return any(
        isinstance(e, Mapping) and e.get("operator") in ("NotIn", "DoesNotExist")
        for e in expressions
    )


def _lockout(
    view: WebhookView,
    check_id: str,
    hits: list[Sample],
    *,
    field: str,
    message: str,
    fix: str,
    extra: tuple[str, ...] = (),
) -> Finding:
    severity = worst([hit.severity for hit in hits])
    detail = [f"would reject: {hit.label} ({hit.why})" for hit in hits[:_MAX_LISTED]]
    if len(hits) > _MAX_LISTED:
        detail.append(f"... and {len(hits) - _MAX_LISTED} more")
    detail.extend(extra)
    if view.has_match_conditions:
        severity = milder(severity)
        detail.append(_CONDITIONS_NOTE)
    return view.finding(check_id, severity, field, message, fix, detail)


def _resource(sample: Sample) -> str:
    attributes = sample.attributes
    if attributes.subresource:
        return f"{attributes.resource}/{attributes.subresource}"
    return attributes.resource


def _more(hits: list[Sample]) -> str:
    others = len(hits) - 1
    if others <= 0:
        return ""
    return f" and {others} other critical request{'s' if others > 1 else ''}"
