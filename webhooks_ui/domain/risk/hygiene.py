"""Checks on single fields: sideEffects, review versions, timeout, URL address."""

from __future__ import annotations

from webhooks_ui.domain.risk import registry as ids
from webhooks_ui.domain.risk.addresses import (
    IN_CLUSTER_NAME,
    LINK_LOCAL,
    LOCAL_NAME,
    LOOPBACK,
    PRIVATE,
    classify_host,
    url_host,
)
from webhooks_ui.domain.risk.context import WebhookView, strings
from webhooks_ui.domain.risk.model import INFO, WARNING, Finding, RiskSettings

_UNSAFE_SIDE_EFFECTS = ("Some", "Unknown")


def check_side_effects(view: WebhookView) -> list[Finding]:
    value = view.webhook.get("sideEffects")
    if value not in _UNSAFE_SIDE_EFFECTS:
        return []
    return [
        view.finding(
            ids.SIDE_EFFECTS_UNSAFE,
            WARNING,
            view.field("sideEffects"),
            f"With sideEffects {value} the apiserver rejects every dry-run request "
            "this webhook matches, so kubectl diff and apply --dry-run=server fail.",
            "Make the webhook free of side effects (or skip them when "
            "AdmissionReview.request.dryRun is true) and set sideEffects: None "
            "(or NoneOnDryRun).",
        )
    ]


def check_review_versions(view: WebhookView) -> list[Finding]:
    versions = strings(view.webhook.get("admissionReviewVersions"))
    if not versions or "v1" in versions:
        return []  # an empty list is a validation error, reported there
    return [
        view.finding(
            ids.REVIEW_VERSIONS_WITHOUT_V1,
            WARNING,
            view.field("admissionReviewVersions"),
            "The webhook only accepts admission.k8s.io/"
            f"{', '.join(versions)} AdmissionReview, deprecated since v1 went GA in "
            "Kubernetes 1.16, so an apiserver that stops sending it breaks every "
            "call.",
            "Support admission.k8s.io/v1 in the webhook and list it first: "
            'admissionReviewVersions: ["v1", "v1beta1"].',
            (f"admissionReviewVersions: {versions}",),
        )
    ]


def check_long_timeout(view: WebhookView, settings: RiskSettings) -> list[Finding]:
    timeout = view.timeout
    if timeout <= settings.long_timeout_seconds:
        return []
    if view.fails_closed:
        consequence = f"holds each matching request {timeout} s before rejecting it"
    else:
        consequence = f"delays each matching request by {timeout} s"
    # A slow webhook on its own project's custom resources hurts that project;
    # on built-in resources (pods, deployments, ...) it hurts everyone.
    severity = WARNING if view.fails_closed and _covers_builtin(view) else INFO
    return [
        view.finding(
            ids.LONG_TIMEOUT,
            severity,
            view.field("timeoutSeconds"),
            f"A hung or unreachable webhook {consequence}, which stacks up with "
            "other webhooks and client retries.",
            f"Lower timeoutSeconds to {settings.long_timeout_seconds} or less (the "
            "default is 10); a webhook should answer in well under a second.",
            (f"timeoutSeconds: {timeout}",),
        )
    ]


_BUILTIN_GROUPS = frozenset({"", "*", "apps", "batch", "policy", "autoscaling"})


def _covers_builtin(view: WebhookView) -> bool:
    """Any rule naming a Kubernetes API group (core, apps, *.k8s.io, any group)."""
    return any(
        group in _BUILTIN_GROUPS or group.endswith(".k8s.io")
        for rule in view.rules
        for group in strings(rule.get("apiGroups"))
    )


_ADDRESS_WORDS = {
    LOOPBACK: (
        WARNING,
        "a loopback address, which only works if the webhook runs next to every "
        "apiserver instance (and never on a managed control plane)",
    ),
    PRIVATE: (
        WARNING,
        "a private IP address, which breaks as soon as the pod or node behind it "
        "moves, and which the control plane may not route to",
    ),
    LINK_LOCAL: (
        WARNING,
        "a link-local address, which the apiserver can reach only on its own "
        "network segment",
    ),
    IN_CLUSTER_NAME: (
        INFO,
        "an in-cluster DNS name, which the apiserver resolves with its own "
        "resolver, usually not the cluster's DNS",
    ),
    LOCAL_NAME: (
        INFO,
        "a local (unqualified or private-zone) name that only some resolvers know",
    ),
}


def check_url_address(view: WebhookView) -> list[Finding]:
    url = view.url
    if url is None or view.service is not None:
        return []
    host = url_host(url)
    category = classify_host(host) if host else None
    if category is None:
        return []
    severity, words = _ADDRESS_WORDS[category]
    return [
        view.finding(
            ids.URL_PRIVATE_ADDRESS,
            severity,
            view.field("clientConfig.url"),
            f"The webhook URL points at {host}, {words}.",
            "Reference the webhook through clientConfig.service (namespace, name, "
            "port, path) for in-cluster webhooks, or use a stable DNS name the "
            "control plane can resolve.",
            (f"url: {url}",),
        )
    ]
