"""Converting v1beta1 webhook configurations keeps what they meant, and says how."""

import copy

import pytest

from webhooks_ui.domain.manifest import load_documents
from webhooks_ui.domain.v1beta1 import DefaultChange, convert_to_v1
from webhooks_ui.domain.validation import validate

AWS_MUTATING = (
    "aws-load-balancer-controller--mutatingwebhookconfiguration--"
    "aws-load-balancer-webhook.yaml"
)
AWS_VALIDATING = (
    "aws-load-balancer-controller--validatingwebhookconfiguration--"
    "aws-load-balancer-webhook.yaml"
)


def v1beta1_webhook(**fields) -> dict:
    return {
        "name": "check.example.com",
        "clientConfig": {"url": "https://hooks.example.com/check"},
        "rules": [
            {
                "operations": ["CREATE"],
                "apiGroups": [""],
                "apiVersions": ["v1"],
                "resources": ["pods"],
            }
        ],
        **fields,
    }


def v1beta1_config(*webhooks, kind="ValidatingWebhookConfiguration") -> dict:
    return {
        "apiVersion": "admissionregistration.k8s.io/v1beta1",
        "kind": kind,
        "metadata": {"name": "legacy"},
        "webhooks": list(webhooks),
    }


def test_minimal_webhook_gets_every_differing_v1beta1_default_written_out():
    converted, changes = convert_to_v1(v1beta1_config(v1beta1_webhook()))
    assert converted["apiVersion"] == "admissionregistration.k8s.io/v1"
    webhook = converted["webhooks"][0]
    assert webhook["failurePolicy"] == "Ignore"
    assert webhook["matchPolicy"] == "Exact"
    assert webhook["sideEffects"] == "Unknown"
    assert webhook["timeoutSeconds"] == 30
    assert webhook["admissionReviewVersions"] == ["v1beta1"]
    assert [(c.field, c.v1beta1_default, c.v1_default) for c in changes] == [
        ("webhooks[0].failurePolicy", "Ignore", "Fail"),
        ("webhooks[0].matchPolicy", "Exact", "Equivalent"),
        ("webhooks[0].sideEffects", "Unknown", None),
        ("webhooks[0].timeoutSeconds", 30, 10),
        ("webhooks[0].admissionReviewVersions", ("v1beta1",), None),
    ]


def test_change_messages_say_what_v1_would_have_done():
    _, changes = convert_to_v1(v1beta1_config(v1beta1_webhook()))
    messages = {change.field: change.message for change in changes}
    assert messages["webhooks[0].failurePolicy"].startswith(
        "v1beta1 defaulted failurePolicy to Ignore; v1 would default it to Fail"
    )
    assert "fails open" in messages["webhooks[0].failurePolicy"]
    side_effects = messages["webhooks[0].sideEffects"]
    assert side_effects.startswith(
        "v1beta1 defaulted sideEffects to Unknown; v1 has no default and requires "
        "sideEffects"
    )
    assert "v1 does not accept when creating" in side_effects
    assert "None or NoneOnDryRun" in side_effects
    assert messages["webhooks[0].admissionReviewVersions"].startswith(
        'v1beta1 defaulted admissionReviewVersions to ["v1beta1"]; v1 has no default'
    )


def test_unknown_side_effects_is_then_rejected_by_v1_validation():
    converted, _ = convert_to_v1(v1beta1_config(v1beta1_webhook()))
    keys = {error.key() for error in validate(converted)}
    assert keys == {("webhooks[0].sideEffects", "FieldValueNotSupported")}


def test_explicit_values_are_kept_and_not_reported():
    webhook = v1beta1_webhook(
        failurePolicy="Fail",
        matchPolicy="Equivalent",
        sideEffects="None",
        timeoutSeconds=5,
        admissionReviewVersions=["v1", "v1beta1"],
    )
    converted, changes = convert_to_v1(v1beta1_config(webhook))
    assert changes == []
    assert converted["webhooks"][0] == webhook
    assert validate(converted) == []


def test_explicit_empty_values_are_kept_for_validation_to_judge():
    webhook = v1beta1_webhook(failurePolicy="", timeoutSeconds=0, sideEffects="None")
    converted, changes = convert_to_v1(v1beta1_config(webhook))
    assert converted["webhooks"][0]["failurePolicy"] == ""
    assert converted["webhooks"][0]["timeoutSeconds"] == 0
    assert "webhooks[0].failurePolicy" not in {c.field for c in changes}


def test_null_counts_as_unset_as_in_apiserver_defaulting():
    converted, changes = convert_to_v1(
        v1beta1_config(v1beta1_webhook(failurePolicy=None, sideEffects="None"))
    )
    assert converted["webhooks"][0]["failurePolicy"] == "Ignore"
    assert "webhooks[0].failurePolicy" in {c.field for c in changes}


def test_fields_with_the_same_default_in_both_versions_are_left_unset():
    converted, _ = convert_to_v1(
        v1beta1_config(v1beta1_webhook(), kind="MutatingWebhookConfiguration")
    )
    webhook = converted["webhooks"][0]
    for same in ("namespaceSelector", "objectSelector", "reinvocationPolicy"):
        assert same not in webhook
    assert "scope" not in webhook["rules"][0]


def test_each_webhook_is_reported_with_its_own_index():
    _, changes = convert_to_v1(
        v1beta1_config(
            v1beta1_webhook(sideEffects="None", admissionReviewVersions=["v1"]),
            v1beta1_webhook(name="b.example.com", failurePolicy="Fail"),
        )
    )
    assert [c.field for c in changes] == [
        "webhooks[0].failurePolicy",
        "webhooks[0].matchPolicy",
        "webhooks[0].timeoutSeconds",
        "webhooks[1].matchPolicy",
        "webhooks[1].sideEffects",
        "webhooks[1].timeoutSeconds",
        "webhooks[1].admissionReviewVersions",
    ]


def test_input_is_not_modified_and_unknown_fields_and_order_are_kept():
    original = v1beta1_config(v1beta1_webhook(futureField={"x": 1}))
    original["status"] = {"note": "kept"}
    snapshot = copy.deepcopy(original)
    converted, _ = convert_to_v1(original)
    assert original == snapshot
    assert list(converted) == list(original)
    assert converted["status"] == {"note": "kept"}
    webhook = converted["webhooks"][0]
    assert list(webhook)[:4] == ["name", "clientConfig", "rules", "futureField"]


@pytest.mark.parametrize(
    "obj",
    [
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration",
            "webhooks": [{"name": "a.b.c"}],
        },
        {
            # Same group and version, different kind: not ours to convert.
            "apiVersion": "admissionregistration.k8s.io/v1beta1",
            "kind": "ValidatingAdmissionPolicy",
            "spec": {},
        },
        {"apiVersion": "v1", "kind": "ConfigMap"},
    ],
)
def test_other_objects_come_back_unchanged(obj):
    snapshot = copy.deepcopy(obj)
    converted, changes = convert_to_v1(obj)
    assert converted is obj
    assert converted == snapshot
    assert changes == []


def test_missing_or_malformed_webhooks_only_change_the_api_version():
    converted, changes = convert_to_v1(
        {
            "apiVersion": "admissionregistration.k8s.io/v1beta1",
            "kind": "MutatingWebhookConfiguration",
            "webhooks": ["not a mapping"],
        }
    )
    assert converted["webhooks"] == ["not a mapping"]
    assert converted["apiVersion"] == "admissionregistration.k8s.io/v1"
    assert changes == []


def test_default_change_as_dict_is_json_ready():
    change = DefaultChange("webhooks[0].x", ("v1beta1",), None, "message")
    assert change.as_dict() == {
        "field": "webhooks[0].x",
        "v1beta1Default": ["v1beta1"],
        "v1Default": None,
        "message": "message",
    }


# --- the two real v1beta1 manifests -------------------------------------------


def test_corpus_mutating_v1beta1_converts_to_a_valid_v1_object(corpus_v1beta1_dir):
    (obj,) = load_documents((corpus_v1beta1_dir / AWS_MUTATING).read_bytes())
    converted, changes = convert_to_v1(obj)
    # Both webhooks set failurePolicy and sideEffects; the other three differ.
    assert [c.field for c in changes] == [
        "webhooks[0].matchPolicy",
        "webhooks[0].timeoutSeconds",
        "webhooks[0].admissionReviewVersions",
        "webhooks[1].matchPolicy",
        "webhooks[1].timeoutSeconds",
        "webhooks[1].admissionReviewVersions",
    ]
    for webhook in converted["webhooks"]:
        assert webhook["matchPolicy"] == "Exact"
        assert webhook["timeoutSeconds"] == 30
        assert webhook["admissionReviewVersions"] == ["v1beta1"]
        assert webhook["failurePolicy"] == "Fail"
        assert "reinvocationPolicy" not in webhook
    assert converted["metadata"] == obj["metadata"]
    assert validate(converted) == []


def test_corpus_validating_v1beta1_converts_to_a_valid_v1_object(corpus_v1beta1_dir):
    (obj,) = load_documents((corpus_v1beta1_dir / AWS_VALIDATING).read_bytes())
    converted, changes = convert_to_v1(obj)
    assert len(changes) == 3
    assert converted["apiVersion"] == "admissionregistration.k8s.io/v1"
    assert validate(converted) == []
    # The v1beta1 object itself is not accepted as v1 without conversion.
    assert validate(obj) != []
