"""Property tests: validate and apply_defaults survive any input, and stay pure."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.domain.webhook_factory import MUTATING, VALIDATING, config, rule, webhook
from webhooks_ui.domain.cel import check_expression
from webhooks_ui.domain.defaulting import apply_defaults
from webhooks_ui.domain.errors import FieldError
from webhooks_ui.domain.validation import validate

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.floats(allow_nan=True),
    st.text(max_size=12),
    st.sampled_from(
        ["", "*", "v1", "None", "Fail", "In", "https://h/", "true", "a.b.c"]
    ),
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(max_size=8), children, max_size=4),
    ),
    max_leaves=12,
)

# Field paths inside a corpus-like object that a mutation may replace.
_PATHS = [
    ("apiVersion",),
    ("kind",),
    ("metadata",),
    ("metadata", "name"),
    ("metadata", "labels"),
    ("webhooks",),
    ("webhooks", 0),
    ("webhooks", 0, "name"),
    ("webhooks", 0, "rules"),
    ("webhooks", 0, "rules", 0),
    ("webhooks", 0, "rules", 0, "operations"),
    ("webhooks", 0, "rules", 0, "resources"),
    ("webhooks", 0, "rules", 0, "scope"),
    ("webhooks", 0, "failurePolicy"),
    ("webhooks", 0, "matchPolicy"),
    ("webhooks", 0, "sideEffects"),
    ("webhooks", 0, "timeoutSeconds"),
    ("webhooks", 0, "reinvocationPolicy"),
    ("webhooks", 0, "namespaceSelector"),
    ("webhooks", 0, "objectSelector"),
    ("webhooks", 0, "objectSelector", "matchExpressions"),
    ("webhooks", 0, "clientConfig"),
    ("webhooks", 0, "clientConfig", "url"),
    ("webhooks", 0, "clientConfig", "service"),
    ("webhooks", 0, "clientConfig", "service", "port"),
    ("webhooks", 0, "clientConfig", "service", "path"),
    ("webhooks", 0, "clientConfig", "caBundle"),
    ("webhooks", 0, "admissionReviewVersions"),
    ("webhooks", 0, "matchConditions"),
    ("webhooks", 0, "matchConditions", 0),
    ("webhooks", 0, "matchConditions", 0, "expression"),
    ("webhooks", 1),
]


def _base(kind: str) -> dict:
    hook = webhook(
        rules=[rule(scope="Namespaced")],
        namespaceSelector={"matchLabels": {"a": "b"}},
        objectSelector={"matchExpressions": [{"key": "k", "operator": "Exists"}]},
        matchConditions=[{"name": "c", "expression": "request.name != ''"}],
    )
    return config(hook, webhook(name="second.example.com"), kind=kind)


def _set(obj: Any, path: tuple, value: Any) -> None:
    for step in path[:-1]:
        try:
            obj = obj[step]
        except (KeyError, IndexError, TypeError):
            return
    last = path[-1]
    if isinstance(obj, dict) or (
        isinstance(obj, list) and isinstance(last, int) and len(obj) > last
    ):
        obj[last] = value


@st.composite
def mutated_configurations(draw: st.DrawFn) -> dict:
    obj = _base(draw(st.sampled_from([MUTATING, VALIDATING])))
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        _set(obj, draw(st.sampled_from(_PATHS)), draw(json_values))
    return obj


def _assert_well_formed(errors: Any) -> None:
    assert isinstance(errors, list)
    for error in errors:
        assert isinstance(error, FieldError)
        assert isinstance(str(error), str)  # rendering must not raise either
        assert error.as_cause()["field"] == error.field


@given(mutated_configurations())
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_validate_never_raises_on_mutated_objects(obj):
    snapshot = copy.deepcopy(obj)
    _assert_well_formed(validate(obj))
    assert obj == snapshot or obj != obj  # NaN never equals itself


@given(mutated_configurations(), mutated_configurations())
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_validate_update_never_raises(new, old):
    _assert_well_formed(validate(new, old=old))


@given(json_values)
def test_validate_never_raises_on_random_values(value):
    _assert_well_formed(validate(value))


@given(mutated_configurations())
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_apply_defaults_is_idempotent_and_pure(obj):
    snapshot = copy.deepcopy(obj)
    once = apply_defaults(obj)
    assert repr(obj) == repr(snapshot)
    assert repr(apply_defaults(once)) == repr(once)


@given(json_values)
def test_apply_defaults_never_raises(value):
    apply_defaults(value)
    apply_defaults({"kind": MUTATING, "webhooks": [value]})


@given(mutated_configurations())
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_validation_is_deterministic(obj):
    assert [e.key() for e in validate(obj)] == [e.key() for e in validate(obj)]


def test_valid_base_objects_have_no_errors():
    assert validate(_base(MUTATING)) == []
    assert validate(_base(VALIDATING)) == []


def test_huge_lists_are_fine():
    hooks = [webhook(name=f"h{i}.example.com") for i in range(2000)]
    obj = config(*hooks)
    obj["webhooks"][0]["rules"][0]["resources"] = ["pods"] * 10_000
    assert validate(obj) == []


@given(
    st.text(
        alphabet=st.sampled_from(list("abxyz01.()[]{}?!&|=<>+-*/%'\"` ,:\\\n")),
        max_size=40,
    )
)
def test_cel_check_never_raises_on_random_expressions(expression):
    result = check_expression(expression)
    assert result is None or isinstance(result, str)
