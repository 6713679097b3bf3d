"""Every risk check with its stable id, title, default severity and scope.

The ids are a public contract (``check_webhooks --fail-on``, silencing, the
API): add new ones, never rename. A finding's own severity may be milder or
worse than the default (a fail-open webhook is rarely critical).
"""

from __future__ import annotations

from webhooks_ui.domain.risk.model import CRITICAL, WARNING, CheckInfo

CONFIGURATION = "configuration"
CLUSTER = "cluster"
FLEET = "fleet"

FAIL_CLOSED_SYSTEM_NAMESPACES = "fail-closed-system-namespaces"
FAIL_CLOSED_CRITICAL_RESOURCES = "fail-closed-critical-resources"
INTERCEPTS_OWN_PODS = "intercepts-own-pods"
SERVICE_MISSING = "service-missing"
SERVICE_NO_READY_ENDPOINTS = "service-no-ready-endpoints"
CA_BUNDLE_MISSING = "ca-bundle-missing"
CA_BUNDLE_INVALID = "ca-bundle-invalid"
CA_BUNDLE_EXPIRED = "ca-bundle-expired"
CA_BUNDLE_EXPIRING = "ca-bundle-expiring"
CA_BUNDLE_NAME_MISMATCH = "ca-bundle-name-mismatch"
TIMEOUT_BUDGET = "timeout-budget"
LONG_TIMEOUT = "long-timeout"
SIDE_EFFECTS_UNSAFE = "side-effects-unsafe"
REINVOCATION_BROAD = "reinvocation-broad"
BROAD_INTERCEPTION = "broad-interception"
CONNECT_EXEC_FAIL_CLOSED = "connect-exec-fail-closed"
OBJECT_SELECTOR_BYPASS = "object-selector-bypass"
URL_PRIVATE_ADDRESS = "url-private-address"
REVIEW_VERSIONS_WITHOUT_V1 = "review-versions-without-v1"
CROSS_CLUSTER_RISKY_DRIFT = "cross-cluster-risky-drift"

_ALL = (
    CheckInfo(
        FAIL_CLOSED_SYSTEM_NAMESPACES,
        "Fails closed on system namespaces",
        CRITICAL,
        CONFIGURATION,
        "failurePolicy Fail and the rules and namespaceSelector let the webhook "
        "intercept requests in kube-system, kube-public or kube-node-lease "
        "(pods, leases, configmaps, tokens): when it is down the control plane "
        "cannot heal itself.",
    ),
    CheckInfo(
        FAIL_CLOSED_CRITICAL_RESOURCES,
        "Fails closed on cluster-critical resources",
        CRITICAL,
        CONFIGURATION,
        "failurePolicy Fail on nodes, nodes/status, token or access reviews, "
        "namespaces or CustomResourceDefinitions.",
    ),
    CheckInfo(
        INTERCEPTS_OWN_PODS,
        "Intercepts its own pods",
        CRITICAL,
        CONFIGURATION,
        "A fail-closed webhook covers pod creation in its own service's "
        "namespace: once its pods are gone they cannot be recreated.",
    ),
    CheckInfo(
        SERVICE_MISSING,
        "Service does not exist",
        CRITICAL,
        CLUSTER,
        "clientConfig.service names a Service that is not on the cluster.",
    ),
    CheckInfo(
        SERVICE_NO_READY_ENDPOINTS,
        "Service has no ready endpoints",
        CRITICAL,
        CLUSTER,
        "The webhook's Service exists but its endpointslices list no ready endpoint.",
    ),
    CheckInfo(
        CA_BUNDLE_MISSING,
        "caBundle missing",
        WARNING,
        CONFIGURATION,
        "No caBundle for a Service or a private-address URL, and nothing is "
        "known to inject one: TLS verification of the webhook fails.",
    ),
    CheckInfo(
        CA_BUNDLE_INVALID,
        "caBundle unreadable",
        CRITICAL,
        CONFIGURATION,
        "caBundle is not base64 PEM certificates (or none is valid yet).",
    ),
    CheckInfo(
        CA_BUNDLE_EXPIRED,
        "caBundle expired",
        CRITICAL,
        CONFIGURATION,
        "Every certificate in caBundle has expired.",
    ),
    CheckInfo(
        CA_BUNDLE_EXPIRING,
        "caBundle expiring soon",
        WARNING,
        CONFIGURATION,
        "The longest-lived certificate in caBundle expires within the warning "
        "window (30 days by default).",
    ),
    CheckInfo(
        CA_BUNDLE_NAME_MISMATCH,
        "Certificate not valid for the webhook's host",
        CRITICAL,
        CONFIGURATION,
        "caBundle holds the serving certificate itself and it does not name "
        "the host the apiserver connects to (<service>.<namespace>.svc or the "
        "URL's host).",
    ),
    CheckInfo(
        TIMEOUT_BUDGET,
        "Webhook timeouts exceed the request budget",
        WARNING,
        CONFIGURATION,
        "Mutating webhooks run one after another and validating ones in "
        "parallel; the worst-case wait for one request exceeds the apiserver's "
        "60 s request timeout.",
    ),
    CheckInfo(
        LONG_TIMEOUT,
        "Long timeout",
        WARNING,
        CONFIGURATION,
        "timeoutSeconds above the long-timeout threshold (15 s by default).",
    ),
    CheckInfo(
        SIDE_EFFECTS_UNSAFE,
        "sideEffects Some or Unknown",
        WARNING,
        CONFIGURATION,
        "The apiserver rejects dry-run requests that such a webhook matches.",
    ),
    CheckInfo(
        REINVOCATION_BROAD,
        "Reinvoked on every request",
        WARNING,
        CONFIGURATION,
        "reinvocationPolicy IfNeeded on a mutating webhook whose rules cover "
        "every resource.",
    ),
    CheckInfo(
        BROAD_INTERCEPTION,
        "Intercepts everything",
        WARNING,
        CONFIGURATION,
        "A rule covering every resource of every group, with no "
        "namespaceSelector, objectSelector or matchConditions to narrow it.",
    ),
    CheckInfo(
        CONNECT_EXEC_FAIL_CLOSED,
        "Fails closed on exec/attach",
        WARNING,
        CONFIGURATION,
        "CONNECT of pods/exec or pods/attach with failurePolicy Fail: when the "
        "webhook is down nobody can exec into a pod to debug it.",
    ),
    CheckInfo(
        OBJECT_SELECTOR_BYPASS,
        "Enforcement bypassable by labels",
        WARNING,
        CONFIGURATION,
        "A fail-closed validating webhook with an objectSelector: anyone who can "
        "edit an object's labels can take it out of the webhook's scope.",
    ),
    CheckInfo(
        URL_PRIVATE_ADDRESS,
        "URL at localhost or a private address",
        WARNING,
        CONFIGURATION,
        "clientConfig.url points at a loopback, private or in-cluster address "
        "that the apiserver may not reach.",
    ),
    CheckInfo(
        REVIEW_VERSIONS_WITHOUT_V1,
        "admissionReviewVersions without v1",
        WARNING,
        CONFIGURATION,
        "The webhook only accepts the deprecated admission.k8s.io/v1beta1 "
        "AdmissionReview.",
    ),
    CheckInfo(
        CROSS_CLUSTER_RISKY_DRIFT,
        "Risky drift between clusters",
        WARNING,
        FLEET,
        "The same configuration differs between clusters in a way that hides "
        "risk: fail-closed in one environment and fail-open in another, a "
        "webhook present in some clusters only, very different timeouts, or "
        "different rules or selectors.",
    ),
)

CHECKS: dict[str, CheckInfo] = {info.check_id: info for info in _ALL}


def check_info(check_id: str) -> CheckInfo:
    """The registry entry for ``check_id`` (KeyError for an unknown id)."""
    return CHECKS[check_id]
