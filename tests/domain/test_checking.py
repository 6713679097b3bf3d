"""The pure core of ``check_webhooks`` (and the future REST check endpoint)."""

from webhooks_ui.domain.checking import (
    CheckReport,
    Unreadable,
    check_objects,
)
from webhooks_ui.domain.errors import INVALID, FieldError
from webhooks_ui.domain.manifest import ManifestError, load_objects

WEBHOOK = {
    "name": "a.example.com",
    "clientConfig": {"url": "https://hooks.example.com/"},
    "sideEffects": "None",
    "admissionReviewVersions": ["v1"],
}


def config(name: str, api_version: str = "admissionregistration.k8s.io/v1") -> str:
    return (
        f"apiVersion: {api_version}\nkind: ValidatingWebhookConfiguration\n"
        f"metadata: {{name: {name}}}\nwebhooks: [{WEBHOOK!r}]\n".replace("'", '"')
    )


def test_single_document_is_labelled_by_source_only():
    result = check_objects(load_objects(config("one")), source="one.yaml")
    (check,) = result.checked
    assert check.valid and check.message is None
    assert check.position.label == "one.yaml"
    assert (check.kind, check.name) == ("ValidatingWebhookConfiguration", "one")


def test_multi_document_and_list_labels():
    text = config("a") + "---\nkind: List\nitems:\n- kind: ConfigMap\n" + "---\n"
    text += "kind: List\nitems:\n- " + config("b").replace("\n", "\n  ")
    result = check_objects(load_objects(text), source="all.yaml")
    assert [c.position.label for c in result.checked] == [
        "all.yaml:doc#1",
        "all.yaml:doc#3:items[0]",
    ]
    (skipped,) = result.skipped
    assert skipped.position.label == "all.yaml:doc#2:items[0]"
    assert skipped.reason == "not a webhook configuration"
    assert not skipped.looks_like_webhook_configuration


def test_validator_is_injectable_and_sees_the_converted_v1_object():
    seen = []

    def validator(obj):
        seen.append(obj["apiVersion"])
        return [FieldError("metadata.name", INVALID, "no", value="x")]

    text = config("legacy", "admissionregistration.k8s.io/v1beta1")
    (check,) = check_objects(
        load_objects(text), source="x", validator=validator
    ).checked
    assert seen == ["admissionregistration.k8s.io/v1"]
    assert check.api_version == "admissionregistration.k8s.io/v1beta1"
    assert check.message == (
        'ValidatingWebhookConfiguration.admissionregistration.k8s.io "legacy" '
        'is invalid: metadata.name: Invalid value: "x": no'
    )
    assert [w.code for w in check.warnings] == [
        "v1beta1-removed",
        "v1beta1-default",
        "v1beta1-default",
        "v1beta1-default",
    ]


def test_exit_codes_rank_unreadable_over_invalid_over_valid():
    valid = check_objects(load_objects(config("ok")), source="a")
    invalid = check_objects(
        load_objects(config("bad").replace('"None"', '"Some"')), source="b"
    )
    unreadable = Unreadable.from_error(ManifestError("boom", source="c", line=1))
    assert CheckReport((valid,), ()).exit_code == 0
    assert CheckReport((valid, invalid), ()).exit_code == 1
    assert CheckReport((valid, invalid), (unreadable,)).exit_code == 2
    assert str(unreadable) == "c:1: boom"


def test_objects_without_metadata_still_get_a_verdict():
    (check,) = check_objects(
        load_objects(
            "apiVersion: admissionregistration.k8s.io/v1\n"
            "kind: MutatingWebhookConfiguration\n"
        ),
        source="x",
    ).checked
    assert check.name == ""
    assert not check.valid
    assert ("metadata.name", "FieldValueRequired") in {e.key() for e in check.errors}
