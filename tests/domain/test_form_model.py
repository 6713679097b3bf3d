"""The form as plain data: object -> form -> object without loss, every field
of both kinds, buttons (add, remove, move), and apiserver paths -> fields."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.domain.test_corpus_roundtrip import corpus_files, key_orders
from webhooks_ui.domain import validation
from webhooks_ui.domain.certificates import parse_pem_or_base64
from webhooks_ui.domain.form_model import (
    apply_op,
    field_key_for_path,
    flatten,
    form_blockers,
    form_to_object,
    keep_blank_rows,
    object_to_form,
    unflatten,
)
from webhooks_ui.domain.kinds import (
    MUTATING,
    MUTATING_ONLY_WEBHOOK_FIELDS,
    VALIDATING,
    WEBHOOK_FIELDS,
)
from webhooks_ui.domain.manifest import dump_yaml, load_documents

NOW = datetime(2026, 11, 22, tzinfo=UTC)


def posted(form: dict) -> dict:
    """The form as a browser posts it and the view reads it back (flat names,
    checkboxes as lists), so the tests go through the same conversion."""
    flat = flatten(form)
    return unflatten(
        lambda name: flat.get(name, "") if isinstance(flat.get(name), str) else "",
        lambda name: list(flat.get(name) or []),
        list(flat),
    )


def configuration(kind: str = VALIDATING) -> dict:
    hook = {
        "name": "check.example.com",
        "clientConfig": {
            "service": {"namespace": "hooks", "name": "checker", "path": "/check"},
            "caBundle": "",
        },
        "rules": [
            {
                "operations": ["CREATE"],
                "apiGroups": [""],
                "apiVersions": ["v1"],
                "resources": ["pods"],
            }
        ],
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
    }
    del hook["clientConfig"]["caBundle"]
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": kind,
        "metadata": {"name": "checks"},
        "webhooks": [hook],
    }


def edit(obj: dict, **changes: str) -> dict:
    """``obj`` after typing ``changes`` (flat field names) into its form."""
    flat = flatten(object_to_form(obj, kind=obj["kind"]))
    flat.update({key.replace("__", "-"): value for key, value in changes.items()})
    form = unflatten(
        lambda name: flat.get(name, "") if isinstance(flat.get(name), str) else "",
        lambda name: list(flat.get(name) or []),
        list(flat),
    )
    return form_to_object(form, obj, kind=obj["kind"])


# --- the corpus: nothing lost, either way ---------------------------------------


def test_every_corpus_manifest_survives_form_and_back(corpus_dir: Path):
    for path in corpus_files(corpus_dir):
        text = path.read_text()
        (obj,) = load_documents(text, source=path.name)
        kind = obj["kind"]
        assert form_blockers(obj) == [], path.name
        form = object_to_form(obj, kind=kind)
        # form -> object -> form
        again = form_to_object(posted(form), obj, kind=kind)
        assert object_to_form(again, kind=kind) == form, path.name
        # YAML -> object -> form -> object -> YAML: the same object, same key
        # order, so the same YAML.
        assert json.dumps(again) == json.dumps(obj), path.name
        assert key_orders(again) == key_orders(obj), path.name
        assert dump_yaml(again) == dump_yaml(obj), path.name


def test_every_corpus_manifest_can_be_typed_into_an_empty_form(corpus_dir: Path):
    """The form models every field the corpus uses: typing a manifest's form
    values into a new, empty configuration gives back the same webhooks."""
    for path in corpus_files(corpus_dir):
        (obj,) = load_documents(path.read_bytes(), source=path.name)
        kind = obj["kind"]
        form = posted(object_to_form(obj, kind=kind))
        for hook in form["webhooks"]:
            hook["index"] = ""  # every webhook new
        empty = {"apiVersion": obj["apiVersion"], "kind": kind}
        built = form_to_object(form, empty, kind=kind)
        assert object_to_form(built, kind=kind) == object_to_form(obj, kind=kind)
        assert validation.validate(built) == [] or validation.validate(obj) != []


# --- unknown fields survive -----------------------------------------------------


def test_unknown_fields_at_every_level_survive_an_edit():
    obj = configuration(MUTATING)
    obj["futureTopLevel"] = {"a": 1}
    obj["metadata"]["annotations"] = {"example.com/owner": "team-a"}
    obj["metadata"]["finalizers"] = ["example.com/keep"]
    hook = obj["webhooks"][0]
    hook["futureWebhookField"] = [1, 2]
    hook["clientConfig"]["futureClientField"] = True
    hook["clientConfig"]["service"]["futureServiceField"] = "x"
    hook["rules"][0]["futureRuleField"] = "y"
    hook["namespaceSelector"] = {
        "matchExpressions": [{"key": "a", "operator": "Exists", "future": 1}],
        "futureSelectorField": {},
    }
    hook["matchConditions"] = [{"name": "c", "expression": "true", "future": 2}]
    before = json.loads(json.dumps(obj))
    after = edit(
        obj, w__0__timeout_seconds="7", w__0__r__0__resources="pods, pods/exec"
    )
    assert after["webhooks"][0].pop("timeoutSeconds") == 7
    assert after["webhooks"][0]["rules"][0].pop("resources") == ["pods", "pods/exec"]
    before["webhooks"][0]["rules"][0].pop("resources")
    assert after == before
    assert key_orders(after) == key_orders(before)


def test_values_the_form_shows_differently_stay_as_they_were():
    obj = configuration()
    hook = obj["webhooks"][0]
    hook["timeoutSeconds"] = "10"  # a string: invalid, but untouched unless edited
    hook["clientConfig"]["service"]["port"] = 8443
    hook["rules"][0]["operations"] = ["UPDATE", "CREATE"]  # order kept
    hook["rules"][0]["apiVersions"] = []  # empty list, not absent
    obj["metadata"]["labels"] = {}
    assert edit(obj) == obj
    assert edit(obj, name="renamed")["webhooks"] == obj["webhooks"]


def test_omitted_optional_fields_stay_omitted():
    obj = configuration(MUTATING)
    again = edit(obj, w__0__name="other.example.com")
    hook = again["webhooks"][0]
    for field in (
        "failurePolicy",
        "matchPolicy",
        "timeoutSeconds",
        "namespaceSelector",
        "objectSelector",
        "matchConditions",
        "reinvocationPolicy",
    ):
        assert field not in hook, field
    assert "port" not in hook["clientConfig"]["service"]
    assert "scope" not in hook["rules"][0]
    # Clearing a field omits it again (its default applies, shown as placeholder).
    set_ = edit(obj, w__0__timeout_seconds="5")
    assert set_["webhooks"][0]["timeoutSeconds"] == 5
    assert "timeoutSeconds" not in edit(set_, w__0__timeout_seconds="")["webhooks"][0]


# --- every field of both kinds ---------------------------------------------------

# (form field, typed value, object field, expected value)
WEBHOOK_EDITS = [
    ("name", "new.example.com", "name", "new.example.com"),
    ("service_port", "8443", "clientConfig", None),
    ("r-0-scope", "Namespaced", "rules", None),
    ("failure_policy", "Ignore", "failurePolicy", "Ignore"),
    ("match_policy", "Exact", "matchPolicy", "Exact"),
    ("ns-me-0-key", "team", "namespaceSelector", None),
    ("os-ml-0-key", "app", "objectSelector", None),
    ("side_effects", "NoneOnDryRun", "sideEffects", "NoneOnDryRun"),
    ("timeout_seconds", "30", "timeoutSeconds", 30),
    ("admission_review_versions", "v1, v1beta1", "admissionReviewVersions", None),
    ("mc-0-expression", "false", "matchConditions", None),
    ("reinvocation_policy", "IfNeeded", "reinvocationPolicy", "IfNeeded"),
]


def _with_rows(obj: dict) -> dict:
    hook = obj["webhooks"][0]
    hook["namespaceSelector"] = {"matchExpressions": [{"key": "a", "operator": "In"}]}
    hook["objectSelector"] = {"matchLabels": {"x": "y"}}
    hook["matchConditions"] = [{"name": "c", "expression": "true"}]
    return obj


@pytest.mark.parametrize("kind", [VALIDATING, MUTATING])
def test_every_webhook_field_of_both_kinds_is_editable(kind):
    fields = set(WEBHOOK_FIELDS) | (
        set(MUTATING_ONLY_WEBHOOK_FIELDS) if kind == MUTATING else set()
    )
    covered = set()
    for form_field, typed, field, expected in WEBHOOK_EDITS:
        if field not in fields:
            continue
        obj = _with_rows(configuration(kind))
        after = edit(obj, **{f"w__0__{form_field}".replace("-", "__"): typed})
        assert after["webhooks"][0].get(field) != obj["webhooks"][0].get(field), field
        if expected is not None:
            assert after["webhooks"][0][field] == expected
        covered.add(field)
    assert covered == fields


def test_mutating_only_field_is_absent_from_validating_forms():
    form = object_to_form(configuration(VALIDATING), kind=VALIDATING)
    assert "reinvocation_policy" not in form["webhooks"][0]
    form = object_to_form(configuration(MUTATING), kind=MUTATING)
    assert form["webhooks"][0]["reinvocation_policy"] == ""


def test_metadata_name_labels_and_annotations():
    obj = configuration()
    after = edit(
        obj,
        name="renamed",
        **{"labels-0-key": "team", "labels-0-value": "a"},
        **{"annotations-0-key": "example.com/x", "annotations-0-value": ""},
    )
    assert after["metadata"] == {
        "name": "renamed",
        "labels": {"team": "a"},
        "annotations": {"example.com/x": ""},
    }


def test_client_config_switches_between_service_and_url():
    obj = configuration()
    to_url = edit(obj, w__0__target="url", w__0__url="https://hooks.example.com/x")
    assert to_url["webhooks"][0]["clientConfig"] == {
        "url": "https://hooks.example.com/x"
    }
    back = edit(
        to_url,
        w__0__target="service",
        w__0__service_namespace="ns",
        w__0__service_name="svc",
    )
    assert back["webhooks"][0]["clientConfig"] == {
        "service": {"namespace": "ns", "name": "svc"}
    }


def test_rules_lists_are_comma_separated_with_the_core_group_quoted():
    obj = configuration()
    form = object_to_form(obj, kind=VALIDATING)
    assert form["webhooks"][0]["rules"][0]["api_groups"] == '""'
    after = edit(obj, w__0__r__0__api_groups='"", apps ,batch,')
    assert after["webhooks"][0]["rules"][0]["apiGroups"] == ["", "apps", "batch"]
    checked = edit(obj, **{"w-0-r-0-operations": ["CREATE", "DELETE"]})
    assert checked["webhooks"][0]["rules"][0]["operations"] == ["CREATE", "DELETE"]


def test_selectors_match_labels_and_expressions():
    obj = configuration()
    form = object_to_form(obj, kind=VALIDATING)
    form = apply_op(form, "add:w-0-ns-me", kind=VALIDATING)
    form = apply_op(form, "add:w-0-os-ml", kind=VALIDATING)
    hook = form["webhooks"][0]
    hook["ns"]["me"][0].update(key="team", operator="NotIn", values="a, b")
    hook["os"]["ml"][0].update(key="app", value="web")
    after = form_to_object(posted(form), obj, kind=VALIDATING)["webhooks"][0]
    assert after["namespaceSelector"] == {
        "matchExpressions": [{"key": "team", "operator": "NotIn", "values": ["a", "b"]}]
    }
    assert after["objectSelector"] == {"matchLabels": {"app": "web"}}


def _certificate_pem(common_name: str, days: int) -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(7)
        .not_valid_before(NOW - timedelta(days=1))
        .not_valid_after(NOW + timedelta(days=days))
        .sign(key, hashes.SHA256())
    )
    return certificate.public_bytes(serialization.Encoding.PEM).decode()


def test_ca_bundle_accepts_pem_or_base64_and_stores_base64():
    pem = _certificate_pem("hooks-ca", 90)
    obj = configuration()
    pasted = pem.replace("\n", "\r\n")  # as a browser posts a textarea
    after = edit(obj, w__0__ca_bundle=pasted)
    stored = after["webhooks"][0]["clientConfig"]["caBundle"]
    assert base64.b64decode(stored).decode() == pem
    assert validation.validate(after) == []
    info = parse_pem_or_base64(
        object_to_form(after, kind=VALIDATING)["webhooks"][0]["ca_bundle"], now=NOW
    )
    assert info.certificates[0].subject == "CN=hooks-ca"
    assert info.certificates[0].days_left == 90
    # Base64 pasted with line breaks is stored without them.
    wrapped = "\n".join(stored[i : i + 64] for i in range(0, len(stored), 64))
    assert edit(obj, w__0__ca_bundle=wrapped) == after
    # Unchanged, it stays exactly as stored (a CA injector's value is kept).
    assert edit(after) == after


def test_unconvertible_values_are_kept_as_typed_and_reported_on_their_field():
    obj = configuration()
    after = edit(obj, w__0__timeout_seconds="abc", w__0__service_port="http")
    assert after["webhooks"][0]["timeoutSeconds"] == "abc"
    assert after["webhooks"][0]["clientConfig"]["service"]["port"] == "http"
    keys = {field_key_for_path(e.field) for e in validation.validate(after)}
    assert {"w-0-timeout_seconds", "w-0-service_port"} <= keys
    form = object_to_form(after, kind=VALIDATING)
    assert form["webhooks"][0]["timeout_seconds"] == "abc"


# --- buttons: add, remove, move (matched by the hidden index) ---------------------


def _three_hooks() -> dict:
    obj = configuration(MUTATING)
    base = obj["webhooks"][0]
    obj["webhooks"] = [
        {**json.loads(json.dumps(base)), "name": f"h{n}.example.com", "x-unknown": n}
        for n in range(3)
    ]
    return obj


def test_moving_a_webhook_carries_its_unknown_fields():
    obj = _three_hooks()
    form = apply_op(object_to_form(obj, kind=MUTATING), "up:w-2", kind=MUTATING)
    after = form_to_object(posted(form), obj, kind=MUTATING)
    assert [(h["name"], h["x-unknown"]) for h in after["webhooks"]] == [
        ("h0.example.com", 0),
        ("h2.example.com", 2),
        ("h1.example.com", 1),
    ]
    form = apply_op(object_to_form(after, kind=MUTATING), "down:w-0", kind=MUTATING)
    again = form_to_object(posted(form), after, kind=MUTATING)
    assert [h["x-unknown"] for h in again["webhooks"]] == [2, 0, 1]


def test_removing_and_adding_webhooks():
    obj = _three_hooks()
    form = apply_op(object_to_form(obj, kind=MUTATING), "remove:w-1", kind=MUTATING)
    form = apply_op(form, "add:w", kind=MUTATING)
    after = form_to_object(posted(form), obj, kind=MUTATING)
    assert [h.get("x-unknown") for h in after["webhooks"]] == [0, 2, None]
    assert after["webhooks"][2] == {}  # a new webhook starts empty
    errors = {field_key_for_path(e.field) for e in validation.validate(after)}
    assert {"w-2-name", "w-2-side_effects", "w-2-target"} <= errors


def test_adding_and_removing_rows_of_every_table():
    obj = _with_rows(configuration())
    for list_key, field in (
        ("w-0-r", "rules"),
        ("w-0-mc", "matchConditions"),
    ):
        form = apply_op(
            object_to_form(obj, kind=VALIDATING), f"add:{list_key}", kind=VALIDATING
        )
        after = form_to_object(posted(form), obj, kind=VALIDATING)
        assert after["webhooks"][0][field][-1] == {}
        form = apply_op(
            object_to_form(after, kind=VALIDATING),
            f"remove:{list_key}-0",
            kind=VALIDATING,
        )
        again = form_to_object(posted(form), after, kind=VALIDATING)
        assert again["webhooks"][0][field] == [{}]
    form = apply_op(
        object_to_form(obj, kind=VALIDATING), "remove:w-0-ns-me-0", kind=VALIDATING
    )
    after = form_to_object(posted(form), obj, kind=VALIDATING)
    assert after["webhooks"][0]["namespaceSelector"] == {}
    form = apply_op(
        object_to_form(obj, kind=VALIDATING), "remove:w-0-os-ml-0", kind=VALIDATING
    )
    after = form_to_object(posted(form), obj, kind=VALIDATING)
    assert after["webhooks"][0]["objectSelector"] == {}


def test_an_added_empty_label_row_is_shown_but_not_written():
    obj = configuration()
    form = apply_op(object_to_form(obj, kind=VALIDATING), "add:labels", kind=VALIDATING)
    after = form_to_object(posted(form), obj, kind=VALIDATING)
    assert "labels" not in after["metadata"]
    shown = keep_blank_rows(object_to_form(after, kind=VALIDATING), form)
    assert shown["labels"] == [{"key": "", "value": ""}]


def test_unknown_buttons_change_nothing():
    form = object_to_form(configuration(), kind=VALIDATING)
    for op in ("add:nowhere", "remove:w-9", "up:w-0", "down:w-0", "explode:w-0", ""):
        assert apply_op(form, op, kind=VALIDATING) == form


def test_shapes_the_form_cannot_show_are_named():
    obj = configuration()
    obj["webhooks"][0]["rules"] = {"not": "a list"}
    obj["metadata"]["labels"] = ["x"]
    assert form_blockers(obj) == ["metadata.labels", "webhooks[0].rules"]
    assert form_blockers(configuration()) == []
    assert form_blockers([]) != []


# --- apiserver paths land on their form fields ---------------------------------


@pytest.mark.parametrize(
    ("path", "key"),
    [
        ("metadata.name", "name"),
        ("metadata.labels", "labels"),
        ("metadata.annotations", "annotations"),
        ("metadata.generateName", None),
        ("kind", None),
        ("apiVersion", None),
        ("webhooks[0]", "w-0"),
        ("webhooks[3].name", "w-3-name"),
        ("webhooks[0].clientConfig", "w-0-target"),
        ("webhooks[0].clientConfig.url", "w-0-url"),
        ("webhooks[0].clientConfig.caBundle", "w-0-ca_bundle"),
        ("webhooks[0].clientConfig.service", "w-0-target"),
        ("webhooks[2].clientConfig.service.port", "w-2-service_port"),
        ("webhooks[0].clientConfig.service.path", "w-0-service_path"),
        ("webhooks[0].clientConfig.service.namespace", "w-0-service_namespace"),
        ("webhooks[0].clientConfig.service.name", "w-0-service_name"),
        ("webhooks[0].rules", "w-0-r"),
        ("webhooks[0].rules[1]", "w-0-r-1"),
        ("webhooks[0].rules[1].operations[0]", "w-0-r-1-operations"),
        ("webhooks[0].rules[1].apiGroups", "w-0-r-1-api_groups"),
        ("webhooks[0].rules[0].apiVersions[2]", "w-0-r-0-api_versions"),
        ("webhooks[0].rules[0].resources[1]", "w-0-r-0-resources"),
        ("webhooks[0].rules[0].scope", "w-0-r-0-scope"),
        ("webhooks[1].failurePolicy", "w-1-failure_policy"),
        ("webhooks[1].matchPolicy", "w-1-match_policy"),
        ("webhooks[1].sideEffects", "w-1-side_effects"),
        ("webhooks[1].timeoutSeconds", "w-1-timeout_seconds"),
        ("webhooks[1].admissionReviewVersions[0]", "w-1-admission_review_versions"),
        ("webhooks[1].reinvocationPolicy", "w-1-reinvocation_policy"),
        ("webhooks[0].namespaceSelector", "w-0-ns"),
        ("webhooks[0].namespaceSelector.matchLabels", "w-0-ns-ml"),
        ("webhooks[0].namespaceSelector.matchExpressions", "w-0-ns-me"),
        ("webhooks[0].namespaceSelector.matchExpressions[1].key", "w-0-ns-me-1-key"),
        (
            "webhooks[0].objectSelector.matchExpressions[0].values[2]",
            "w-0-os-me-0-values",
        ),
        (
            "webhooks[0].objectSelector.matchExpressions[0].operator",
            "w-0-os-me-0-operator",
        ),
        ("webhooks[0].matchConditions", "w-0-mc"),
        ("webhooks[0].matchConditions[0].expression", "w-0-mc-0-expression"),
        ("webhooks[0].matchConditions[2].name", "w-0-mc-2-name"),
        ("webhooks[0].futureField", "w-0"),
        ("webhooks[0].rules[0].futureField", "w-0-r-0"),
    ],
)
def test_apiserver_paths_map_to_the_nearest_form_field(path, key):
    assert field_key_for_path(path) == key


def _invalid(mutate) -> dict:
    obj = _with_rows(configuration(MUTATING))
    mutate(obj, obj["webhooks"][0])
    return obj


@pytest.mark.parametrize(
    ("mutate", "key"),
    [
        (lambda o, h: o["metadata"].update(name="Bad_Name"), "name"),
        (lambda o, h: o["metadata"].update(labels={"bad key": "v"}), "labels"),
        (lambda o, h: o["metadata"].update(annotations={"bad key": ""}), "annotations"),
        (lambda o, h: h.update(name="no-dots"), "w-0-name"),
        (lambda o, h: h["clientConfig"].update(url="https://x"), "w-0-target"),
        (lambda o, h: h.update(clientConfig={"url": "http://x/"}), "w-0-url"),
        (lambda o, h: h["clientConfig"].update(caBundle="%%%"), "w-0-ca_bundle"),
        (lambda o, h: h["clientConfig"]["service"].update(port=0), "w-0-service_port"),
        (lambda o, h: h["clientConfig"]["service"].update(name=""), "w-0-service_name"),
        (
            lambda o, h: h["clientConfig"]["service"].update(path="x"),
            "w-0-service_path",
        ),
        (lambda o, h: h["rules"][0].update(operations=["PATCH"]), "w-0-r-0-operations"),
        (lambda o, h: h["rules"][0].update(apiGroups=[]), "w-0-r-0-api_groups"),
        (lambda o, h: h["rules"][0].update(apiVersions=[""]), "w-0-r-0-api_versions"),
        (
            lambda o, h: h["rules"][0].update(resources=["*/*", "x"]),
            "w-0-r-0-resources",
        ),
        (lambda o, h: h["rules"][0].update(scope="World"), "w-0-r-0-scope"),
        (lambda o, h: h.update(failurePolicy="Maybe"), "w-0-failure_policy"),
        (lambda o, h: h.update(matchPolicy="Close"), "w-0-match_policy"),
        (lambda o, h: h.update(sideEffects="Some"), "w-0-side_effects"),
        (lambda o, h: h.pop("sideEffects"), "w-0-side_effects"),
        (lambda o, h: h.update(timeoutSeconds=31), "w-0-timeout_seconds"),
        (
            lambda o, h: h.update(admissionReviewVersions=["v9"]),
            "w-0-admission_review_versions",
        ),
        (lambda o, h: h.update(reinvocationPolicy="Always"), "w-0-reinvocation_policy"),
        (
            lambda o, h: h["namespaceSelector"]["matchExpressions"][0].update(
                key="a b"
            ),
            "w-0-ns-me-0-key",
        ),
        (
            lambda o, h: h["namespaceSelector"]["matchExpressions"][0].update(
                operator="Near"
            ),
            "w-0-ns-me-0-operator",
        ),
        (
            lambda o, h: h["namespaceSelector"]["matchExpressions"][0].pop("operator"),
            "w-0-ns-me-0-operator",
        ),
        (
            lambda o, h: h["namespaceSelector"]["matchExpressions"][0].update(
                values=[]
            ),
            "w-0-ns-me-0-values",
        ),
        (
            lambda o, h: h["objectSelector"].update(matchLabels={"k": "bad value!"}),
            "w-0-os-ml",
        ),
        (
            lambda o, h: h["matchConditions"][0].update(expression="1 +"),
            "w-0-mc-0-expression",
        ),
        (
            lambda o, h: h["matchConditions"][0].update(expression=""),
            "w-0-mc-0-expression",
        ),
        (lambda o, h: h["matchConditions"][0].update(name="bad name"), "w-0-mc-0-name"),
        (lambda o, h: o["webhooks"].append(json.loads(json.dumps(h))), "w-1-name"),
    ],
)
def test_each_kind_of_validation_error_lands_on_its_field(mutate, key):
    obj = _invalid(mutate)
    errors = validation.validate(obj)
    assert errors, "the object should be invalid"
    keys = {field_key_for_path(error.field) for error in errors}
    assert key in keys, [str(error) for error in errors]
