"""Enumerated fields (V-16..V-20) and admissionReviewVersions (V-21..V-24)."""

import pytest

from tests.domain.webhook_factory import (
    MUTATING,
    VALIDATING,
    config,
    errors_of,
    webhook,
)
from webhooks_ui.domain.validation import validate

W = "webhooks[0]"


def _message(hook: dict, kind: str = VALIDATING) -> str:
    return str(validate(config(hook, kind=kind))[0])


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Fail", []),
        ("Ignore", []),
        (None, []),
        ("", [(f"{W}.failurePolicy", "NotSupported")]),
        ("fail", [(f"{W}.failurePolicy", "NotSupported")]),
        (True, [(f"{W}.failurePolicy", "Invalid")]),
    ],
)
def test_v16_failure_policy(value, expected):
    assert errors_of(webhook(failurePolicy=value)) == expected


def test_v16_message():
    assert _message(webhook(failurePolicy="")) == (
        f'{W}.failurePolicy: Unsupported value: "": supported values: "Fail", "Ignore"'
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Exact", []),
        ("Equivalent", []),
        (None, []),
        ("", [(f"{W}.matchPolicy", "NotSupported")]),
        ("exact", [(f"{W}.matchPolicy", "NotSupported")]),
    ],
)
def test_v17_match_policy(value, expected):
    assert errors_of(webhook(matchPolicy=value)) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("None", []),
        ("NoneOnDryRun", []),
        (None, [(f"{W}.sideEffects", "Required")]),
        ("Some", [(f"{W}.sideEffects", "NotSupported")]),
        ("Unknown", [(f"{W}.sideEffects", "NotSupported")]),
        ("", [(f"{W}.sideEffects", "NotSupported")]),
        ("none", [(f"{W}.sideEffects", "NotSupported")]),
        (0, [(f"{W}.sideEffects", "Invalid")]),
    ],
)
def test_v18_side_effects(value, expected):
    assert errors_of(webhook(sideEffects=value)) == expected


def test_v18_absent_side_effects_is_required():
    assert errors_of(webhook(drop=["sideEffects"])) == [
        (f"{W}.sideEffects", "Required")
    ]


def test_v18_messages():
    assert _message(webhook(sideEffects=None)) == (
        f"{W}.sideEffects: Required value: must specify one of None, NoneOnDryRun"
    )
    assert _message(webhook(sideEffects="Some")) == (
        f'{W}.sideEffects: Unsupported value: "Some": supported values: '
        '"None", "NoneOnDryRun"'
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1, []),
        (10, []),
        (30, []),
        (None, []),  # defaulted to 10
        (0, [(f"{W}.timeoutSeconds", "Invalid")]),
        (31, [(f"{W}.timeoutSeconds", "Invalid")]),
        (-5, [(f"{W}.timeoutSeconds", "Invalid")]),
        ("ten", [(f"{W}.timeoutSeconds", "Invalid")]),
        ("10", [(f"{W}.timeoutSeconds", "Invalid")]),
        (10.5, [(f"{W}.timeoutSeconds", "Invalid")]),
        (True, [(f"{W}.timeoutSeconds", "Invalid")]),
        (2**31, [(f"{W}.timeoutSeconds", "Invalid")]),
    ],
)
def test_v19_timeout_seconds(value, expected):
    assert errors_of(webhook(timeoutSeconds=value)) == expected


def test_v19_messages():
    assert _message(webhook(timeoutSeconds=0)) == (
        f"{W}.timeoutSeconds: Invalid value: 0: "
        "the timeout value must be between 1 and 30 seconds"
    )
    assert _message(webhook(timeoutSeconds="ten")) == (
        f'{W}.timeoutSeconds: Invalid value: "ten": must be an integer'
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Never", []),
        ("IfNeeded", []),
        (None, []),
        ("", [(f"{W}.reinvocationPolicy", "NotSupported")]),
        ("Always", [(f"{W}.reinvocationPolicy", "NotSupported")]),
    ],
)
def test_v20_reinvocation_policy_on_mutating(value, expected):
    assert errors_of(webhook(reinvocationPolicy=value), kind=MUTATING) == expected


def test_v20_reinvocation_policy_is_ignored_on_validating():
    assert errors_of(webhook(reinvocationPolicy="Always")) == []


A = f"{W}.admissionReviewVersions"


@pytest.mark.parametrize(
    ("versions", "expected"),
    [
        (["v1"], []),
        (["v1beta1"], []),
        (["v1", "v1beta1"], []),
        (["v1beta1", "invalid-version"], []),  # V-24: one accepted is enough
        ([], [(A, "Required")]),  # V-21
        (None, [(A, "Required")]),
        (["v1", "v1"], [(f"{A}[1]", "Invalid")]),  # V-22
        (
            ["V1", "V1"],
            [(f"{A}[0]", "Invalid"), (f"{A}[1]", "Invalid"), (A, "Invalid")],
        ),
        (["v1", "0v"], [(f"{A}[1]", "Invalid")]),  # V-23
        (["v1", "invalidVersion"], [(f"{A}[1]", "Invalid")]),
        (["v2"], [(A, "Invalid")]),  # V-24
        (["V1"], [(f"{A}[0]", "Invalid"), (A, "Invalid")]),
        (["v1", ""], [(f"{A}[1]", "Invalid")]),
        ("v1", [(A, "Invalid")]),
    ],
)
def test_v21_to_v24_admission_review_versions(versions, expected):
    assert errors_of(webhook(admissionReviewVersions=versions)) == expected


def test_v21_absent_versions_are_required():
    assert errors_of(webhook(drop=["admissionReviewVersions"])) == [(A, "Required")]


def test_v21_v24_messages():
    assert _message(webhook(admissionReviewVersions=[])) == (
        f"{A}: Required value: must specify one of v1, v1beta1"
    )
    assert _message(webhook(admissionReviewVersions=["v2"])) == (
        f'{A}: Invalid value: ["v2"]: must include at least one of v1, v1beta1'
    )
    assert _message(webhook(admissionReviewVersions=["v1", "v1"])) == (
        f'{A}[1]: Invalid value: "v1": duplicate version'
    )


def test_webhook_field_order_follows_validation_go():
    hook = webhook(
        name="",
        rules=[{"operations": []}],
        failurePolicy="x",
        matchPolicy="x",
        sideEffects="x",
        timeoutSeconds=0,
        namespaceSelector={"matchLabels": {"k": "bad value"}},
        objectSelector={"matchLabels": {"k": "bad value"}},
        reinvocationPolicy="x",
        clientConfig={},
        matchConditions=[{"name": "", "expression": "true"}],
        admissionReviewVersions=[],
    )
    hook_copy = dict(hook, name="")
    assert errors_of(hook, hook_copy, kind=MUTATING)[:14] == [
        (f"{W}.name", "Required"),
        (f"{W}.rules[0].operations", "Required"),
        (f"{W}.rules[0].apiGroups", "Required"),
        (f"{W}.rules[0].apiVersions", "Required"),
        (f"{W}.rules[0].resources", "Required"),
        (f"{W}.failurePolicy", "NotSupported"),
        (f"{W}.matchPolicy", "NotSupported"),
        (f"{W}.sideEffects", "NotSupported"),
        (f"{W}.timeoutSeconds", "Invalid"),
        (f"{W}.namespaceSelector.matchLabels", "Invalid"),
        (f"{W}.objectSelector.matchLabels", "Invalid"),
        (f"{W}.reinvocationPolicy", "NotSupported"),
        (f"{W}.clientConfig", "Required"),
        (f"{W}.matchConditions[0].name", "Required"),
    ]
    assert errors_of(hook)[-1] == (A, "Required")
