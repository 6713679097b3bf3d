"""namespaceSelector / objectSelector (V-30..V-33) and the reusable name checks."""

import pytest

from tests.domain.webhook_factory import config, errors_of, webhook
from webhooks_ui.domain.labels import (
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    validate_label_selector,
)
from webhooks_ui.domain.validation import validate

N = "webhooks[0].namespaceSelector"
OBJ = "webhooks[0].objectSelector"


def _selector(selector: object, field: str = "namespaceSelector") -> list:
    return errors_of(webhook(**{field: selector}))


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        ({}, []),
        ({"app": "web", "example.com/tier": "", "a.b_c-d": "X_y.z-1"}, []),
        ({"bad key": "v"}, [(f"{N}.matchLabels", "Invalid")]),
        ({"k": "bad value"}, [(f"{N}.matchLabels", "Invalid")]),
        ({"k": "v" * 64}, [(f"{N}.matchLabels", "Invalid")]),
        ({"Example.com/k": "v"}, [(f"{N}.matchLabels", "Invalid")]),
        ({"/k": "v"}, [(f"{N}.matchLabels", "Invalid")]),
        ({"a/b/c": "v"}, [(f"{N}.matchLabels", "Invalid")]),
        ({"k": None}, []),  # JSON null decodes to ""
        ({"k": 1}, [(f"{N}.matchLabels", "Invalid")]),
        ({"bad key": "bad value"}, [(f"{N}.matchLabels", "Invalid")] * 2),
    ],
)
def test_v30_match_labels(labels, expected):
    assert _selector({"matchLabels": labels}) == expected


def _expression(**fields) -> list:
    requirement = {"key": "k", "operator": "In", "values": ["a"]}
    requirement.update(fields)
    return _selector({"matchExpressions": [requirement]}, "objectSelector")


E = f"{OBJ}.matchExpressions[0]"


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({}, []),
        ({"operator": "NotIn"}, []),
        ({"operator": "Exists", "values": []}, []),
        ({"operator": "DoesNotExist", "values": None}, []),
        ({"values": []}, [(f"{E}.values", "Required")]),
        ({"operator": "NotIn", "values": None}, [(f"{E}.values", "Required")]),
        ({"operator": "Exists"}, [(f"{E}.values", "Forbidden")]),
        ({"operator": "DoesNotExist"}, [(f"{E}.values", "Forbidden")]),
        ({"operator": "in"}, [(f"{E}.operator", "Invalid")]),
        ({"operator": "Equals"}, [(f"{E}.operator", "Invalid")]),
        ({"operator": ""}, [(f"{E}.operator", "Invalid")]),
    ],
)
def test_v31_operators(fields, expected):
    assert _expression(**fields) == expected


@pytest.mark.parametrize(
    ("key", "count"),
    [("k", 0), ("example.com/k", 0), ("", 2), ("a/b/c", 1), ("bad key", 1), ("/k", 1)],
)
def test_v32_key(key, count):
    assert _expression(key=key) == [(f"{E}.key", "Invalid")] * count


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (["a", "", "A_b.c-1"], []),
        (["ok", "bad value"], [(f"{E}.values[1]", "Invalid")]),
        (["x" * 64], [(f"{E}.values[0]", "Invalid")]),
        (["-a", "b-"], [(f"{E}.values[0]", "Invalid"), (f"{E}.values[1]", "Invalid")]),
        ([3], [(f"{E}.values[0]", "Invalid")]),
    ],
)
def test_v33_values(values, expected):
    assert _expression(values=values) == expected


def test_selector_messages():
    selector = {
        "matchExpressions": [
            {"key": "k", "operator": "In", "values": []},
            {"key": "k", "operator": "Exists", "values": ["a"]},
            {"key": "k", "operator": "in", "values": ["a"]},
        ]
    }
    errors = validate(config(webhook(namespaceSelector=selector)))
    assert [str(e) for e in errors] == [
        f"{N}.matchExpressions[0].values: Required value: must be specified when "
        "`operator` is 'In' or 'NotIn'",
        f"{N}.matchExpressions[1].values: Forbidden: may not be specified when "
        "`operator` is 'Exists' or 'DoesNotExist'",
        f'{N}.matchExpressions[2].operator: Invalid value: "in": not a valid '
        "selector operator",
    ]


def test_selector_errors_in_apimachinery_order():
    selector = {
        "matchLabels": {"k": "bad value"},
        "matchExpressions": [{"key": "", "operator": "Nope", "values": ["bad value"]}],
    }
    assert _selector(selector) == [
        (f"{N}.matchLabels", "Invalid"),
        (f"{N}.matchExpressions[0].operator", "Invalid"),
        (f"{N}.matchExpressions[0].key", "Invalid"),
        (f"{N}.matchExpressions[0].key", "Invalid"),
        (f"{N}.matchExpressions[0].values[0]", "Invalid"),
    ]


@pytest.mark.parametrize(
    "selector",
    [
        "x",
        [],
        {"matchLabels": "x"},
        {"matchExpressions": {}},
        {"matchExpressions": [1]},
    ],
)
def test_selectors_of_the_wrong_type(selector):
    errors = _selector(selector)
    assert len(errors) == 1 and errors[0][1] == "Invalid"


def test_null_selector_is_defaulted_to_match_everything():
    assert _selector(None) == []


def test_allow_invalid_label_value_only_skips_expression_values():
    selector = {
        "matchLabels": {"k": "bad value"},
        "matchExpressions": [{"key": "k", "operator": "In", "values": ["bad value"]}],
    }
    relaxed = validate_label_selector(selector, "s", allow_invalid_label_value=True)
    assert [e.field for e in relaxed] == ["s.matchLabels"]


# --- the reusable string checks -------------------------------------------------------


def test_is_dns1123_subdomain():
    assert is_dns1123_subdomain("a.b-c") == []
    assert len(is_dns1123_subdomain("A" * 254)) == 2


def test_is_dns1123_label():
    assert is_dns1123_label("abc") == []
    assert is_dns1123_label("a.b") == ["must not contain dots"]


def test_is_dns1035_label_message():
    assert is_dns1035_label("0v") == [
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
        "start with an alphabetic character, and end with an alphanumeric character "
        "(e.g. 'my-name',  or 'abc-123', regex used for validation is "
        "'[a-z]([-a-z0-9]*[a-z0-9])?')".replace(",  or", " or")
    ]


def test_is_qualified_name_messages():
    assert is_qualified_name("example.com/My.Name-1") == []
    assert is_qualified_name("/x") == ["prefix part must be non-empty"]
    assert is_qualified_name("x/") == [
        "name part must be non-empty",
        "name part must consist of alphanumeric characters, '-', '_' or '.', and "
        "must start and end with an alphanumeric character (e.g. 'MyName',  or "
        "'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')".replace(",  or", " or"),
    ]
    assert is_qualified_name("a/b/c")[0].startswith("a valid label key must consist")


def test_is_valid_label_value_counts_bytes():
    assert is_valid_label_value("") == []
    assert is_valid_label_value("é") != []
    assert is_valid_label_value("x" * 63) == []
