"""Risky drift of the same configuration between clusters and environments.

Only differences that change what happens when a webhook fails, or what it
sees, are reported, so the list stays short:

* failurePolicy Fail on some clusters and Ignore on others (warning): the
  fail-closed outage mode is never exercised where it is Ignore;
* a webhook present on some clusters of a configuration and not others
  (warning): e.g. a policy that runs in prod only was never tested;
* timeouts differing by a factor of ``fleet_timeout_ratio`` or more (info);
* different rules, selectors or matchConditions (info).

caBundle, service placement and metadata differ per cluster by design and
are ignored. A configuration that only some clusters have is not drift (add-ons
differ per cluster); only webhooks inside a shared configuration are compared.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from webhooks_ui.domain.risk import registry as ids
from webhooks_ui.domain.risk.context import WebhookView, webhook_views
from webhooks_ui.domain.risk.model import (
    DEFAULT_SETTINGS,
    INFO,
    WARNING,
    Finding,
    RiskSettings,
    sort_key,
)

_MATCHING_FIELDS = ("rules", "namespaceSelector", "objectSelector", "matchConditions")


def check_fleet(
    by_cluster: Mapping[str, tuple[str, list[Mapping[str, Any]]]],
    *,
    settings: RiskSettings = DEFAULT_SETTINGS,
) -> list[Finding]:
    """Drift findings; ``by_cluster`` maps cluster name to (environment, objects)."""
    # configuration label -> cluster -> webhook name -> view
    index: dict[str, dict[str, dict[str, WebhookView]]] = {}
    environments: dict[str, str] = {}
    for cluster in sorted(by_cluster):
        environment, objects = by_cluster[cluster]
        environments[cluster] = environment
        for obj in objects:
            for view in webhook_views(obj):
                if view.name is None:
                    continue
                per_cluster = index.setdefault(view.configuration, {})
                per_cluster.setdefault(cluster, {})[view.name] = view
    findings: list[Finding] = []
    for per_cluster in index.values():
        if len(per_cluster) < 2:
            continue
        names = sorted({name for hooks in per_cluster.values() for name in hooks})
        for name in names:
            present = {
                cluster: hooks[name]
                for cluster, hooks in per_cluster.items()
                if name in hooks
            }
            absent = sorted(set(per_cluster) - set(present))
            findings.extend(_drift(present, absent, environments, settings))
    return sorted(findings, key=sort_key)


def _drift(
    present: dict[str, WebhookView],
    absent: list[str],
    environments: Mapping[str, str],
    settings: RiskSettings,
) -> list[Finding]:
    anchor = present[min(present)]
    findings = []

    def where(clusters: list[str]) -> str:
        return ", ".join(f"{c} ({environments[c]})" for c in sorted(clusters))

    if absent:
        findings.append(
            anchor.finding(
                ids.CROSS_CLUSTER_RISKY_DRIFT,
                WARNING,
                anchor.path,
                f"This webhook runs on {where(list(present))} but not on "
                f"{where(absent)}, so those clusters never test what the others "
                "enforce.",
                "Roll the webhook out to every cluster of the configuration "
                "(through the same release), or remove it where it should not run.",
                [f"missing on: {where(absent)}"],
            )
        )
    policies = {c: str(v.webhook.get("failurePolicy")) for c, v in present.items()}
    if {"Fail", "Ignore"} <= set(policies.values()):
        closed = [c for c, p in policies.items() if p == "Fail"]
        opened = [c for c, p in policies.items() if p == "Ignore"]
        findings.append(
            anchor.finding(
                ids.CROSS_CLUSTER_RISKY_DRIFT,
                WARNING,
                anchor.field("failurePolicy"),
                f"failurePolicy is Fail on {where(closed)} but Ignore on "
                f"{where(opened)}, so the outage a down webhook causes where it "
                "fails closed is never seen where it fails open.",
                "Use the same failurePolicy everywhere; if it must fail closed in "
                "production, make it fail closed in staging too.",
                _values(present, "failurePolicy", environments),
            )
        )
    timeouts = {c: v.timeout for c, v in present.items()}
    if max(timeouts.values()) >= settings.fleet_timeout_ratio * min(timeouts.values()):
        findings.append(
            anchor.finding(
                ids.CROSS_CLUSTER_RISKY_DRIFT,
                INFO,
                anchor.field("timeoutSeconds"),
                f"timeoutSeconds ranges from {min(timeouts.values())} s to "
                f"{max(timeouts.values())} s between clusters, so a slow webhook "
                "hurts some clusters far more than the ones it was tested on.",
                "Use the same timeoutSeconds on every cluster.",
                _values(present, "timeoutSeconds", environments),
            )
        )
    for field in _MATCHING_FIELDS:
        shapes = {c: _canonical(v.webhook.get(field)) for c, v in present.items()}
        if len(set(shapes.values())) > 1:
            findings.append(
                anchor.finding(
                    ids.CROSS_CLUSTER_RISKY_DRIFT,
                    INFO,
                    anchor.field(field),
                    f"{field} differs between clusters, so the webhook intercepts "
                    "different requests in different environments.",
                    f"Make {field} the same on every cluster, or document why it "
                    "differs.",
                    _values(present, field, environments),
                )
            )
    return findings


def _values(
    present: dict[str, WebhookView], field: str, environments: Mapping[str, str]
) -> list[str]:
    return [
        f"{cluster} ({environments[cluster]}): {_canonical(view.webhook.get(field))}"
        for cluster, view in sorted(present.items())
    ]


def _canonical(value: Any) -> str:
    # Defaulted values, keys sorted: formatting and defaults are not drift.
    if value is None or value == []:
        return "none"
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
