"""apply_defaults: the v1 defaults D-1..D-4, nothing more, never raising."""

import copy

import pytest

from webhooks_ui.domain.defaulting import apply_defaults, json_copy
from webhooks_ui.domain.kinds import API_VERSION_V1, API_VERSION_V1BETA1

MWC = "MutatingWebhookConfiguration"
VWC = "ValidatingWebhookConfiguration"


def _config(kind: str, *webhooks: object, api_version: str = API_VERSION_V1) -> dict:
    return {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": "cfg"},
        "webhooks": list(webhooks),
    }


def test_d1_webhook_defaults_for_both_kinds():
    for kind in (MWC, VWC):
        hook = apply_defaults(_config(kind, {"name": "a.b.c"}))["webhooks"][0]
        assert hook["failurePolicy"] == "Fail"
        assert hook["matchPolicy"] == "Equivalent"
        assert hook["namespaceSelector"] == {}
        assert hook["objectSelector"] == {}
        assert hook["timeoutSeconds"] == 10


@pytest.mark.parametrize(("kind", "expected"), [(MWC, "Never"), (VWC, None)])
def test_d2_reinvocation_policy_only_for_mutating(kind, expected):
    hook = apply_defaults(_config(kind, {"name": "a.b.c"}))["webhooks"][0]
    assert hook.get("reinvocationPolicy") == expected


def test_d3_rule_scope():
    rules = [{"operations": ["CREATE"]}, {"scope": None}, {"scope": "Cluster"}]
    hook = apply_defaults(_config(VWC, {"rules": rules}))["webhooks"][0]
    assert [rule["scope"] for rule in hook["rules"]] == ["*", "*", "Cluster"]


def test_d4_service_port_and_url_untouched():
    hooks = apply_defaults(
        _config(
            VWC,
            {"clientConfig": {"service": {"name": "s", "namespace": "n"}}},
            {"clientConfig": {"url": "https://example.com/"}},
            {"clientConfig": {"service": {"name": "s", "port": 8443}}},
        )
    )["webhooks"]
    assert hooks[0]["clientConfig"]["service"]["port"] == 443
    assert hooks[1]["clientConfig"] == {"url": "https://example.com/"}
    assert hooks[2]["clientConfig"]["service"]["port"] == 8443


@pytest.mark.parametrize(
    ("field", "explicit"),
    [
        ("failurePolicy", ""),
        ("matchPolicy", ""),
        ("timeoutSeconds", 0),
        ("reinvocationPolicy", ""),
        ("namespaceSelector", {"matchLabels": {"a": "b"}}),
    ],
)
def test_explicit_values_are_kept(field, explicit):
    hook = apply_defaults(_config(MWC, {field: explicit}))["webhooks"][0]
    assert hook[field] == explicit


def test_null_is_defaulted():
    hook = apply_defaults(
        _config(MWC, {"failurePolicy": None, "timeoutSeconds": None})
    )["webhooks"][0]
    assert hook["failurePolicy"] == "Fail"
    assert hook["timeoutSeconds"] == 10


def test_d5_fields_without_defaults_stay_absent():
    hook = apply_defaults(_config(VWC, {"clientConfig": {"service": {}}}))["webhooks"][
        0
    ]
    for field in ("sideEffects", "admissionReviewVersions", "matchConditions", "name"):
        assert field not in hook
    assert "path" not in hook["clientConfig"]["service"]


def test_input_is_not_mutated_and_result_is_a_new_object():
    original = _config(MWC, {"rules": [{}], "clientConfig": {"service": {}}})
    snapshot = copy.deepcopy(original)
    result = apply_defaults(original)
    assert original == snapshot
    result["webhooks"][0]["namespaceSelector"]["matchLabels"] = {"x": "y"}
    assert original == snapshot


def test_each_default_selector_is_a_separate_dict():
    hooks = apply_defaults(_config(VWC, {}, {}))["webhooks"]
    assert hooks[0]["namespaceSelector"] is not hooks[1]["namespaceSelector"]
    assert hooks[0]["namespaceSelector"] is not hooks[0]["objectSelector"]


def test_v1beta1_and_unknown_kinds_are_only_copied():
    beta = _config(VWC, {}, api_version=API_VERSION_V1BETA1)
    assert apply_defaults(beta) == beta
    other = _config("Pod", {})
    assert apply_defaults(other) == other


def test_kind_override_for_bodies_without_kind():
    body = {"webhooks": [{}]}
    assert (
        apply_defaults(body, kind=MWC)["webhooks"][0]["reinvocationPolicy"] == "Never"
    )
    assert apply_defaults(body) == body


@pytest.mark.parametrize(
    "junk",
    [
        None,
        "text",
        42,
        [],
        {"kind": MWC},
        {"kind": MWC, "webhooks": "nope"},
        {"kind": MWC, "webhooks": [None, 1, "x", []]},
        {"kind": MWC, "webhooks": [{"rules": "x", "clientConfig": []}]},
        {
            "kind": MWC,
            "webhooks": [{"rules": [None, 3], "clientConfig": {"service": 1}}],
        },
        {"kind": [], "apiVersion": {}},
    ],
)
def test_garbage_never_raises(junk):
    result = apply_defaults(junk)
    assert result == junk or isinstance(junk, dict)


def test_idempotent():
    once = apply_defaults(
        _config(MWC, {"rules": [{}], "clientConfig": {"service": {}}})
    )
    assert apply_defaults(once) == once


def test_deep_and_cyclic_input_does_not_raise():
    deep: list = []
    cursor = deep
    for _ in range(50_000):
        cursor.append([])
        cursor = cursor[0]
    apply_defaults({"kind": MWC, "webhooks": [{"junk": deep}]})
    cyclic: list = [1]
    cyclic.append(cyclic)
    copied = json_copy(cyclic)
    assert copied[1] is copied
    apply_defaults({"kind": VWC, "webhooks": cyclic})
