"""Rule matching (M-6), exemptions (M-1, M-2) and defaults robustness."""

from __future__ import annotations

from typing import Any

import pytest

from tests.domain.webhook_factory import admission_request as _request
from webhooks_ui.domain.defaulting import apply_defaults
from webhooks_ui.domain.matching import evaluate, matches


def _rule(**overrides: Any) -> dict:
    rule = {
        "operations": ["*"],
        "apiGroups": ["*"],
        "apiVersions": ["*"],
        "resources": ["*"],
        "scope": "*",
    }
    rule.update(overrides)
    return rule


def _hook(*rules: dict, **fields: Any) -> dict:
    hook = {
        "name": "hook.example.com",
        "rules": list(rules),
        "failurePolicy": "Fail",
        "matchPolicy": "Equivalent",
        "namespaceSelector": {},
        "objectSelector": {},
        "timeoutSeconds": 10,
    }
    hook.update(fields)
    return hook


POD = _request()
POD_STATUS = _request(operation="UPDATE", subresource="status", old_object_labels={})
POD_EXEC = _request(operation="CONNECT", subresource="exec", kind="PodExecOptions")
DEPLOYMENT_SCALE = _request(
    operation="UPDATE",
    group="apps",
    resource="deployments",
    subresource="scale",
    kind="Scale",
    kind_group="autoscaling",
    kind_version="v1",
)
NODE = _request(
    resource="nodes", kind="Node", namespace="", cluster_scoped=True, name="n1"
)
NAMESPACE_CREATE = _request(
    resource="namespaces", kind="Namespace", namespace="", name="team-a"
)
NAMESPACE_UPDATE = _request(
    operation="UPDATE",
    resource="namespaces",
    kind="Namespace",
    namespace="team-a",
    name="team-a",
    old_object_labels={},
)
NAMESPACE_FINALIZE = _request(
    operation="UPDATE",
    resource="namespaces",
    subresource="finalize",
    kind="Namespace",
    namespace="team-a",
    name="team-a",
)
NAMESPACE_STATUS = _request(
    operation="UPDATE",
    resource="namespaces",
    subresource="status",
    kind="Namespace",
    namespace="team-a",
    name="team-a",
)


@pytest.mark.parametrize(
    ("resources", "request_", "expected"),
    [
        # "*": every resource, never a subresource
        (["*"], POD, True),
        (["*"], POD_STATUS, False),
        (["*"], DEPLOYMENT_SCALE, False),
        # plain resource: the resource only
        (["pods"], POD, True),
        (["pods"], POD_STATUS, False),
        (["deployments"], POD, False),
        # "pods/*": pods and every pods subresource
        (["pods/*"], POD, True),
        (["pods/*"], POD_STATUS, True),
        (["pods/*"], POD_EXEC, True),
        (["pods/*"], DEPLOYMENT_SCALE, False),
        # "*/scale": only scale subresources
        (["*/scale"], DEPLOYMENT_SCALE, True),
        (["*/scale"], POD, False),
        (["*/scale"], POD_STATUS, False),
        # "*/*": everything
        (["*/*"], POD, True),
        (["*/*"], POD_STATUS, True),
        (["*/*"], DEPLOYMENT_SCALE, True),
        (["*/*"], NODE, True),
        # plain subresource
        (["pods/status"], POD_STATUS, True),
        (["pods/status"], POD, False),
        (["pods/status"], POD_EXEC, False),
        (["deployments/scale"], DEPLOYMENT_SCALE, True),
        # several entries: any suffices
        (["configmaps", "pods/exec"], POD_EXEC, True),
        # case-sensitive
        (["Pods"], POD, False),
        # the split is at the first "/"
        (["pods/status/x"], POD_STATUS, False),
    ],
)
def test_resource_wildcards(resources, request_, expected):
    assert matches(_hook(_rule(resources=resources)), request_) is expected


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        (_rule(operations=["CREATE"]), True),
        (_rule(operations=["UPDATE", "DELETE"]), False),
        (_rule(operations=["*"]), True),
        (_rule(apiGroups=[""]), True),
        (_rule(apiGroups=["apps"]), False),
        (_rule(apiGroups=["apps", ""]), True),
        (_rule(apiVersions=["v1"]), True),
        (_rule(apiVersions=["V1"]), False),
        (_rule(apiVersions=["v1beta1"]), False),
        (_rule(operations=[]), False),
        (_rule(resources=[]), False),
    ],
)
def test_operation_group_version(rule, expected):
    assert matches(_hook(rule), POD) is expected


def test_any_rule_suffices_and_index_is_reported():
    hook = _hook(_rule(apiGroups=["apps"]), _rule(resources=["pods"]))
    result = evaluate(hook, POD)
    assert result.matched
    assert result.reason == "matched"
    assert result.matched_rule_index == 1
    assert result.converted_to is None


def test_no_rules_never_match():
    result = evaluate(_hook(), POD)
    assert not result.matched
    assert result.reason == "rules"


@pytest.mark.parametrize(
    ("scope", "request_", "expected"),
    [
        ("*", POD, True),
        ("*", NODE, True),
        ("Namespaced", POD, True),
        ("Namespaced", NODE, False),
        ("Cluster", POD, False),
        ("Cluster", NODE, True),
        # Namespace objects are cluster-scoped although their requests carry
        # the namespace's own name (except CREATE, where it is empty)
        ("Cluster", NAMESPACE_CREATE, True),
        ("Cluster", NAMESPACE_UPDATE, True),
        ("Namespaced", NAMESPACE_CREATE, False),
        ("Namespaced", NAMESPACE_UPDATE, False),
        # namespace subresources follow the parent
        ("Cluster", NAMESPACE_FINALIZE, True),
        ("Namespaced", NAMESPACE_FINALIZE, False),
        ("Cluster", NAMESPACE_STATUS, True),
        # pod subresources are namespaced like pods
        ("Namespaced", POD_STATUS, True),
        ("Cluster", POD_STATUS, False),
        ("Namespaced", POD_EXEC, True),
        # an unknown scope matches nothing
        ("Everything", POD, False),
    ],
)
def test_scope(scope, request_, expected):
    hook = _hook(_rule(resources=["*/*"], scope=scope))
    result = evaluate(hook, request_)
    assert result.matched is expected
    if not expected:
        assert result.reason == "scope"


def test_cluster_scope_is_decided_by_the_namespace_attribute():
    # a "namespaces" resource in another group is not the core namespaces
    # resource: its scope follows the (non-empty) request namespace
    other = _request(
        group="example.com", resource="namespaces", kind="Namespace", namespace="x"
    )
    assert not matches(_hook(_rule(scope="Cluster")), other)
    assert matches(_hook(_rule(scope="Namespaced")), other)


def test_cluster_scoped_flag_clears_a_stray_namespace():
    node = dict(NODE, namespace="default")
    assert matches(_hook(_rule(scope="Cluster")), node)


@pytest.mark.parametrize(
    "kind",
    [
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
    ],
)
def test_admission_configuration_kinds_are_exempt(kind):
    request = _request(
        group="admissionregistration.k8s.io",
        resource=kind.lower() + "s",
        kind=kind,
        namespace="",
        cluster_scoped=True,
    )
    result = evaluate(_hook(_rule(resources=["*/*"])), request)
    assert not result.matched
    assert result.reason == "exempt"


def test_exemption_is_by_kind_and_its_group():
    same_name_elsewhere = _request(
        group="example.com",
        resource="validatingwebhookconfigurations",
        kind="ValidatingWebhookConfiguration",
        namespace="",
        cluster_scoped=True,
    )
    assert matches(_hook(_rule()), same_name_elsewhere)
    # the kind's group decides, not the resource's
    kind_in_admission_group = _request(
        group="example.com",
        resource="things",
        kind="MutatingWebhookConfiguration",
        kind_group="admissionregistration.k8s.io",
        namespace="",
    )
    assert evaluate(_hook(_rule()), kind_in_admission_group).reason == "exempt"
    # other kinds of admissionregistration.k8s.io are not exempt
    other_kind = _request(
        group="admissionregistration.k8s.io",
        resource="somethings",
        kind="Something",
        namespace="",
    )
    assert matches(_hook(_rule()), other_kind)


@pytest.mark.parametrize(
    ("group", "resource"),
    [
        ("authentication.k8s.io", "tokenreviews"),
        ("authentication.k8s.io", "selfsubjectreviews"),
        ("authorization.k8s.io", "subjectaccessreviews"),
        ("authorization.k8s.io", "selfsubjectaccessreviews"),
        ("authorization.k8s.io", "localsubjectaccessreviews"),
        ("authorization.k8s.io", "selfsubjectrulesreviews"),
    ],
)
def test_virtual_resources_flag(group, resource):
    request = _request(group=group, resource=resource, kind="Review", namespace="")
    hook = _hook(_rule())
    result = evaluate(hook, request)
    assert not result.matched
    assert result.reason == "exempt"
    assert matches(hook, request, exclude_virtual_resources=False)


def test_missing_defaults_behave_as_defaulted():
    bare = {
        "name": "hook.example.com",
        "rules": [
            {
                "operations": ["CREATE"],
                "apiGroups": [""],
                "apiVersions": ["v1"],
                "resources": ["pods"],
            }
        ],
    }
    defaulted = apply_defaults(
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration",
            "webhooks": [bare],
        }
    )["webhooks"][0]
    for request in (POD, NODE, POD_STATUS, _request(namespace_labels=None)):
        assert evaluate(bare, request) == evaluate(defaulted, request)
    assert matches(bare, POD)


def test_malformed_webhooks_do_not_raise():
    for hook in (
        {},
        {"rules": "x"},
        {"rules": [None, {"operations": "CREATE"}]},
        {"rules": [_rule()], "namespaceSelector": 3},
    ):
        evaluate(hook, POD)


def test_matched_detail_is_plain_english():
    result = evaluate(_hook(_rule(resources=["pods"])), POD)
    assert result.detail == "rule 0 matches CREATE pods (core/v1)"
