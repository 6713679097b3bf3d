"""Risk checks on one configuration, offline: what ``check_webhooks`` runs in CI."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from webhooks_ui.domain.risk.budget import check_timeout_budget
from webhooks_ui.domain.risk.context import WebhookView, webhook_views
from webhooks_ui.domain.risk.hygiene import (
    check_long_timeout,
    check_review_versions,
    check_side_effects,
    check_url_address,
)
from webhooks_ui.domain.risk.interception import (
    check_broad,
    check_connect,
    check_critical_resources,
    check_object_selector_bypass,
    check_own_pods,
    check_reinvocation,
    check_system_namespaces,
)
from webhooks_ui.domain.risk.model import (
    DEFAULT_SETTINGS,
    NAMESPACE_NAME_LABEL,
    Finding,
    RiskSettings,
    sort_key,
)
from webhooks_ui.domain.risk.samples import (
    OFFLINE,
    Environment,
    Matcher,
    critical_samples,
    pod_sample,
    probes,
    rule_samples,
    system_namespaces,
)
from webhooks_ui.domain.risk.tls import ca_injectors, check_ca_bundle

# Offline, requests built from the rules are probed in an ordinary namespace.
_USER_NAMESPACE = "default"


def check_configuration(
    obj: Mapping[str, Any], *, now: datetime, settings: RiskSettings = DEFAULT_SETTINGS
) -> list[Finding]:
    """Findings for one webhook configuration as written in a manifest.

    Namespace selectors are judged against namespaces that carry only the
    ``kubernetes.io/metadata.name`` label; the timeout budget only counts
    this configuration's own webhooks. Anything that is not a v1 webhook
    configuration gives no findings.
    """
    views = list(webhook_views(obj))
    matcher = Matcher()
    findings = webhook_findings(
        views, now=now, settings=settings, environment=OFFLINE, matcher=matcher
    )
    labels = {NAMESPACE_NAME_LABEL: _USER_NAMESPACE}
    samples = [
        *critical_samples(
            (*settings.system_namespace_requests, *settings.critical_resource_requests),
            namespaces=system_namespaces(settings, OFFLINE),
            environment=OFFLINE,
        ),
        pod_sample("CREATE", _USER_NAMESPACE, labels),
        *rule_samples(views, namespace=_USER_NAMESPACE, labels=labels),
    ]
    findings.extend(
        check_timeout_budget(views, samples, settings=settings, matcher=matcher)
    )
    return sorted(findings, key=sort_key)


def webhook_findings(
    views: list[WebhookView],
    *,
    now: datetime,
    settings: RiskSettings,
    environment: Environment,
    matcher: Matcher,
) -> list[Finding]:
    """Every per-webhook check (all but the timeout budget and cluster state)."""
    findings: list[Finding] = []
    critical = probes(settings, environment)
    injectors_by_object: dict[int, list[str]] = {}
    for view in views:
        injectors = injectors_by_object.get(id(view.obj))
        if injectors is None:
            injectors = ca_injectors(view.obj)
            injectors_by_object[id(view.obj)] = injectors
        findings.extend(check_system_namespaces(view, probes=critical, matcher=matcher))
        findings.extend(
            check_critical_resources(view, probes=critical, matcher=matcher)
        )
        findings.extend(check_own_pods(view, environment=environment, matcher=matcher))
        findings.extend(check_connect(view, environment=environment, matcher=matcher))
        findings.extend(check_broad(view))
        findings.extend(check_reinvocation(view))
        findings.extend(check_object_selector_bypass(view))
        findings.extend(
            check_ca_bundle(
                view,
                now=now,
                settings=settings,
                environment=environment,
                injectors=injectors,
            )
        )
        findings.extend(check_side_effects(view))
        findings.extend(check_review_versions(view))
        findings.extend(check_long_timeout(view, settings))
        findings.extend(check_url_address(view))
    return findings
