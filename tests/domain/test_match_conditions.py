"""matchConditions evaluated offline with the cel runtime (spec M-8)."""

from __future__ import annotations

import pytest

from webhooks_ui.domain.match_conditions import (
    AUTHORIZER_UNKNOWN,
    cel_request,
    evaluate_match_conditions,
)

REQUEST = {
    "operation": "CREATE",
    "group": "",
    "version": "v1",
    "resource": "pods",
    "subresource": "",
    "kind": "Pod",
    "name": "web-1",
    "namespace": "default",
}
USER = {"username": "alice", "uid": "1", "groups": ["dev", "system:authenticated"]}
POD = {"metadata": {"name": "web-1", "labels": {"app": "web"}}}


def _run(*expressions: str, failure_policy: str = "Fail", **kwargs):
    webhook = {
        "failurePolicy": failure_policy,
        "matchConditions": [
            {"name": f"c{index}", "expression": expression}
            for index, expression in enumerate(expressions)
        ],
    }
    kwargs.setdefault("object", POD)
    return evaluate_match_conditions(
        webhook, request=cel_request(REQUEST, user=USER), **kwargs
    )


@pytest.mark.parametrize(
    ("expressions", "policy", "decision", "outcomes"),
    [
        ((), "Fail", "call", []),
        (("true",), "Fail", "call", ["true"]),
        (("true", "false"), "Fail", "skip", ["true", "false"]),
        # an error with no false: Fail rejects, Ignore skips
        (("object.metadata.labels['missing'] == 'x'",), "Fail", "reject", ["error"]),
        (("object.metadata.labels['missing'] == 'x'",), "Ignore", "skip", ["error"]),
        # any false wins over an error
        (("object.nope == 1", "false"), "Fail", "skip", ["error", "false"]),
        # a non-bool result is an error
        (("1 + 1",), "Fail", "reject", ["error"]),
        # syntax errors are errors
        (("object.metadata.",), "Fail", "reject", ["error"]),
        # authorizer: unknown, never guessed
        (
            ("authorizer.group('').resource('pods').check('create').allowed()",),
            "Fail",
            "unknown",
            ["unknown"],
        ),
        # ... but a false elsewhere still decides
        (
            ("authorizer.requestResource.check('get').allowed()", "false"),
            "Fail",
            "skip",
            ["unknown", "false"],
        ),
        # an unknown with an error: the unknown might be false
        (
            ("authorizer.serviceAccount('a', 'b').check('x').allowed()", "1/0 == 1"),
            "Fail",
            "unknown",
            ["unknown", "error"],
        ),
    ],
)
def test_m8_decisions(expressions, policy, decision, outcomes):
    result = _run(*expressions, failure_policy=policy)
    assert result.decision == decision
    assert [c.outcome for c in result.conditions] == outcomes


@pytest.mark.parametrize(
    "expression",
    [
        "object.metadata.labels['app'] == 'web'",
        "oldObject == null",
        "request.operation == 'CREATE'",
        "request.kind.kind == 'Pod' && request.resource.resource == 'pods'",
        "request.userInfo.username == 'alice'",
        "'dev' in request.userInfo.groups",
        "!request.userInfo.groups.exists(g, g == 'system:masters')",
        "request.namespace == 'default' && request.name == 'web-1'",
        "request.subResource == '' && request.dryRun == false",
        "has(object.metadata.labels) && !has(object.spec)",
        "namespaceObject.metadata.name == 'default'",
    ],
)
def test_variables_are_bound(expression):
    result = _run(expression, namespace_object={"metadata": {"name": "default"}})
    assert [c.outcome for c in result.conditions] == ["true"], result.conditions


def test_old_object_and_missing_object():
    result = _run(
        "object == null && oldObject.metadata.name == 'web-1'",
        object=None,
        old_object=POD,
    )
    assert result.decision == "call"


def test_authorizer_detail_is_explicit():
    result = _run("authorizer.group('').resource('pods').check('get').allowed()")
    assert result.conditions[0].detail == AUTHORIZER_UNKNOWN
    # a field called authorizer is not the variable
    result = _run("has(object.metadata.authorizer) == false")
    assert result.conditions[0].outcome == "true"


def test_unsupported_cel_go_syntax_is_unknown_not_an_error():
    result = _run("object.?metadata.?labels.orValue({}) == {}")
    assert result.conditions[0].outcome == "unknown"
    assert result.decision == "unknown"


def test_errors_carry_text_and_never_raise():
    for expression in (
        "1/0 == 1",
        "object.spec.containers[0].image == 'x'",
        "x == 1",
        "",
    ):
        result = _run(expression)
        condition = result.conditions[0]
        assert condition.outcome == "error"
        assert condition.detail


def test_converted_request_carries_both_kinds():
    request = dict(REQUEST, group="apps", version="v1beta2", resource="deployments")
    request["kind"] = "Deployment"
    value = cel_request(
        request,
        converted_to=("apps", "v1", "deployments"),
        converted_kind=("apps", "v1", "Deployment"),
    )
    assert value["resource"] == {
        "group": "apps",
        "version": "v1",
        "resource": "deployments",
    }
    assert value["requestResource"]["version"] == "v1beta2"
    assert value["kind"]["version"] == "v1"
    assert value["requestKind"]["version"] == "v1beta2"
    assert value["userInfo"] == {"username": "", "uid": "", "groups": [], "extra": {}}
