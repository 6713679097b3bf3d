"""Update relaxations computed from the stored object (V-40..V-45)."""

import pytest

from tests.domain.webhook_factory import MUTATING, config, errors_of, keys, webhook
from webhooks_ui.domain.validation import update_options, validate

W = "webhooks[0]"


def _update(new_hooks: list[dict], old_hooks: list[dict], kind: str = MUTATING) -> list:
    return keys(
        validate(config(*new_hooks, kind=kind), old=config(*old_hooks, kind=kind))
    )


# V-40: sideEffects


def test_v40_strict_when_every_old_webhook_had_no_side_effects():
    assert _update([webhook(sideEffects="Some")], [webhook()]) == [
        (f"{W}.sideEffects", "NotSupported")
    ]


def test_v40_relaxed_when_an_old_webhook_had_side_effects():
    old = [webhook(name="a.b.c"), webhook(name="x.y.z", sideEffects="Unknown")]
    new = [webhook(name="a.b.c", sideEffects="Some"), webhook(name="x.y.z")]
    assert _update(new, old) == []
    assert _update([webhook(sideEffects="Other")], old) == [
        (f"{W}.sideEffects", "NotSupported")
    ]
    assert _update([webhook(sideEffects=None)], old) == [
        (f"{W}.sideEffects", "Required")
    ]


def test_v40_relaxed_required_message_lists_all_classes():
    old = config(webhook(sideEffects="Some"))
    errors = validate(config(webhook(sideEffects=None)), old=old)
    assert errors[0].detail == "must specify one of None, NoneOnDryRun, Some, Unknown"


def test_v40_vacuously_strict_when_old_had_no_webhooks():
    old = config()
    old["webhooks"] = []
    assert keys(validate(config(webhook(sideEffects="Some")), old=old)) == [
        (f"{W}.sideEffects", "NotSupported")
    ]


# V-41: unique names


def test_v41_duplicates_allowed_only_if_old_already_had_them():
    dup = [webhook(name="a.b.c"), webhook(name="a.b.c")]
    assert _update(dup, dup) == []
    assert _update(dup, [webhook(name="a.b.c"), webhook(name="x.y.z")]) == [
        ("webhooks[1].name", "Duplicate")
    ]
    empty_dup = [webhook(name=""), webhook(name="")]
    assert _update(dup, empty_dup) == []  # empty names count for the old check


# V-42: accepted admissionReviewVersions


@pytest.mark.parametrize(
    ("old_versions", "expected"),
    [
        (["v1"], [(f"{W}.admissionReviewVersions", "Invalid")]),
        ([], [(f"{W}.admissionReviewVersions", "Invalid")]),
        (["v2"], []),
    ],
)
def test_v42_recognised_version_required_unless_old_lacked_one(old_versions, expected):
    new = [webhook(admissionReviewVersions=["v2"])]
    assert _update(new, [webhook(admissionReviewVersions=old_versions)]) == expected


def test_v42_format_duplicate_and_empty_checks_always_apply():
    old = [webhook(admissionReviewVersions=["v2"])]
    assert _update([webhook(admissionReviewVersions=["V2", "V2"])], old) == [
        (f"{W}.admissionReviewVersions[0]", "Invalid"),
        (f"{W}.admissionReviewVersions[1]", "Invalid"),
    ]
    assert _update([webhook(admissionReviewVersions=[])], old) == [
        (f"{W}.admissionReviewVersions", "Required")
    ]


# V-43: invalid label values in selectors


BAD_VALUE = {
    "matchExpressions": [{"key": "k", "operator": "In", "values": ["bad value"]}]
}


def test_v43_values_allowed_when_any_old_selector_was_invalid():
    old = [
        webhook(name="a.b.c"),
        webhook(name="x.y.z", objectSelector={"matchLabels": {"bad key": ""}}),
    ]
    new = [webhook(name="a.b.c", namespaceSelector=BAD_VALUE), webhook(name="x.y.z")]
    assert _update(new, old) == []


def test_v43_other_selector_checks_still_apply():
    old = [webhook(namespaceSelector=BAD_VALUE)]
    selector = {
        "matchLabels": {"k": "bad value"},
        "matchExpressions": [
            {"key": "bad key", "operator": "in", "values": ["bad value"]}
        ],
    }
    assert _update([webhook(namespaceSelector=selector)], old) == [
        (f"{W}.namespaceSelector.matchLabels", "Invalid"),
        (f"{W}.namespaceSelector.matchExpressions[0].operator", "Invalid"),
        (f"{W}.namespaceSelector.matchExpressions[0].key", "Invalid"),
    ]


def test_v43_strict_when_old_selectors_were_valid():
    assert _update([webhook(namespaceSelector=BAD_VALUE)], [webhook()]) == [
        (f"{W}.namespaceSelector.matchExpressions[0].values[0]", "Invalid")
    ]


# V-44: matchConditions


BAD_CONDITIONS = [{"name": "bad name", "expression": "params.x"}]


def test_v44_unchanged_conditions_are_not_revalidated():
    hooks = [webhook(matchConditions=BAD_CONDITIONS)]
    assert _update(hooks, hooks) == []


def test_v44_any_change_revalidates_every_webhook():
    old = [webhook(name="a.b.c", matchConditions=BAD_CONDITIONS), webhook(name="x.y.z")]
    new = [
        webhook(name="a.b.c", matchConditions=BAD_CONDITIONS),
        webhook(name="x.y.z", matchConditions=[{"name": "ok", "expression": "true"}]),
    ]
    assert _update(new, old) == [
        ("webhooks[0].matchConditions[0].expression", "Invalid"),
        ("webhooks[0].matchConditions[0].name", "Invalid"),
    ]


def test_v44_adding_a_webhook_revalidates():
    old = [webhook(name="a.b.c", matchConditions=BAD_CONDITIONS)]
    new = old + [webhook(name="x.y.z")]
    assert len(_update(new, old)) == 2


def test_v44_absent_and_empty_conditions_are_the_same():
    old = config(webhook(matchConditions=[]))
    assert update_options(config(webhook()), old).ignore_match_conditions


# V-45: everything else is checked as on create


def test_v45_other_checks_run_on_update():
    hooks = [webhook(timeoutSeconds=0, clientConfig={}, rules=[{"operations": ["X"]}])]
    assert _update(hooks, hooks)[:3] == [
        (f"{W}.rules[0].operations[0]", "NotSupported"),
        (f"{W}.rules[0].apiGroups", "Required"),
        (f"{W}.rules[0].apiVersions", "Required"),
    ]


def test_name_is_immutable_and_reported_first():
    old = config(webhook(), name="old")
    new = config(webhook(name="bad"), name="new")
    assert keys(validate(new, old=old)) == [
        ("metadata.name", "Invalid"),
        (f"{W}.name", "Invalid"),
    ]


@pytest.mark.parametrize(
    "old", [None, "junk", {}, {"webhooks": "x"}, {"webhooks": [1, None]}]
)
def test_junk_old_objects_never_raise(old):
    assert validate(config(webhook()), old=old) == []


def test_create_is_the_default():
    assert errors_of(webhook(sideEffects="Some")) == [
        (f"{W}.sideEffects", "NotSupported")
    ]
