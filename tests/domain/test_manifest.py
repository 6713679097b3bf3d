"""Loading and dumping manifests: what a user pasting YAML or JSON would notice."""

import json
import textwrap

import pytest

from webhooks_ui.domain.manifest import (
    LoadedObject,
    ManifestError,
    dump_json,
    dump_yaml,
    dump_yaml_documents,
    load_documents,
    load_objects,
)


def yaml(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


VWC = yaml(
    """
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingWebhookConfiguration
    metadata:
      name: policy
    webhooks:
      - name: policy.example.com
        sideEffects: None
    """
)


# --- documents and wrappers ---------------------------------------------------


def test_multi_document_yaml_yields_each_object_and_skips_empty_documents():
    text = "---\n" + VWC + "---\n# only a comment\n---\nkind: ConfigMap\n---\n"
    objects = load_objects(text, source="all.yaml")
    assert [o.obj["kind"] for o in objects] == [
        "ValidatingWebhookConfiguration",
        "ConfigMap",
    ]
    # Document numbers count the empty documents, as a reader counts them.
    assert [o.document for o in objects] == [1, 3]
    assert [o.line for o in objects] == [2, 12]


def test_explicit_null_document_is_skipped():
    assert load_documents("null\n---\n~\n---\nkind: A\n") == [{"kind": "A"}]


def test_empty_input_has_no_objects():
    assert load_documents("") == []
    assert load_documents(b"   \n# nothing\n") == []


def test_kind_list_is_unwrapped_and_items_keep_their_own_fields():
    text = yaml(
        """
        apiVersion: v1
        kind: List
        items:
          - apiVersion: v1
            kind: ConfigMap
            metadata: {name: a}
          - kind: Secret
        """
    )
    objects = load_objects(text)
    assert [o.obj for o in objects] == [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}},
        {"kind": "Secret"},
    ]
    assert [(o.document, o.item, o.line) for o in objects] == [(1, 0, 4), (1, 1, 7)]


def test_typed_list_from_the_api_gives_items_their_kind_and_api_version():
    # `kubectl get --raw /apis/.../validatingwebhookconfigurations` omits them.
    raw = {
        "kind": "ValidatingWebhookConfigurationList",
        "apiVersion": "admissionregistration.k8s.io/v1",
        "metadata": {"resourceVersion": "42"},
        "items": [{"metadata": {"name": "a"}, "webhooks": []}],
    }
    assert load_documents(json.dumps(raw)) == [
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": "a"},
            "webhooks": [],
        }
    ]


def test_empty_list_yields_nothing_and_a_list_kind_without_items_is_an_object():
    assert load_documents("kind: List\nitems: []\n") == []
    assert load_documents("kind: PodList\nmetadata: {}\n") == [
        {"kind": "PodList", "metadata": {}}
    ]


def test_list_item_that_is_not_an_object_is_an_error():
    with pytest.raises(ManifestError, match=r"items\[1\] of the List"):
        load_documents("kind: List\nitems:\n  - kind: A\n  - just text\n")


# --- JSON ---------------------------------------------------------------------


def test_json_object_and_jq_style_stream_of_objects():
    text = '{"kind": "A", "z": 1, "a": 2}\n{"kind": "B"}\n'
    objects = load_objects(text, source="out.json")
    assert [o.obj for o in objects] == [{"kind": "A", "z": 1, "a": 2}, {"kind": "B"}]
    assert list(objects[0].obj) == ["kind", "z", "a"]
    assert [(o.document, o.line) for o in objects] == [(1, 1), (2, 2)]


def test_json_bytes_with_utf8_bom_and_unicode():
    text = '\ufeff{"kind": "A", "note": "caf\u00e9 \u2713"}'.encode()
    assert load_documents(text) == [{"kind": "A", "note": "café ✓"}]


def test_utf16_with_bom_as_written_by_windows_tools():
    assert load_documents("kind: A\n".encode("utf-16")) == [{"kind": "A"}]


def test_json_numbers_keep_their_type():
    doc = load_documents('{"i": 10, "f": 1.5, "e": 1e3, "big": 123456789012345678901}')
    assert doc == [{"i": 10, "f": 1.5, "e": 1000.0, "big": 123456789012345678901}]
    assert isinstance(doc[0]["i"], int) and isinstance(doc[0]["e"], float)


def test_json_syntax_error_reports_line_and_column():
    with pytest.raises(ManifestError) as caught:
        load_documents('{\n  "kind": "A",\n  "x": [1, 2\n}\n', source="bad.json")
    assert caught.value.source == "bad.json"
    assert (caught.value.line, caught.value.column) == (4, 1)
    assert str(caught.value).startswith("bad.json:4:1: ")


def test_json_duplicate_keys_are_reported_with_position():
    with pytest.raises(ManifestError) as caught:
        load_documents('{"kind": "A",\n "kind": "B"}')
    assert (caught.value.line, caught.value.column) == (2, 2)
    assert caught.value.message == 'duplicate key "kind"'


# --- key order, unknown fields, scalars ----------------------------------------


def test_key_order_unknown_fields_annotations_and_status_are_kept():
    text = yaml(
        """
        kind: ValidatingWebhookConfiguration
        apiVersion: admissionregistration.k8s.io/v1
        metadata:
          name: x
          annotations:
            zeta: "1"
            alpha: "2"
        futureField: {nested: [1, {b: 2, a: 1}]}
        webhooks: []
        status: {observed: true}
        """
    )
    (doc,) = load_documents(text)
    assert list(doc) == [
        "kind",
        "apiVersion",
        "metadata",
        "futureField",
        "webhooks",
        "status",
    ]
    assert list(doc["metadata"]["annotations"]) == ["zeta", "alpha"]
    assert list(doc["futureField"]["nested"][1]) == ["b", "a"]
    assert doc["status"] == {"observed": True}


def test_timestamps_stay_strings():
    (doc,) = load_documents(
        "metadata:\n  creationTimestamp: 2024-01-01T10:00:00Z\n  day: 2024-01-01\n"
    )
    assert doc["metadata"] == {
        "creationTimestamp": "2024-01-01T10:00:00Z",
        "day": "2024-01-01",
    }


@pytest.mark.parametrize(
    ("plain", "expected"),
    [
        ("yes", "yes"),  # YAML 1.2 core: only true/false are booleans
        ("no", "no"),
        ("on", "on"),
        ("off", "off"),
        ("y", "y"),
        ("True", True),
        ("FALSE", False),
        ("~", None),
        ("null", None),
        ("", None),
        ("0777", 777),  # decimal in 1.2, not octal
        ("0o17", 15),
        ("0x1F", 31),
        ("-12", -12),
        ("1e3", 1000.0),
        ("1.5", 1.5),
        ("1_000", "1_000"),
        ("12:30:00", "12:30:00"),  # no YAML 1.1 base-60
        ("v1", "v1"),
    ],
)
def test_plain_scalars_resolve_by_the_yaml_1_2_core_schema(plain, expected):
    (doc,) = load_documents(f"value: {plain}\n")
    assert doc["value"] == expected
    assert type(doc["value"]) is type(expected)


def test_quoted_and_tagged_scalars_are_strings():
    (doc,) = load_documents("a: '10'\nb: \"true\"\nc: !!str 5\nd: ! 7\ne: !!int '8'\n")
    assert doc == {"a": "10", "b": "true", "c": "5", "d": "7", "e": 8}


def test_huge_integers_keep_full_precision():
    (doc,) = load_documents("n: 123456789012345678901234567890\n")
    assert doc["n"] == 123456789012345678901234567890


def test_block_scalars_and_comments():
    text = "a: |\n  line 1\n  line 2\nb: >\n  folded\n  text\n# trailing comment\n"
    assert load_documents(text) == [{"a": "line 1\nline 2\n", "b": "folded text\n"}]


def test_merge_keys_are_applied_and_explicit_keys_win():
    text = yaml(
        """
        base: &base {timeoutSeconds: 5, failurePolicy: Ignore}
        webhook:
          failurePolicy: Fail
          <<: *base
          name: a.b.c
        """
    )
    (doc,) = load_documents(text)
    assert doc["webhook"] == {
        "failurePolicy": "Fail",
        "timeoutSeconds": 5,
        "name": "a.b.c",
    }


def test_aliases_are_copies_not_shared_objects():
    (doc,) = load_documents("a: &rule {x: [1]}\nb: *rule\n")
    assert doc["a"] == doc["b"]
    doc["b"]["x"].append(2)
    assert doc["a"] == {"x": [1]}


# --- errors -------------------------------------------------------------------


def error_for(text: str | bytes, **kwargs) -> ManifestError:
    with pytest.raises(ManifestError) as caught:
        load_documents(text, source="deploy.yaml", **kwargs)
    return caught.value


def test_malformed_yaml_reports_file_line_column_and_parser_message():
    error = error_for("apiVersion: v1\nkind: A\nmeta: data: x\n")
    assert str(error) == "deploy.yaml:3:11: mapping values are not allowed here"
    assert (error.source, error.line, error.column) == ("deploy.yaml", 3, 11)
    assert isinstance(error, ValueError)


def test_unclosed_quote_points_at_the_end_and_names_where_it_started():
    error = error_for('kind: "A\n')
    assert error.line == 2
    assert "while scanning a quoted scalar at line 1, column 7" in error.message


def test_tab_indentation_is_an_error_with_position():
    error = error_for("a:\n\tb: 1\n")
    assert error.line == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- a\n- b\n", "document 1 is a list, not an object with apiVersion and kind"),
        ("just text\n", "document 1 is a string"),
        ("kind: A\n---\n42\n", "document 2 is a number"),
    ],
)
def test_top_level_documents_must_be_objects(text, message):
    assert message in error_for(text).message


@pytest.mark.parametrize(
    ("text", "shown"),
    [("1: a\n", "1"), ("true: a\n", "true"), ("null: a\n", "null"), ("~: a\n", "null")],
)
def test_non_string_keys_are_rejected_with_advice(text, shown):
    error = error_for(text)
    assert error.message == (
        f"mapping key {shown} is not a string; quote it ('{shown}') "
        "if a string is meant"
    )
    assert (error.line, error.column) == (1, 1)


def test_quoted_numeric_keys_and_yes_on_keys_are_strings():
    assert load_documents("'1': a\non: b\nyes: c\n") == [
        {"1": "a", "on": "b", "yes": "c"}
    ]


def test_complex_keys_are_rejected():
    assert (
        "mapping keys must be strings, not lists" in error_for("? [a]\n: 1\n").message
    )


def test_duplicate_keys_are_rejected_at_the_second_one():
    error = error_for("metadata:\n  name: a\n  name: b\n")
    assert (error.message, error.line, error.column) == ('duplicate key "name"', 3, 3)


@pytest.mark.parametrize("value", [".inf", "-.Inf", ".nan"])
def test_non_json_floats_are_rejected(value):
    assert "is not a number JSON can represent" in error_for(f"a: {value}\n").message


@pytest.mark.parametrize("tag", ["!!binary aGk=", "!!set {a}", "!custom x"])
def test_tags_outside_the_core_schema_are_rejected(tag):
    assert "unsupported tag" in error_for(f"a: {tag}\n").message


def test_control_characters_are_rejected_with_position():
    error = error_for("a: b\nc: d\x07\n")
    assert (error.line, error.column) == (2, 5)
    assert "U+0007" in error.message


def test_invalid_utf8_is_reported_with_position():
    error = error_for(b"a: b\nc: \xff\n")
    assert (error.line, error.column) == (2, 4)
    assert "UTF-8" in error.message


def test_undefined_alias_is_an_error():
    assert "alias *nope" in error_for("a: *nope\n").message


def test_recursive_alias_is_an_error():
    assert "alias *x refers to no completed anchor" in error_for("a: &x [*x]\n").message


def test_str_of_an_error_without_position():
    assert str(ManifestError("too big", source="x.yaml")) == "x.yaml: too big"


# --- limits -------------------------------------------------------------------


def test_size_limit_is_checked_before_parsing():
    error = error_for("a: " + "x" * 100, max_bytes=50)
    assert error.message == "input is larger than the 50-byte limit"
    assert error.line is None
    assert load_documents("a: b\n", max_bytes=5) == [{"a": "b"}]


def test_size_limit_counts_utf8_bytes_not_characters():
    assert "limit" in error_for("a: " + "é" * 20, max_bytes=30).message


def test_depth_limit_in_yaml_reports_where():
    error = error_for("a: " + "[" * 150 + "]" * 150 + "\n")
    assert error.message == "nesting is deeper than 100 levels"
    assert (error.line, error.column) == (1, 103)


def test_depth_limit_applies_to_json_too():
    text = '{"a": ' * 150 + "1" + "}" * 150
    assert error_for(text).message == "nesting is deeper than 100 levels"


def test_depth_limit_survives_very_deep_input_without_recursion_error():
    assert "nesting is deeper" in error_for("[" * 200_000).message


def test_depth_limit_is_configurable():
    nested = "a: {b: {c: 1}}\n"
    assert load_documents(nested, max_depth=3) == [{"a": {"b": {"c": 1}}}]
    assert "deeper than 2" in error_for(nested, max_depth=2).message


def billion_laughs(levels: int) -> str:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for level in range(1, levels):
        refs = ", ".join([f"*a{level - 1}"] * 10)
        lines.append(f"a{level}: &a{level} [{refs}]")
    return "\n".join(lines) + "\n"


def test_billion_laughs_is_refused_quickly():
    error = error_for(billion_laughs(9))
    assert "aliases expand to more than 10000 nodes" in error.message
    assert error.line is not None


def test_modest_alias_use_is_fine_and_the_budget_is_configurable():
    assert len(load_documents(billion_laughs(3))[0]["a2"]) == 10
    assert (
        "more than 50 nodes" in error_for(billion_laughs(3), max_alias_nodes=50).message
    )


# --- dumping ------------------------------------------------------------------


def test_dump_yaml_is_block_style_in_key_order_and_reads_back():
    obj = load_documents(VWC)[0]
    text = dump_yaml(obj)
    assert text == VWC
    assert load_documents(text) == [obj]


def test_dump_yaml_quotes_strings_yaml_1_1_tools_would_misread():
    obj = {
        "a": "yes",
        "b": "on",
        "c": "0777",
        "d": "2024-01-01",
        "e": "1e3",
        "f": "null",
        "g": "",
        "h": "1_000",
        "i": "12:30",
        "plain": "v1",
    }
    text = dump_yaml(obj)
    assert text == (
        "a: 'yes'\nb: 'on'\nc: '0777'\nd: '2024-01-01'\ne: '1e3'\nf: 'null'\n"
        "g: ''\nh: '1_000'\ni: '12:30'\nplain: v1\n"
    )
    assert load_documents(text) == [obj]


def test_dump_yaml_keeps_long_strings_on_one_line_without_anchors():
    bundle = "LS0tLS1CRUdJTi" * 200
    shared = {"x": 1}
    text = dump_yaml({"caBundle": bundle, "a": shared, "b": shared})
    assert f"caBundle: {bundle}\n" in text
    assert "&" not in text and "*" not in text


def test_dump_yaml_uses_literal_blocks_for_multi_line_text():
    text = dump_yaml({"expression": "object.a &&\n  object.b\n"})
    assert text == "expression: |\n  object.a &&\n    object.b\n"


def test_dump_yaml_documents_separates_with_dashes():
    text = dump_yaml_documents([{"kind": "A"}, {"kind": "B"}])
    assert text == "kind: A\n---\nkind: B\n"
    assert load_documents(text) == [{"kind": "A"}, {"kind": "B"}]
    assert dump_yaml_documents([]) == ""


def test_dump_yaml_rejects_data_json_cannot_hold():
    with pytest.raises(ValueError):
        dump_yaml({"a": float("nan")})
    with pytest.raises(TypeError):
        dump_yaml({1: "a"})
    with pytest.raises(TypeError):
        dump_yaml({"a": {1, 2}})


def test_dump_json_keeps_order_and_unicode():
    assert dump_json({"z": 1, "a": "é"}) == '{\n  "z": 1,\n  "a": "é"\n}\n'
    assert dump_json({"a": [1]}, indent=None) == '{"a": [1]}\n'


def test_loaded_object_records_position():
    (loaded,) = load_objects("kind: A\n")
    assert loaded == LoadedObject({"kind": "A"}, document=1, item=None, line=1)


def test_loading_the_same_text_again_hands_out_an_independent_copy():
    """Parses are remembered (the editor reads one text several times per
    keystroke); what a caller changes must never leak into the next load."""
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\ndata: {k: v}\n"
    first = load_documents(text)
    first[0]["metadata"]["name"] = "changed"
    first[0]["data"]["k"] = "changed"
    first.append({"extra": True})
    again = load_documents(text)
    assert again == [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "one"},
            "data": {"k": "v"},
        }
    ]
    assert again[0] is not first[0]


def test_dumping_follows_the_content_not_the_object():
    obj = {"metadata": {"name": "one"}, "spec": {"x": 1}}
    assert dump_yaml(obj) == "metadata:\n  name: one\nspec:\n  x: 1\n"
    obj["spec"]["x"] = "1"  # same JSON-ish shape, another type: another text
    assert dump_yaml(obj) == "metadata:\n  name: one\nspec:\n  x: '1'\n"
    obj["spec"] = {"x": 1.0}
    assert dump_yaml(obj) == "metadata:\n  name: one\nspec:\n  x: 1.0\n"
    reordered = {"spec": {"x": 1}, "metadata": {"name": "one"}}
    assert dump_yaml(reordered) == "spec:\n  x: 1\nmetadata:\n  name: one\n"
