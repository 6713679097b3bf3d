"""Object type, metadata (V-1, V-2, F-2, V-50) and webhook names (V-3..V-6)."""

import pytest

from tests.domain.webhook_factory import MUTATING, config, errors_of, keys, webhook
from webhooks_ui.domain.validation import validate

SUBDOMAIN_MESSAGE = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric character "
    "(e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


def _with_metadata(metadata: object) -> list[tuple[str, str]]:
    obj = config()
    obj["metadata"] = metadata
    return keys(validate(obj))


# --- the object's type ---------------------------------------------------------


@pytest.mark.parametrize("junk", [None, "text", 3, [], [{"kind": MUTATING}]])
def test_non_objects_get_a_kind_error(junk):
    assert keys(validate(junk)) == [("kind", "Required")]


@pytest.mark.parametrize(
    ("api_version", "kind", "expected"),
    [
        (None, MUTATING, [("apiVersion", "Required")]),
        ("", MUTATING, [("apiVersion", "Required")]),
        (
            "admissionregistration.k8s.io/v1beta1",
            MUTATING,
            [("apiVersion", "NotSupported")],
        ),
        ("v1", MUTATING, [("apiVersion", "NotSupported")]),
        ("admissionregistration.k8s.io/v1", None, [("kind", "Required")]),
        ("admissionregistration.k8s.io/v1", "Pod", [("kind", "NotSupported")]),
        ("admissionregistration.k8s.io/v1", ["x"], [("kind", "NotSupported")]),
        (7, {}, [("apiVersion", "NotSupported"), ("kind", "NotSupported")]),
    ],
)
def test_api_version_and_kind(api_version, kind, expected):
    obj = config()
    obj["apiVersion"], obj["kind"] = api_version, kind
    assert keys(validate(obj)) == expected


def test_kind_message_lists_supported_values():
    obj = config()
    obj["kind"] = "Pod"
    assert str(validate(obj)[0]) == (
        'kind: Unsupported value: "Pod": supported values: '
        '"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"'
    )


# --- V-1 / V-2: metadata.name ---------------------------------------------------


@pytest.mark.parametrize("metadata", [{}, {"name": ""}, {"name": None}, None])
def test_v1_name_required(metadata):
    assert _with_metadata(metadata) == [("metadata.name", "Required")]


def test_v1_message():
    obj = config()
    obj["metadata"] = {}
    assert str(validate(obj)[0]) == (
        "metadata.name: Required value: name or generateName is required"
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("cfg", []),
        ("a.b-c.d0", []),
        ("0abc", []),
        ("Upper", [("metadata.name", "Invalid")]),
        ("under_score", [("metadata.name", "Invalid")]),
        ("-start", [("metadata.name", "Invalid")]),
        ("end.", [("metadata.name", "Invalid")]),
        ("a" * 253, []),
        # Too long and (separately) a bad pattern: one error per failed check.
        ("a" * 254, [("metadata.name", "Invalid")]),
        ("A" * 254, [("metadata.name", "Invalid"), ("metadata.name", "Invalid")]),
    ],
)
def test_v2_name_is_a_dns_subdomain(name, expected):
    assert _with_metadata({"name": name}) == expected


def test_v2_message_wording():
    obj = config()
    obj["metadata"] = {"name": "Bad_Name"}
    assert str(validate(obj)[0]) == (
        f'metadata.name: Invalid value: "Bad_Name": {SUBDOMAIN_MESSAGE}'
    )


def test_generate_name_stands_in_for_the_name():
    assert _with_metadata({"generateName": "cfg-"}) == []
    assert _with_metadata({"generateName": "Bad-"}) == [
        ("metadata.generateName", "Invalid"),
        ("metadata.name", "Invalid"),
    ]


def test_metadata_of_the_wrong_type():
    assert _with_metadata("cfg") == [("metadata", "Invalid")]
    assert _with_metadata({"name": 12}) == [("metadata.name", "Invalid")]


def test_f2_namespace_is_dropped_not_rejected():
    assert _with_metadata({"name": "cfg", "namespace": "Not A Namespace!"}) == []


def test_labels_and_annotations_use_the_label_rules():
    metadata = {
        "name": "cfg",
        "labels": {"ok": "fine", "bad key": "v", "k": "bad value"},
        "annotations": {"Example.COM/Key": "any text at all", "no spaces": ""},
    }
    assert _with_metadata(metadata) == [
        ("metadata.labels", "Invalid"),
        ("metadata.labels", "Invalid"),
        ("metadata.annotations", "Invalid"),
    ]


def test_annotations_size_limit():
    metadata = {"name": "cfg", "annotations": {"big": "x" * (256 * 1024)}}
    assert _with_metadata(metadata) == [("metadata.annotations", "TooLong")]


# --- V-50: reserved suffix --------------------------------------------------------


def test_v50_static_suffix_rejected_on_create():
    obj = config(name="policy.static.k8s.io")
    errors = validate(obj)
    assert keys(errors) == [("metadata.name", "Invalid")]
    assert errors[0].detail == (
        'names ending with ".static.k8s.io" are reserved for static manifest-based '
        "configurations and cannot be managed via the API"
    )


def test_v50_behind_a_flag_and_never_on_update():
    obj = config(name="policy.static.k8s.io")
    assert validate(obj, reserved_static_suffix=False) == []
    assert validate(obj, old=obj) == []
    assert validate(config(name="static.k8s.io")) == []


# --- V-3..V-6: webhook names ---------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("", [("webhooks[0].name", "Required")]),
        (None, [("webhooks[0].name", "Required")]),
        ("a.b.c", []),
        ("webhook.example.com", []),
        ("k8s.io", [("webhooks[0].name", "Invalid")]),
        ("example.com", [("webhooks[0].name", "Invalid")]),
        ("nodots", [("webhooks[0].name", "Invalid")]),
        # Not a subdomain: one error, the segment check is not reached.
        ("Hook.Example.Com", [("webhooks[0].name", "Invalid")]),
        ("a..b.c", [("webhooks[0].name", "Invalid")]),
        (5, [("webhooks[0].name", "Invalid")]),
    ],
)
def test_v3_to_v5_webhook_name(name, expected):
    assert errors_of(webhook(name=name)) == expected


def test_v5_message():
    errors = validate(config(webhook(name="k8s.io")))
    assert str(errors[0]) == (
        'webhooks[0].name: Invalid value: "k8s.io": should be a domain with at '
        "least three segments separated by dots"
    )


def test_v6_duplicate_names_from_the_second_occurrence():
    hooks = [webhook(name="a.b.c"), webhook(name="x.y.z"), webhook(name="a.b.c")]
    hooks.append(webhook(name="a.b.c"))
    assert errors_of(*hooks) == [
        ("webhooks[2].name", "Duplicate"),
        ("webhooks[3].name", "Duplicate"),
    ]


def test_v6_empty_names_are_never_duplicates_but_invalid_ones_are():
    assert errors_of(webhook(name=""), webhook(name="")) == [
        ("webhooks[0].name", "Required"),
        ("webhooks[1].name", "Required"),
    ]
    assert errors_of(webhook(name="Bad"), webhook(name="Bad")) == [
        ("webhooks[0].name", "Invalid"),
        ("webhooks[1].name", "Invalid"),
        ("webhooks[1].name", "Duplicate"),
    ]


def test_webhooks_of_the_wrong_type():
    obj = config()
    obj["webhooks"] = {"name": "a.b.c"}
    assert keys(validate(obj)) == [("webhooks", "Invalid")]
    obj["webhooks"] = [None, "x"]
    assert keys(validate(obj)) == [
        ("webhooks[0]", "Invalid"),
        ("webhooks[1]", "Invalid"),
    ]


def test_no_webhooks_is_valid():
    obj = config()
    obj["webhooks"] = []
    assert validate(obj) == []
    del obj["webhooks"]
    assert validate(obj) == []


def test_errors_are_ordered_metadata_then_webhooks_in_order():
    obj = config(webhook(name="bad"), webhook(name="", sideEffects="Some"))
    obj["metadata"] = {"name": "Bad"}
    assert keys(validate(obj)) == [
        ("metadata.name", "Invalid"),
        ("webhooks[0].name", "Invalid"),
        ("webhooks[1].name", "Required"),
        ("webhooks[1].sideEffects", "NotSupported"),
    ]
