"""matchConditions (V-34..V-37) and the CEL compile check behind V-35."""

import pytest

from tests.domain.webhook_factory import config, errors_of, webhook
from webhooks_ui.domain.cel import check_expression, tokenize
from webhooks_ui.domain.validation import validate

M = "webhooks[0].matchConditions"


def _conditions(*conditions: dict) -> list[tuple[str, str]]:
    return errors_of(webhook(matchConditions=list(conditions)))


def _cond(name: str = "c", expression: str = "true") -> dict:
    return {"name": name, "expression": expression}


def test_v34_at_most_64_conditions_each_still_validated():
    conditions = [_cond(f"c{i}") for i in range(64)]
    assert _conditions(*conditions) == []
    conditions.append(_cond("", "true"))
    assert _conditions(*conditions) == [(M, "TooMany"), (f"{M}[64].name", "Required")]


def test_v34_message():
    hook = webhook(matchConditions=[_cond(f"c{i}") for i in range(65)])
    assert str(validate(config(hook))[0]) == (
        f"{M}: Too many: 65: must have at most 64 items"
    )


@pytest.mark.parametrize(
    "expression",
    [
        "true",
        'request.userInfo.username != "system:serviceaccount:kube-system:x"',
        "object.metadata.name.startsWith('a') && oldObject == null",
        "has(object.metadata.labels) && 'env' in object.metadata.labels",
        "object.metadata.labels.all(k, k.startsWith('x'))",
        "request.userInfo.groups.exists(g, g == 'system:masters')",
        "!(request.userInfo.username in ['a', 'b'])",
        "authorizer.group('apps').resource('deployments').check('get').allowed()",
        "authorizer.requestResource.check('create').allowed()",
        "object.?spec.?replicas.orValue(1) > 0",  # optional syntax
        "object[?'spec'].hasValue()",
        "object.spec.`weird-field` == 'x'",  # escaped field name
        "namespaceObject.metadata.name == 'ns'",
        "math.greatest(1, 2) == 2 && optional.of(1).hasValue()",
        "cel.bind(x, object.spec, x == null)",
        "type(object) == map",
        "object.x",  # dyn: may be bool, accept
        "object.x ? true : 1",
        "  true  ",  # trimmed first
        "object.metadata.labels.exists(k, k == 'x') // a comment",
    ],
)
def test_v35_accepted_expressions(expression):
    assert _conditions(_cond(expression=expression)) == []


@pytest.mark.parametrize(
    "expression",
    [
        "1 +",
        "object..spec",
        "a b",
        "has(a)",
        "namespace == 'x'",  # reserved identifier
        "params.foo == 1",  # no params for webhooks
        "x == 1",
        "[1].all(x, x > 0) && x2",
        "variables.v == 1",
        "'a string'",
        "1",
        "[1, 2]",
        "{'a': true}",
        "1 + 2",
        "'a' + object.x",
        "-object.x",
        "null",
        "9223372036854775808 > 0",
    ],
)
def test_v35_rejected_expressions(expression):
    assert _conditions(_cond(expression=expression)) == [
        (f"{M}[0].expression", "Invalid")
    ]


@pytest.mark.parametrize("expression", ["", "   ", "\n\t", None])
def test_v35_empty_expression_required(expression):
    assert _conditions(_cond(expression=expression)) == [
        (f"{M}[0].expression", "Required")
    ]


def test_v35_messages():
    hook = webhook(
        matchConditions=[
            _cond("a", "params.x == 1"),
            _cond("b", "'text'"),
            _cond("c", "1 +"),
        ]
    )
    errors = validate(config(hook))
    assert errors[0].detail == (
        "compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' "
        "(in container '')\n | params.x == 1\n | ^"
    )
    assert errors[0].value == "params.x == 1"
    assert errors[1].detail == "must evaluate to bool but got string"
    assert errors[2].detail.startswith(
        "compilation failed: ERROR: <input>:1:4: Syntax error: mismatched input '<EOF>'"
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("c", []),
        ("example.com/my-cond", []),
        ("My_Cond.1", []),
        ("", [(f"{M}[0].name", "Required")]),
        (None, [(f"{M}[0].name", "Required")]),
        ("bad name", [(f"{M}[0].name", "Invalid")]),
        ("a/b/c", [(f"{M}[0].name", "Invalid")]),
        (7, [(f"{M}[0].name", "Invalid")]),
    ],
)
def test_v36_condition_name(name, expected):
    assert _conditions(_cond(name=name)) == expected


def test_v37_duplicate_names_within_one_webhook_only():
    assert _conditions(_cond("a"), _cond("b"), _cond("a"), _cond("a")) == [
        (f"{M}[2].name", "Duplicate"),
        (f"{M}[3].name", "Duplicate"),
    ]
    hooks = [
        webhook(name="a.b.c", matchConditions=[_cond("same")]),
        webhook(name="x.y.z", matchConditions=[_cond("same")]),
    ]
    assert errors_of(*hooks) == []  # N-5
    assert _conditions(_cond(""), _cond("")) == [
        (f"{M}[0].name", "Required"),
        (f"{M}[1].name", "Required"),
    ]


def test_condition_fields_in_order():
    assert _conditions(_cond("bad name", "")) == [
        (f"{M}[0].expression", "Required"),
        (f"{M}[0].name", "Invalid"),
    ]


@pytest.mark.parametrize("conditions", ["x", {"a": 1}, [None], [[]]])
def test_match_conditions_of_the_wrong_type(conditions):
    errors = errors_of(webhook(matchConditions=conditions))
    assert len(errors) == 1 and errors[0][1] == "Invalid"


# --- the checker on its own ---------------------------------------------------


def test_compiles_are_cached():
    check_expression.cache_clear()
    check_expression("object.a == 1")
    check_expression("object.a == 1")
    assert check_expression.cache_info().hits == 1


@pytest.mark.parametrize(
    "expression",
    [
        "(" * 60_000 + "x" + ")" * 40_000,
        "a" + ".b" * 45_000,
        " + ".join(["1"] * 33_000),
        "x" + "[0]" * 33_000,
        "!" * 99_000 + "true",
        "f(" * 40_000,
        "'unterminated",
        "\x00",
    ],
)
def test_pathological_expressions_never_crash(expression):
    assert isinstance(check_expression(expression), str | None)


def test_size_limit():
    detail = check_expression("true && " * 12_500 + "true")
    assert detail is not None and "code point size exceeds limit" in detail


def test_tokenize():
    tokens = tokenize("r'a\\' + b\"x\" + 1u + 0x1F + .5 + `f`")
    assert [t.kind for t in tokens] == [
        "string",
        "op",
        "bytes",
        "op",
        "uint",
        "op",
        "int",
        "op",
        "double",
        "op",
        "quoted",
    ]
    assert tokenize("'unterminated") is None


def test_parses_inline_when_no_big_stack_thread_can_start(monkeypatch):
    def refuse(size: int = 0) -> int:
        raise ValueError("size not valid")

    monkeypatch.setattr("webhooks_ui.domain.cel.threading.stack_size", refuse)
    check_expression.cache_clear()
    assert check_expression("object.a == 1 &&") is not None
    assert check_expression("object.a == 1") is None
    assert check_expression("x" + "[0]" * 20_000) is None  # too deep to try inline
    check_expression.cache_clear()
