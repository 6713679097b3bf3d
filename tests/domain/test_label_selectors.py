"""Label selector semantics (spec M-9), table-driven."""

import pytest

from webhooks_ui.domain.label_selectors import (
    EVERYTHING,
    INVALID,
    NOTHING,
    compile_selector,
    match_selector,
    selector_matches,
)


def _expr(key: str, operator: str, *values: str) -> dict:
    requirement: dict = {"key": key, "operator": operator}
    if values:
        requirement["values"] = list(values)
    return {"matchExpressions": [requirement]}


@pytest.mark.parametrize(
    ("selector", "labels", "expected"),
    [
        # null matches nothing, {} everything
        (None, {}, False),
        (None, {"a": "b"}, False),
        ({}, {}, True),
        ({"matchLabels": {}, "matchExpressions": []}, {"x": "y"}, True),
        # matchLabels: exact, case-sensitive, key must be present
        ({"matchLabels": {"app": "web"}}, {"app": "web"}, True),
        ({"matchLabels": {"app": "web"}}, {"app": "Web"}, False),
        ({"matchLabels": {"app": "web"}}, {"App": "web"}, False),
        ({"matchLabels": {"app": "web"}}, {}, False),
        ({"matchLabels": {"app": ""}}, {"app": ""}, True),
        ({"matchLabels": {"app": ""}}, {}, False),
        # In: key present and value listed; absent never matches, even with ""
        (_expr("env", "In", "prod", "stage"), {"env": "prod"}, True),
        (_expr("env", "In", "prod", "stage"), {"env": "dev"}, False),
        (_expr("env", "In", "prod"), {}, False),
        (_expr("env", "In", ""), {}, False),
        (_expr("env", "In", ""), {"env": ""}, True),
        # NotIn: key absent, or value not listed
        (_expr("env", "NotIn", "prod"), {}, True),
        (_expr("env", "NotIn", "prod"), {"env": "dev"}, True),
        (_expr("env", "NotIn", "prod"), {"env": "prod"}, False),
        (_expr("env", "NotIn", ""), {"env": ""}, False),
        # Exists: any value, "" included; DoesNotExist: absent
        (_expr("env", "Exists"), {"env": ""}, True),
        (_expr("env", "Exists"), {"other": "x"}, False),
        (_expr("env", "DoesNotExist"), {}, True),
        (_expr("env", "DoesNotExist"), {"env": ""}, False),
        # AND of everything
        (
            {
                "matchLabels": {"a": "1"},
                "matchExpressions": [
                    {"key": "b", "operator": "Exists"},
                    {"key": "c", "operator": "NotIn", "values": ["x"]},
                ],
            },
            {"a": "1", "b": "", "c": "y"},
            True,
        ),
        (
            {
                "matchLabels": {"a": "1"},
                "matchExpressions": [{"key": "b", "operator": "Exists"}],
            },
            {"a": "1"},
            False,
        ),
        # prefixed keys
        (_expr("example.com/tier", "In", "gold"), {"example.com/tier": "gold"}, True),
    ],
)
def test_selector_semantics(selector, labels, expected):
    assert selector_matches(selector, labels) is expected
    assert match_selector(selector, labels).matched is expected


@pytest.mark.parametrize(
    "selector",
    [
        _expr("env", "in", "prod"),  # operators are case-sensitive
        _expr("env", "Equals", "prod"),
        _expr("env", "In"),  # In without values
        _expr("env", "NotIn"),
        _expr("env", "Exists", "x"),  # Exists with values
        _expr("env", "DoesNotExist", "x"),
        _expr("bad key", "Exists"),
        _expr("a/b/c", "Exists"),
        _expr("env", "In", "bad value"),  # kept in storage through V-43
        {"matchLabels": {"env": "bad value"}},
        {"matchLabels": {"bad key": "x"}},
        "not-a-selector",
        {"matchExpressions": "nope"},
    ],
)
def test_unconvertible_selectors_are_errors_and_match_nothing(selector):
    compiled = compile_selector(selector)
    assert compiled.state == INVALID
    assert compiled.error
    assert not compiled.matches({"env": "prod"})
    result = match_selector(selector, {"env": "prod"})
    assert not result.matched
    assert result.error


def test_compile_states():
    assert compile_selector(None).state == NOTHING
    assert compile_selector({}).state == EVERYTHING
    assert compile_selector({}).is_empty
    assert not compile_selector(None).is_empty
    assert not compile_selector({"matchLabels": {"a": "b"}}).is_empty


@pytest.mark.parametrize(
    ("selector", "labels", "detail"),
    [
        (
            _expr("control-plane", "NotIn", "true"),
            {"control-plane": "true"},
            "namespace kube-system has label control-plane=true, "
            "excluded by NotIn (true)",
        ),
        (
            _expr("inject", "In", "enabled"),
            {},
            "namespace kube-system has no label inject, required by In (enabled)",
        ),
        (
            _expr("inject", "In", "enabled"),
            {"inject": "off"},
            "namespace kube-system has label inject=off, "
            "not in (enabled) required by In",
        ),
        (
            _expr("inject", "Exists"),
            {},
            "namespace kube-system has no label inject, required by Exists",
        ),
        (
            _expr("skip", "DoesNotExist"),
            {"skip": ""},
            'namespace kube-system has label skip="", excluded by DoesNotExist',
        ),
        (
            {"matchLabels": {"team": "a"}},
            {"team": "b"},
            "namespace kube-system has label team=b, matchLabels requires team=a",
        ),
    ],
)
def test_failure_details_say_why(selector, labels, detail):
    result = match_selector(selector, labels, subject="namespace kube-system")
    assert not result.matched
    assert result.detail == detail


def test_match_detail_describes_the_selector():
    result = match_selector(
        _expr("control-plane", "DoesNotExist"), {}, subject="namespace default"
    )
    assert result.matched
    assert result.detail.startswith("namespace default is selected:")
    assert "without label control-plane" in result.detail


def test_missing_labels_never_match_a_non_empty_selector():
    assert not match_selector(_expr("a", "DoesNotExist"), None).matched
    assert match_selector({}, None).matched
