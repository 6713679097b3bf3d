"""matchPolicy Exact vs Equivalent and the equivalent-resource order (M-7)."""

from __future__ import annotations

from typing import Any

from webhooks_ui.domain.matching import evaluate, matches


def _rule(group: str, version: str, resource: str, **extra: Any) -> dict:
    rule = {
        "operations": ["*"],
        "apiGroups": [group],
        "apiVersions": [version],
        "resources": [resource],
        "scope": "*",
    }
    rule.update(extra)
    return rule


def _hook(*rules: dict, policy: str = "Equivalent") -> dict:
    return {
        "name": "hook.example.com",
        "rules": list(rules),
        "matchPolicy": policy,
        "namespaceSelector": {},
        "objectSelector": {},
    }


def _equivalent(group: str, version: str, resource: str, kind: str, **extra) -> dict:
    entry = {
        "group": group,
        "version": version,
        "resource": resource,
        "kind": {"group": group, "version": version, "kind": kind},
    }
    entry.update(extra)
    return entry


DEPLOYMENT_V1BETA2 = {
    "operation": "CREATE",
    "group": "apps",
    "version": "v1beta2",
    "resource": "deployments",
    "subresource": "",
    "kind": "Deployment",
    "name": "web",
    "namespace": "default",
    "cluster_scoped": False,
    "namespace_labels": {},
    "object_labels": {},
    "old_object_labels": None,
    "equivalent_resources": [
        _equivalent("apps", "v1", "deployments", "Deployment"),
        _equivalent("apps", "v1beta2", "deployments", "Deployment"),
        _equivalent("extensions", "v1beta1", "deployments", "Deployment"),
    ],
}


def test_exact_never_tries_equivalents():
    hook = _hook(_rule("apps", "v1", "deployments"), policy="Exact")
    result = evaluate(hook, DEPLOYMENT_V1BETA2)
    assert not result.matched
    assert result.reason == "rules"
    assert "Exact" in result.detail


def test_equivalent_converts_to_the_matching_equivalent():
    hook = _hook(_rule("apps", "v1", "deployments"))
    result = evaluate(hook, DEPLOYMENT_V1BETA2)
    assert result.matched
    assert result.reason == "matched-equivalent"
    assert result.converted_to == ("apps", "v1", "deployments")
    assert result.converted_kind == ("apps", "v1", "Deployment")
    assert result.matched_rule_index == 0


def test_own_resource_wins_over_equivalents():
    hook = _hook(_rule("apps", "*", "deployments"))
    result = evaluate(hook, DEPLOYMENT_V1BETA2)
    assert result.reason == "matched"
    assert result.converted_to is None


def test_earlier_rules_win_then_equivalents_in_server_order():
    # rule 0 only matches the extensions equivalent, rule 1 the apps/v1 one:
    # rule order decides, even though apps/v1 comes first in the server order
    hook = _hook(
        _rule("extensions", "v1beta1", "deployments"), _rule("apps", "v1", "*")
    )
    result = evaluate(hook, DEPLOYMENT_V1BETA2)
    assert result.matched_rule_index == 0
    assert result.converted_to == ("extensions", "v1beta1", "deployments")
    # within one rule, the server's order of equivalents decides
    hook = _hook(_rule("*", "*", "deployments", apiVersions=["v1", "v1beta1"]))
    hook["rules"][0]["apiGroups"] = ["apps", "extensions"]
    result = evaluate(hook, DEPLOYMENT_V1BETA2)
    assert result.converted_to == ("apps", "v1", "deployments")


def test_equivalent_without_equivalents_list_is_a_plain_miss():
    request = dict(DEPLOYMENT_V1BETA2)
    del request["equivalent_resources"]
    assert not matches(_hook(_rule("apps", "v1", "deployments")), request)


def test_subresource_equivalents_only():
    request = dict(
        DEPLOYMENT_V1BETA2,
        operation="UPDATE",
        subresource="scale",
        kind="Scale",
        kind_group="autoscaling",
        kind_version="v1",
        old_object_labels={},
        equivalent_resources=[
            # an equivalent named for another subresource is not one
            _equivalent("apps", "v1", "deployments", "Deployment", subresource=""),
            _equivalent(
                "extensions", "v1beta1", "deployments", "Scale", subresource="scale"
            ),
            # no "subresource" key: taken to be the request's own
            _equivalent("apps", "v1", "deployments", "Scale"),
        ],
    )
    hook = _hook(_rule("*", "*", "deployments/scale"))
    assert evaluate(hook, request).reason == "matched"
    hook = _hook(_rule("apps", "v1", "deployments/scale"))
    result = evaluate(hook, request)
    assert result.reason == "matched-equivalent"
    assert result.converted_to == ("apps", "v1", "deployments")
    # the main-resource rule never matches a subresource request via equivalents
    assert not matches(_hook(_rule("apps", "v1", "deployments")), request)


def test_events_cross_group_equivalent():
    request = {
        "operation": "CREATE",
        "group": "",
        "version": "v1",
        "resource": "events",
        "subresource": "",
        "kind": "Event",
        "name": "e",
        "namespace": "default",
        "namespace_labels": {},
        "object_labels": {},
        "old_object_labels": None,
        "equivalent_resources": [
            _equivalent("", "v1", "events", "Event"),
            _equivalent("events.k8s.io", "v1", "events", "Event"),
        ],
    }
    hook = _hook(_rule("events.k8s.io", "v1", "events"))
    assert evaluate(hook, request).converted_to == ("events.k8s.io", "v1", "events")
    assert not matches(
        _hook(_rule("events.k8s.io", "v1", "events"), policy="Exact"), request
    )


def test_scope_applies_to_equivalents_too():
    hook = _hook(_rule("apps", "v1", "deployments", scope="Cluster"))
    result = evaluate(hook, DEPLOYMENT_V1BETA2)
    assert not result.matched
    assert result.reason == "scope"
