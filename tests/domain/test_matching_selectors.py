"""namespaceSelector (M-4), objectSelector (M-5) and their error paths (M-9)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.domain.webhook_factory import admission_request as _request
from webhooks_ui.domain.matching import evaluate, matches

ALL_RULE = {
    "operations": ["*"],
    "apiGroups": ["*"],
    "apiVersions": ["*"],
    "resources": ["*/*"],
    "scope": "*",
}
NOT_CONTROL_PLANE = {
    "matchExpressions": [
        {"key": "control-plane", "operator": "NotIn", "values": ["true"]}
    ]
}
INJECT_ENABLED = {"matchLabels": {"inject": "enabled"}}


def _hook(**fields: Any) -> dict:
    hook = {
        "name": "hook.example.com",
        "rules": [ALL_RULE],
        "matchPolicy": "Equivalent",
        "namespaceSelector": {},
        "objectSelector": {},
    }
    hook.update(fields)
    return hook


# --- namespaceSelector -------------------------------------------------------------


def test_namespace_selector_excludes_with_a_reason():
    hook = _hook(namespaceSelector=NOT_CONTROL_PLANE)
    request = _request(
        namespace="kube-system", namespace_labels={"control-plane": "true"}
    )
    result = evaluate(hook, request)
    assert not result.matched
    assert result.reason == "namespaceSelector"
    assert result.detail == (
        "namespace kube-system has label control-plane=true, excluded by NotIn (true)"
    )
    assert matches(hook, _request(namespace_labels={}))


def test_cluster_scoped_requests_always_pass_the_namespace_selector():
    hook = _hook(namespaceSelector=INJECT_ENABLED)
    node = _request(
        resource="nodes",
        kind="Node",
        namespace="",
        cluster_scoped=True,
        namespace_labels=None,
    )
    assert matches(hook, node)


@pytest.mark.parametrize(
    ("operation", "subresource", "namespace", "object_labels", "ns_labels", "expected"),
    [
        # CREATE/UPDATE of a Namespace: the new object's labels
        ("CREATE", "", "", {"inject": "enabled"}, None, True),
        ("CREATE", "", "", {}, None, False),
        ("UPDATE", "", "team-a", {"inject": "enabled"}, {}, True),
        ("UPDATE", "", "team-a", {}, {"inject": "enabled"}, False),
        # DELETE and subresources: the stored namespace's labels
        ("DELETE", "", "team-a", None, {"inject": "enabled"}, True),
        ("DELETE", "", "team-a", None, {}, False),
        ("UPDATE", "finalize", "team-a", {"inject": "enabled"}, {}, False),
        ("UPDATE", "status", "team-a", {}, {"inject": "enabled"}, True),
    ],
)
def test_namespace_requests_use_the_right_labels(
    operation, subresource, namespace, object_labels, ns_labels, expected
):
    request = _request(
        operation=operation,
        resource="namespaces",
        subresource=subresource,
        kind="Namespace",
        name="team-a",
        namespace=namespace,
        namespace_labels=ns_labels,
        object_labels=object_labels,
        old_object_labels=None if operation == "CREATE" else {},
    )
    assert matches(_hook(namespaceSelector=INJECT_ENABLED), request) is expected


def test_missing_namespace_with_matching_rules_is_reported():
    hook = _hook(namespaceSelector=NOT_CONTROL_PLANE)
    request = _request(namespace="gone", namespace_labels=None)
    result = evaluate(hook, request)
    assert not result.matched
    assert result.reason == "namespace-not-found"
    assert result.fails_request
    assert "namespace gone not found" in result.detail
    assert "reject" in result.detail


def test_missing_namespace_with_non_matching_rules_just_skips():
    rule = dict(ALL_RULE, apiGroups=["apps"])
    hook = _hook(rules=[rule], namespaceSelector=NOT_CONTROL_PLANE)
    result = evaluate(hook, _request(namespace="gone", namespace_labels=None))
    assert result.reason == "rules"
    assert not result.fails_request


def test_missing_namespace_with_empty_selector_matches():
    assert matches(_hook(), _request(namespace="gone", namespace_labels=None))


def test_missing_namespace_then_object_selector_miss_skips():
    hook = _hook(namespaceSelector=NOT_CONTROL_PLANE, objectSelector=INJECT_ENABLED)
    result = evaluate(hook, _request(namespace="gone", namespace_labels=None))
    assert result.reason == "objectSelector"


def test_absent_namespace_selector_behaves_as_defaulted():
    # Stored webhooks always have {} (D-1); an undefaulted None is read as
    # absent, so it is defaulted rather than treated as M-9's null selector.
    hook = _hook(namespaceSelector=None)
    assert matches(hook, _request(namespace_labels={"control-plane": "true"}))


@pytest.mark.parametrize("field", ["namespaceSelector", "objectSelector"])
def test_invalid_stored_selector_is_a_selector_error_when_rules_match(field):
    bad = {
        "matchExpressions": [{"key": "k", "operator": "In", "values": ["bad value"]}]
    }
    result = evaluate(_hook(**{field: bad}), _request())
    assert not result.matched
    assert result.reason == "selector-error"
    assert result.fails_request
    miss = _hook(**{field: bad}, rules=[dict(ALL_RULE, apiGroups=["apps"])])
    assert evaluate(miss, _request()).reason == "rules"


# --- objectSelector ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("operation", "new", "old", "selector", "expected"),
    [
        # new OR old
        ("UPDATE", {"inject": "enabled"}, {}, INJECT_ENABLED, True),
        ("UPDATE", {}, {"inject": "enabled"}, INJECT_ENABLED, True),
        ("UPDATE", {}, {}, INJECT_ENABLED, False),
        # CREATE: no old object
        ("CREATE", {"inject": "enabled"}, None, INJECT_ENABLED, True),
        ("CREATE", {}, None, INJECT_ENABLED, False),
        # DELETE: no new object; the old one decides
        ("DELETE", None, {"inject": "enabled"}, INJECT_ENABLED, True),
        ("DELETE", None, {}, INJECT_ENABLED, False),
        # an object without labels is an empty set: DoesNotExist matches
        (
            "CREATE",
            {},
            None,
            {"matchExpressions": [{"key": "skip", "operator": "DoesNotExist"}]},
            True,
        ),
        # no object at all never matches, even DoesNotExist
        (
            "DELETE",
            None,
            None,
            {"matchExpressions": [{"key": "skip", "operator": "DoesNotExist"}]},
            False,
        ),
        # empty selector always passes
        ("DELETE", None, None, {}, True),
    ],
)
def test_object_selector(operation, new, old, selector, expected):
    request = _request(operation=operation, object_labels=new, old_object_labels=old)
    result = evaluate(_hook(objectSelector=selector), request)
    assert result.matched is expected
    if not expected:
        assert result.reason == "objectSelector"


@pytest.mark.parametrize(
    "selector",
    [
        INJECT_ENABLED,
        {"matchExpressions": [{"key": "x", "operator": "DoesNotExist"}]},
        {"matchExpressions": [{"key": "x", "operator": "NotIn", "values": ["y"]}]},
    ],
)
def test_connect_never_matches_a_non_empty_object_selector(selector):
    request = _request(
        operation="CONNECT",
        subresource="exec",
        kind="PodExecOptions",
        object_labels={"inject": "enabled"},
        old_object_labels=None,
    )
    result = evaluate(_hook(objectSelector=selector), request)
    assert not result.matched
    assert result.reason == "objectSelector"
    assert "CONNECT" in result.detail
    assert matches(_hook(), request)


def test_namespace_selector_is_checked_before_object_selector():
    hook = _hook(namespaceSelector=NOT_CONTROL_PLANE, objectSelector=INJECT_ENABLED)
    request = _request(namespace_labels={"control-plane": "true"}, object_labels={})
    assert evaluate(hook, request).reason == "namespaceSelector"


def test_object_selector_is_checked_before_rules():
    hook = _hook(
        objectSelector=INJECT_ENABLED, rules=[dict(ALL_RULE, apiGroups=["apps"])]
    )
    assert evaluate(hook, _request()).reason == "objectSelector"


def test_object_selector_miss_detail_mentions_both_objects():
    request = _request(operation="UPDATE", object_labels={}, old_object_labels={})
    detail = evaluate(_hook(objectSelector=INJECT_ENABLED), request).detail
    assert "the new object has no label inject" in detail
    assert "the old object has no label inject" in detail
