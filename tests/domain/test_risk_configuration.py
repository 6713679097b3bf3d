"""risk.check_configuration: each offline check, firing and not firing."""

from datetime import UTC, datetime

import pytest

from tests.domain.webhook_factory import MUTATING, VALIDATING, config, rule, webhook
from webhooks_ui.domain.risk import CHECKS, RiskSettings, check_configuration

NOW = datetime(2026, 6, 1, tzinfo=UTC)
INJECTED = {"cert-manager.io/inject-ca-from": "ns/cert"}
EXCLUDE_SYSTEM = {
    "matchExpressions": [
        {
            "key": "kubernetes.io/metadata.name",
            "operator": "NotIn",
            "values": ["kube-system", "ns"],
        }
    ]
}


def injected(*hooks, kind=VALIDATING):
    """A configuration whose caBundle a CA injector fills (no caBundle noise)."""
    obj = config(*hooks, kind=kind)
    obj["metadata"]["annotations"] = dict(INJECTED)
    return obj


def findings(obj, **settings):
    return check_configuration(obj, now=NOW, settings=RiskSettings(**settings))


def ids(obj, **settings):
    return sorted({f.check_id for f in findings(obj, **settings)})


def only(obj, check_id):
    return [f for f in findings(obj) if f.check_id == check_id]


# --- fail-closed-system-namespaces ----------------------------------------------


def test_fail_closed_pod_webhook_without_selector_locks_out_kube_system():
    [finding] = only(injected(webhook()), "fail-closed-system-namespaces")
    assert finding.severity == "critical"
    assert finding.configuration == "ValidatingWebhookConfiguration/cfg"
    assert finding.webhook == "hook.example.com"
    assert finding.field == "webhooks[0].namespaceSelector"
    assert "CREATE pods in kube-system" in finding.message
    assert "NotIn" in finding.fix and "kube-system" in finding.fix


def test_failure_policy_defaults_to_fail():
    hook = webhook()
    assert "failurePolicy" not in hook
    assert only(injected(hook), "fail-closed-system-namespaces")


def test_fail_open_is_not_a_lockout():
    assert not only(
        injected(webhook(failurePolicy="Ignore")), "fail-closed-system-namespaces"
    )


def test_namespace_selector_excluding_kube_system_by_name_label():
    hook = webhook(namespaceSelector=EXCLUDE_SYSTEM)
    assert not only(injected(hook), "fail-closed-system-namespaces")


def test_opt_in_namespace_selector_does_not_match_system_namespaces():
    selector = {"matchLabels": {"inject": "enabled"}}
    assert not only(
        injected(webhook(namespaceSelector=selector)), "fail-closed-system-namespaces"
    )


def test_opt_out_label_selector_still_matches_system_namespaces():
    # kube-system does not carry the opt-out label unless someone sets it.
    selector = {"matchExpressions": [{"key": "skip", "operator": "DoesNotExist"}]}
    assert only(
        injected(webhook(namespaceSelector=selector)), "fail-closed-system-namespaces"
    )


def test_opt_in_object_selector_does_not_match_unlabelled_system_pods():
    selector = {"matchLabels": {"inject": "true"}}
    assert not only(
        injected(webhook(objectSelector=selector)), "fail-closed-system-namespaces"
    )


def test_leases_in_kube_node_lease_are_critical():
    lease_rule = rule(
        operations=["UPDATE"], apiGroups=["coordination.k8s.io"], resources=["leases"]
    )
    [finding] = only(
        injected(webhook(rules=[lease_rule])), "fail-closed-system-namespaces"
    )
    assert finding.severity == "critical"
    assert any("kube-node-lease" in line for line in finding.detail)


def test_pod_update_only_is_a_warning():
    hook = webhook(rules=[rule(operations=["UPDATE"])])
    [finding] = only(injected(hook), "fail-closed-system-namespaces")
    assert finding.severity == "warning"
    assert "cannot heal" not in finding.message


def test_match_conditions_lower_the_severity():
    hook = webhook(
        matchConditions=[{"name": "not-system", "expression": "true"}],
    )
    [finding] = only(injected(hook), "fail-closed-system-namespaces")
    assert finding.severity == "warning"
    assert any("matchConditions" in line for line in finding.detail)


def test_unrelated_resources_are_not_system_requests():
    hook = webhook(
        rules=[rule(apiGroups=["example.com"], resources=["widgets"])],
    )
    assert ids(injected(hook)) == []


# --- fail-closed-critical-resources ------------------------------------------------


def test_node_status_is_critical():
    hook = webhook(rules=[rule(operations=["UPDATE"], resources=["nodes/status"])])
    [finding] = only(injected(hook), "fail-closed-critical-resources")
    assert finding.severity == "critical"
    assert finding.field == "webhooks[0].rules"
    assert "nodes/status" in finding.message


def test_plain_nodes_rule_does_not_cover_node_status():
    hook = webhook(rules=[rule(operations=["UPDATE"], resources=["nodes"])])
    [finding] = only(injected(hook), "fail-closed-critical-resources")
    assert all("nodes/status" not in line for line in finding.detail)


def test_namespaces_are_a_warning():
    hook = webhook(rules=[rule(operations=["CREATE"], resources=["namespaces"])])
    [finding] = only(injected(hook), "fail-closed-critical-resources")
    assert finding.severity == "warning"


def test_token_reviews_are_probed_as_on_older_clusters():
    review = rule(apiGroups=["authentication.k8s.io"], resources=["tokenreviews"])
    obj = injected(webhook(rules=[review]))
    [finding] = only(obj, "fail-closed-critical-resources")
    assert finding.severity == "critical"
    assert any("1.37" in line for line in finding.detail)


def test_crds_fail_open_are_fine():
    crd = rule(
        apiGroups=["apiextensions.k8s.io"], resources=["customresourcedefinitions"]
    )
    hook = webhook(rules=[crd], failurePolicy="Ignore")
    assert not only(injected(hook), "fail-closed-critical-resources")


# --- intercepts-own-pods -------------------------------------------------------------


def test_pod_webhook_in_its_own_namespace_deadlocks():
    [finding] = only(injected(webhook()), "intercepts-own-pods")
    assert finding.severity == "critical"
    assert "ns/svc" in finding.message
    assert "values: [ns]" in finding.fix


def test_own_namespace_excluded():
    hook = webhook(namespaceSelector=EXCLUDE_SYSTEM)
    assert not only(injected(hook), "intercepts-own-pods")


def test_own_pods_not_covered_when_rules_skip_pods():
    hook = webhook(rules=[rule(resources=["configmaps"])])
    assert not only(injected(hook), "intercepts-own-pods")


def test_own_pods_with_opt_out_object_selector_is_a_warning():
    selector = {
        "matchExpressions": [
            {"key": "app", "operator": "NotIn", "values": ["my-webhook"]}
        ]
    }
    [finding] = only(injected(webhook(objectSelector=selector)), "intercepts-own-pods")
    assert finding.severity == "warning"


def test_own_pods_fail_open_is_fine():
    assert not only(injected(webhook(failurePolicy="Ignore")), "intercepts-own-pods")


# --- connect-exec-fail-closed ------------------------------------------------------


def test_connect_exec_fail_closed():
    hook = webhook(
        rules=[rule(operations=["CONNECT"], resources=["pods/exec", "pods/attach"])],
        namespaceSelector=EXCLUDE_SYSTEM,
    )
    [finding] = only(injected(hook), "connect-exec-fail-closed")
    assert finding.severity == "warning"
    assert "exec" in finding.message


def test_connect_with_object_selector_never_matches():
    # M-5: CONNECT options objects have no labels.
    hook = webhook(
        rules=[rule(operations=["CONNECT"], resources=["pods/exec"])],
        objectSelector={"matchExpressions": [{"key": "x", "operator": "DoesNotExist"}]},
    )
    assert not only(injected(hook), "connect-exec-fail-closed")


def test_connect_fail_open_is_fine():
    hook = webhook(
        rules=[rule(operations=["CONNECT"], resources=["pods/exec"])],
        failurePolicy="Ignore",
    )
    assert not only(injected(hook), "connect-exec-fail-closed")


# --- broad-interception / reinvocation-broad -----------------------------------------


def everything():
    return rule(operations=["*"], apiGroups=["*"], apiVersions=["*"], resources=["*/*"])


def test_broad_rule_without_narrowing():
    [finding] = only(injected(webhook(rules=[everything()])), "broad-interception")
    assert finding.severity == "warning"
    assert finding.field == "webhooks[0].rules[0]"


def test_broad_rule_fail_open_is_info():
    hook = webhook(rules=[everything()], failurePolicy="Ignore")
    [finding] = only(injected(hook), "broad-interception")
    assert finding.severity == "info"


def test_broad_rule_narrowed_by_namespace_selector():
    hook = webhook(rules=[everything()], namespaceSelector=EXCLUDE_SYSTEM)
    assert not only(injected(hook), "broad-interception")


def test_all_resources_of_one_group_is_not_broad():
    hook = webhook(rules=[rule(apiGroups=["example.com"], resources=["*/*"])])
    assert not only(injected(hook), "broad-interception")


def test_reinvocation_on_broad_mutating_webhook():
    hook = webhook(
        rules=[everything()], reinvocationPolicy="IfNeeded", failurePolicy="Ignore"
    )
    [finding] = only(injected(hook, kind=MUTATING), "reinvocation-broad")
    assert finding.field == "webhooks[0].reinvocationPolicy"


def test_reinvocation_on_narrow_rules_is_fine():
    hook = webhook(reinvocationPolicy="IfNeeded", failurePolicy="Ignore")
    assert not only(injected(hook, kind=MUTATING), "reinvocation-broad")


# --- object-selector-bypass ----------------------------------------------------------


def test_opt_out_object_selector_on_fail_closed_validating_webhook():
    selector = {"matchExpressions": [{"key": "skip", "operator": "DoesNotExist"}]}
    hook = webhook(
        objectSelector=selector,
        rules=[rule(resources=["configmaps"])],
    )
    [finding] = only(injected(hook), "object-selector-bypass")
    assert finding.severity == "warning"
    assert "adding a label" in finding.message


def test_opt_in_object_selector_is_info():
    hook = webhook(
        objectSelector={"matchLabels": {"team": "a"}},
        rules=[rule(resources=["configmaps"])],
    )
    [finding] = only(injected(hook), "object-selector-bypass")
    assert finding.severity == "info"


def test_object_selector_on_mutating_or_fail_open_webhook_is_fine():
    selector = {"matchLabels": {"team": "a"}}
    assert not only(
        injected(webhook(objectSelector=selector), kind=MUTATING),
        "object-selector-bypass",
    )
    assert not only(
        injected(webhook(objectSelector=selector, failurePolicy="Ignore")),
        "object-selector-bypass",
    )


# --- single fields -----------------------------------------------------------------


@pytest.mark.parametrize("value", ["Some", "Unknown"])
def test_side_effects_unsafe(value):
    hook = webhook(sideEffects=value, failurePolicy="Ignore")
    [finding] = only(injected(hook), "side-effects-unsafe")
    assert finding.field == "webhooks[0].sideEffects"
    assert "dry-run" in finding.message


@pytest.mark.parametrize("value", ["None", "NoneOnDryRun"])
def test_side_effects_safe(value):
    assert not only(injected(webhook(sideEffects=value)), "side-effects-unsafe")


def test_review_versions_without_v1():
    hook = webhook(admissionReviewVersions=["v1beta1"], failurePolicy="Ignore")
    [finding] = only(injected(hook), "review-versions-without-v1")
    assert finding.field == "webhooks[0].admissionReviewVersions"


def test_review_versions_with_v1():
    hook = webhook(admissionReviewVersions=["v1beta1", "v1"])
    assert not only(injected(hook), "review-versions-without-v1")


def test_long_timeout_on_builtin_resources_fail_closed_is_a_warning():
    [finding] = only(injected(webhook(timeoutSeconds=30)), "long-timeout")
    assert finding.severity == "warning"
    assert finding.field == "webhooks[0].timeoutSeconds"


def test_long_timeout_on_custom_resources_is_info():
    hook = webhook(
        timeoutSeconds=30, rules=[rule(apiGroups=["example.com"], resources=["*"])]
    )
    [finding] = only(injected(hook), "long-timeout")
    assert finding.severity == "info"


def test_timeout_threshold_is_configurable():
    obj = injected(webhook(timeoutSeconds=12))
    assert "long-timeout" not in ids(obj)
    assert "long-timeout" in ids(obj, long_timeout_seconds=10)


@pytest.mark.parametrize(
    ("url", "severity"),
    [
        ("https://localhost:8443/validate", "warning"),
        ("https://127.0.0.1/validate", "warning"),
        ("https://10.0.0.12/validate", "warning"),
        ("https://[fd00::1]:443/v", "warning"),
        ("https://169.254.1.1/v", "warning"),
        ("https://hook.webhooks.svc:443/v", "info"),
        ("https://hook/v", "info"),
    ],
)
def test_url_private_address(url, severity):
    hook = webhook(clientConfig={"url": url}, failurePolicy="Ignore")
    [finding] = only(injected(hook), "url-private-address")
    assert finding.severity == severity
    assert finding.field == "webhooks[0].clientConfig.url"


def test_public_url_is_fine():
    hook = webhook(clientConfig={"url": "https://hooks.example.com/v"})
    assert not only(config(hook), "url-private-address")
    assert not only(config(hook), "ca-bundle-missing")


# --- timeout budget (within one configuration) -------------------------------------


def test_timeout_budget_within_one_configuration():
    hooks = [
        webhook(name=f"m{i}.example.com", timeoutSeconds=25, failurePolicy="Ignore")
        for i in range(3)
    ]
    obj = injected(*hooks, kind=MUTATING)
    [finding] = only(obj, "timeout-budget")
    assert "75 s" in finding.message and "60 s" in finding.message
    assert len([line for line in finding.detail if "25 s" in line]) == 3


def test_validating_webhooks_run_in_parallel():
    hooks = [
        webhook(name=f"v{i}.example.com", timeoutSeconds=30, failurePolicy="Ignore")
        for i in range(3)
    ]
    assert not only(injected(*hooks), "timeout-budget")


def test_timeout_budget_configurable():
    hooks = [
        webhook(name=f"m{i}.example.com", timeoutSeconds=10, failurePolicy="Ignore")
        for i in range(2)
    ]
    obj = injected(*hooks, kind=MUTATING)
    assert "timeout-budget" not in ids(obj)
    assert "timeout-budget" in ids(obj, request_budget_seconds=15)


# --- general -------------------------------------------------------------------------


def test_every_finding_uses_a_registered_id_and_is_complete():
    hook = webhook(
        rules=[everything()],
        sideEffects="Some",
        timeoutSeconds=30,
        admissionReviewVersions=["v1beta1"],
    )
    result = findings(config(hook))
    assert result
    for finding in result:
        assert finding.check_id in CHECKS
        assert finding.severity in ("critical", "warning", "info")
        assert finding.field.startswith("webhooks[0]")
        assert finding.message.endswith(".") and finding.fix
    severities = [f.severity for f in result]
    assert severities == sorted(severities, key=["critical", "warning", "info"].index)


@pytest.mark.parametrize(
    "obj",
    [
        {},
        {"kind": "ConfigMap", "apiVersion": "v1"},
        {"kind": "ValidatingWebhookConfiguration", "webhooks": "nope"},
        {"kind": "ValidatingWebhookConfiguration", "webhooks": [None, 3, {}]},
        config(webhook(rules="x", clientConfig=None, namespaceSelector=[])),
    ],
)
def test_odd_input_never_raises(obj):
    findings(obj)


def test_input_is_not_modified():
    obj = config(webhook())
    before = repr(obj)
    findings(obj)
    assert repr(obj) == before
