"""Timeout budget: how long one request can wait in admission, worst case.

The apiserver calls mutating webhooks one after another (and, with
reinvocationPolicy IfNeeded, may call them a second time) and validating
webhooks in parallel. So the worst-case wait is the sum of the mutating
timeouts, plus the reinvoked ones, plus the largest validating timeout. Every
called webhook counts, whatever its failurePolicy: a fail-open webhook that
hangs still holds the request for its full timeout before it is skipped.
This deliberately refines the issue's "sum of fail-closed timeouts", which
overstates parallel validating webhooks and ignores hanging fail-open ones.

When the worst case exceeds the apiserver's request timeout (60 s by
default) the request times out before admission completes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from webhooks_ui.domain.risk import registry as ids
from webhooks_ui.domain.risk.context import WebhookView
from webhooks_ui.domain.risk.model import WARNING, Finding, RiskSettings
from webhooks_ui.domain.risk.samples import Matcher, Sample

_MAX_LISTED = 5


def worst_case_seconds(called: list[WebhookView]) -> int:
    """Worst-case admission time for a request that calls ``called``."""
    mutating = [view for view in called if view.mutating]
    validating = [view for view in called if not view.mutating]
    total = sum(view.timeout for view in mutating)
    if len(mutating) > 1:
        # Reinvocation happens at most once, for IfNeeded webhooks only.
        total += sum(
            view.timeout
            for view in mutating
            if view.webhook.get("reinvocationPolicy") == "IfNeeded"
        )
    return total + max((view.timeout for view in validating), default=0)


def check_timeout_budget(
    views: list[WebhookView],
    samples: Iterable[Sample],
    *,
    settings: RiskSettings,
    matcher: Matcher,
    similar: Mapping[str, int] | None = None,
) -> list[Finding]:
    """One finding per set of webhooks that together exceed the budget.

    ``similar``: for a sample standing for several namespaces (same relevant
    labels), how many it stands for, keyed by the sample's label.
    """
    budget = settings.request_budget_seconds
    # Group requests by the exact webhooks they hit: one finding per group.
    groups: dict[tuple[tuple[str, int], ...], tuple[list[WebhookView], list[str]]] = {}
    for sample in samples:
        called = [view for view in views if matcher.intercepts(view, sample)]
        if len(called) < 2 or worst_case_seconds(called) <= budget:
            continue
        key = tuple((view.configuration, view.index) for view in called)
        label = sample.label
        count = (similar or {}).get(label, 1)
        if count > 1:
            label += f" (and {count - 1} namespaces with the same labels)"
        groups.setdefault(key, (called, []))[1].append(label)
    findings = []
    for called, labels in groups.values():
        total = worst_case_seconds(called)
        anchor = max(called, key=lambda view: view.timeout)
        contributions = [
            f"{view.configuration} {view.name or view.path}: {view.timeout} s "
            f"({'mutating' if view.mutating else 'validating'}, "
            f"{view.webhook.get('failurePolicy')})"
            for view in called
        ]
        shown = labels[:_MAX_LISTED]
        if len(labels) > _MAX_LISTED:
            shown.append(f"... and {len(labels) - _MAX_LISTED} more requests")
        findings.append(
            anchor.finding(
                ids.TIMEOUT_BUDGET,
                WARNING,
                anchor.field("timeoutSeconds"),
                f"When these {len(called)} webhooks are slow, {labels[0]} can wait "
                f"up to {total} s in admission, more than the apiserver's {budget} s "
                "request timeout, so the client gets a timeout instead of an answer.",
                "Lower timeoutSeconds of these webhooks (mutating ones add up, "
                "validating ones run in parallel) or narrow their rules or "
                "selectors so fewer of them see the same request.",
                [*contributions, *(f"request: {label}" for label in shown)],
            )
        )
    return findings
