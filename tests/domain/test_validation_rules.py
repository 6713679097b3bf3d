"""Rules: operations, groups, versions, resources, scope (V-7..V-15, N-1, N-2)."""

import pytest

from tests.domain.webhook_factory import errors_of, rule, webhook
from webhooks_ui.domain.validation import validate

R = "webhooks[0].rules[0]"


def _rule_errors(**overrides) -> list[tuple[str, str]]:
    return errors_of(webhook(rules=[rule(**overrides)]))


@pytest.mark.parametrize(
    ("operations", "expected"),
    [
        (["CREATE"], []),
        (["*"], []),
        (["CREATE", "UPDATE", "DELETE", "CONNECT"], []),
        (["CREATE", "CREATE"], []),  # N-1: duplicates are fine
        ([], [(f"{R}.operations", "Required")]),  # V-7
        (None, [(f"{R}.operations", "Required")]),
        (["*", "CREATE"], [(f"{R}.operations", "Invalid")]),  # V-8
        (["*", "*"], [(f"{R}.operations", "Invalid")]),
        (["create"], [(f"{R}.operations[0]", "NotSupported")]),  # V-9
        (["CREATE", ""], [(f"{R}.operations[1]", "NotSupported")]),
        (
            ["*", "PATCH"],
            [(f"{R}.operations", "Invalid"), (f"{R}.operations[1]", "NotSupported")],
        ),
        ("CREATE", [(f"{R}.operations", "Invalid")]),
        ([1], [(f"{R}.operations[0]", "Invalid")]),
    ],
)
def test_v7_to_v9_operations(operations, expected):
    assert _rule_errors(operations=operations) == expected


def test_v9_message_lists_supported_operations():
    errors = validate(
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "cfg"},
            "webhooks": [webhook(rules=[rule(operations=["PATCH"])])],
        }
    )
    assert str(errors[0]) == (
        f'{R}.operations[0]: Unsupported value: "PATCH": supported values: '
        '"*", "CONNECT", "CREATE", "DELETE", "UPDATE"'
    )


@pytest.mark.parametrize(
    ("groups", "expected"),
    [
        ([""], []),
        (["", "apps"], []),
        (["*"], []),
        (["not a group!"], []),  # N-2: groups are not checked as names
        ([], [(f"{R}.apiGroups", "Required")]),
        (["*", "apps"], [(f"{R}.apiGroups", "Invalid")]),
    ],
)
def test_v10_api_groups(groups, expected):
    assert _rule_errors(apiGroups=groups) == expected


@pytest.mark.parametrize(
    ("versions", "expected"),
    [
        (["v1"], []),
        (["*"], []),
        (["v1", "v1"], []),
        ([], [(f"{R}.apiVersions", "Required")]),
        (["*", "v1"], [(f"{R}.apiVersions", "Invalid")]),
        (["v1", ""], [(f"{R}.apiVersions[1]", "Required")]),
        (
            ["", ""],
            [(f"{R}.apiVersions[0]", "Required"), (f"{R}.apiVersions[1]", "Required")],
        ),
    ],
)
def test_v11_api_versions(versions, expected):
    assert _rule_errors(apiVersions=versions) == expected


@pytest.mark.parametrize(
    ("resources", "expected"),
    [
        (["pods"], []),
        (["pods", "pods/status"], []),
        ([], [(f"{R}.resources", "Required")]),
        ([""], [(f"{R}.resources[0]", "Required")]),
        (["pods", ""], [(f"{R}.resources[1]", "Required")]),
    ],
)
def test_v12_resources_required(resources, expected):
    assert _rule_errors(resources=resources) == expected


# V-13, exactly as listed in the spec: order matters.
@pytest.mark.parametrize(
    ("resources", "expected"),
    [
        (["a/*", "a/x"], [(f"{R}.resources[1]", "Invalid")]),
        (["a/x", "a/*"], []),
        (["*/a", "x/a"], [(f"{R}.resources[1]", "Invalid")]),
        (["x/a", "*/a"], []),
        (["*", "a"], [(f"{R}.resources", "Invalid")]),
        (["a", "*", "b"], [(f"{R}.resources", "Invalid")]),
        (["a", "*"], []),
        (["*", "a/b", "a/*", "*/b"], []),
        (["a/*", "a"], []),
        (["*/*"], []),
        (["*/*", "a/b"], [(f"{R}.resources", "Invalid")]),
        (
            ["*/*", "a/*"],
            [(f"{R}.resources[1]", "Invalid"), (f"{R}.resources", "Invalid")],
        ),
        (
            ["*/*", "*/x"],
            [(f"{R}.resources[1]", "Invalid"), (f"{R}.resources", "Invalid")],
        ),
        (
            ["*/*", "*/*"],
            [
                (f"{R}.resources[1]", "Invalid"),
                (f"{R}.resources[1]", "Invalid"),
                (f"{R}.resources", "Invalid"),
            ],
        ),
        (["a/*", "a/b/c"], [(f"{R}.resources[1]", "Invalid")]),
        (["*"], []),
        (["*", "*"], []),
        (
            ["", "*", "a"],
            [(f"{R}.resources[0]", "Required"), (f"{R}.resources", "Invalid")],
        ),
    ],
)
def test_v13_resource_wildcards_are_order_dependent(resources, expected):
    assert _rule_errors(resources=resources) == expected


def test_v13_messages():
    errors = validate(
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "cfg"},
            "webhooks": [webhook(rules=[rule(resources=["a/*", "a/x", "*", "b"])])],
        }
    )
    assert [e.detail for e in errors] == [
        "if 'a/*' is present, must not specify a/x",
        "if '*' is present, must not specify other resources without subresources",
    ]


@pytest.mark.parametrize(
    ("scope", "expected"),
    [
        ("Cluster", []),
        ("Namespaced", []),
        ("*", []),
        (None, []),  # defaulted to "*" (D-3)
        ("", [(f"{R}.scope", "NotSupported")]),
        ("cluster", [(f"{R}.scope", "NotSupported")]),
        (3, [(f"{R}.scope", "Invalid")]),
    ],
)
def test_v14_scope(scope, expected):
    assert _rule_errors(scope=scope) == expected


def test_v15_unknown_resources_are_not_checked():
    assert _rule_errors(apiGroups=["no.such.group"], resources=["nothings"]) == []


def test_rules_of_the_wrong_type():
    assert errors_of(webhook(rules="pods")) == [("webhooks[0].rules", "Invalid")]
    assert errors_of(webhook(rules=[None])) == [("webhooks[0].rules[0]", "Invalid")]
    assert errors_of(webhook(rules=[])) == []


def test_every_rule_is_checked_in_order():
    hooks = webhook(rules=[rule(operations=[]), rule(), rule(resources=[])])
    assert errors_of(hooks) == [
        ("webhooks[0].rules[0].operations", "Required"),
        ("webhooks[0].rules[2].resources", "Required"),
    ]


def test_rule_fields_in_validation_go_order():
    assert _rule_errors(
        operations=[], apiGroups=[], apiVersions=[], resources=[], scope="x"
    ) == [
        (f"{R}.operations", "Required"),
        (f"{R}.apiGroups", "Required"),
        (f"{R}.apiVersions", "Required"),
        (f"{R}.resources", "Required"),
        (f"{R}.scope", "NotSupported"),
    ]
