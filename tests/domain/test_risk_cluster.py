"""risk.check_cluster: services, real namespace labels, cross-configuration budget."""

from datetime import UTC, datetime

from tests.domain.webhook_factory import MUTATING, config, rule, webhook
from webhooks_ui.domain.risk import ServiceState, check_cluster

NOW = datetime(2026, 6, 1, tzinfo=UTC)
CUSTOM = [rule(apiGroups=["example.com"], resources=["widgets"])]
NAMESPACES = [
    ("kube-system", {"kubernetes.io/metadata.name": "kube-system"}),
    ("kube-public", {"kubernetes.io/metadata.name": "kube-public"}),
    ("kube-node-lease", {"kubernetes.io/metadata.name": "kube-node-lease"}),
    ("default", {"kubernetes.io/metadata.name": "default"}),
    ("ns", {"kubernetes.io/metadata.name": "ns"}),
]
UP = {("ns", "svc"): ServiceState(exists=True, ready_endpoints=2)}


def injected(*hooks, kind="ValidatingWebhookConfiguration", name="cfg"):
    obj = config(*hooks, kind=kind, name=name)
    obj["metadata"]["annotations"] = {"cert-manager.io/inject-ca-from": "ns/cert"}
    return obj


def run(objs, *, services=UP, namespaces=NAMESPACES):
    return check_cluster(objs, services=services, namespaces=namespaces, now=NOW)


def of(findings, check_id):
    return [f for f in findings if f.check_id == check_id]


def test_service_missing_fail_closed_is_critical():
    [finding] = of(
        run([injected(webhook(rules=CUSTOM))], services={}), "service-missing"
    )
    assert finding.severity == "critical"
    assert finding.field == "webhooks[0].clientConfig.service"
    assert "ns/svc" in finding.message


def test_service_missing_fail_open_is_a_warning():
    hook = webhook(rules=CUSTOM, failurePolicy="Ignore")
    [finding] = of(run([injected(hook)], services={}), "service-missing")
    assert finding.severity == "warning"


def test_service_state_exists_false_is_missing():
    services = {("ns", "svc"): ServiceState(exists=False)}
    assert of(
        run([injected(webhook(rules=CUSTOM))], services=services), "service-missing"
    )


def test_service_without_ready_endpoints():
    services = {("ns", "svc"): ServiceState(exists=True, ready_endpoints=0)}
    findings = run([injected(webhook(rules=CUSTOM))], services=services)
    [finding] = of(findings, "service-no-ready-endpoints")
    assert finding.severity == "critical"
    assert not of(findings, "service-missing")


def test_healthy_or_unknown_service_is_fine():
    for state in (ServiceState(True, 1), ServiceState(True, None)):
        findings = run(
            [injected(webhook(rules=CUSTOM))], services={("ns", "svc"): state}
        )
        assert not of(findings, "service-missing")
        assert not of(findings, "service-no-ready-endpoints")


def test_services_not_synced_skips_service_checks():
    assert not of(
        run([injected(webhook(rules=CUSTOM))], services=None), "service-missing"
    )


def test_webhook_without_rules_needs_no_service():
    hook = webhook(rules=[])
    assert not of(run([injected(hook)], services={}), "service-missing")


def test_url_webhooks_have_no_service():
    hook = webhook(rules=CUSTOM, clientConfig={"url": "https://hooks.example.com/"})
    assert not of(run([config(hook)], services={}), "service-missing")


def test_real_namespace_labels_can_exclude_the_webhooks_own_namespace():
    selector = {
        "matchExpressions": [{"key": "webhooks/skip", "operator": "DoesNotExist"}]
    }
    hook = webhook(namespaceSelector=selector)
    assert of(run([injected(hook)]), "intercepts-own-pods")
    labelled = [
        (name, {**labels, "webhooks/skip": "true"}) if name == "ns" else (name, labels)
        for name, labels in NAMESPACES
    ]
    assert not of(run([injected(hook)], namespaces=labelled), "intercepts-own-pods")


def test_real_namespace_labels_can_exclude_kube_system():
    selector = {
        "matchExpressions": [{"key": "control-plane", "operator": "DoesNotExist"}]
    }
    hook = webhook(namespaceSelector=selector)
    assert of(run([injected(hook)]), "fail-closed-system-namespaces")
    labelled = [
        (name, {**labels, "control-plane": "true"})
        if name.startswith("kube-")
        else (name, labels)
        for name, labels in NAMESPACES
    ]
    assert not of(
        run([injected(hook)], namespaces=labelled), "fail-closed-system-namespaces"
    )


def test_missing_system_namespace_is_not_probed():
    lease = rule(
        operations=["UPDATE"], apiGroups=["coordination.k8s.io"], resources=["leases"]
    )
    selector = {
        "matchExpressions": [
            {
                "key": "kubernetes.io/metadata.name",
                "operator": "NotIn",
                "values": ["kube-system"],
            }
        ]
    }
    hook = webhook(rules=[lease], namespaceSelector=selector)
    namespaces = [n for n in NAMESPACES if n[0] != "kube-node-lease"]
    assert of(run([injected(hook)]), "fail-closed-system-namespaces")
    assert not of(
        run([injected(hook)], namespaces=namespaces), "fail-closed-system-namespaces"
    )


def test_timeout_budget_across_configurations():
    # Three mutating configurations on pods in user namespaces: 3 x 25 s.
    selector = {
        "matchExpressions": [
            {
                "key": "kubernetes.io/metadata.name",
                "operator": "NotIn",
                "values": ["kube-system", "ns"],
            }
        ]
    }
    objs = [
        injected(
            webhook(
                name=f"m{i}.example.com",
                timeoutSeconds=25,
                failurePolicy="Ignore",
                namespaceSelector=selector,
            ),
            kind=MUTATING,
            name=f"cfg{i}",
        )
        for i in range(3)
    ]
    [finding] = of(run(objs), "timeout-budget")
    assert "75 s" in finding.message
    assert any("cfg2" in line for line in finding.detail)
    # Each configuration alone is within budget.
    assert not any(of(run([obj]), "timeout-budget") for obj in objs)


def test_timeout_budget_groups_namespaces_that_selectors_see_alike():
    objs = [
        injected(
            webhook(
                name=f"m{i}.example.com", timeoutSeconds=25, failurePolicy="Ignore"
            ),
            kind=MUTATING,
            name=f"cfg{i}",
        )
        for i in range(3)
    ]
    many = NAMESPACES + [
        (f"team-{i}", {"kubernetes.io/metadata.name": f"team-{i}"}) for i in range(50)
    ]
    [finding] = of(run(objs, namespaces=many), "timeout-budget")
    assert any("namespaces with the same labels" in line for line in finding.detail)


def test_everything_check_configuration_does_is_included():
    hook = webhook(
        rules=CUSTOM, sideEffects="Some", admissionReviewVersions=["v1beta1"]
    )
    ids = {f.check_id for f in run([injected(hook)])}
    assert {"side-effects-unsafe", "review-versions-without-v1"} <= ids
