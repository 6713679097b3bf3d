"""Whatever JSON data we dump, we read back exactly: values, types and key order."""

import json

from hypothesis import given
from hypothesis import strategies as st

from webhooks_ui.domain.manifest import (
    dump_json,
    dump_yaml,
    dump_yaml_documents,
    load_documents,
)

# Strings that a careless YAML writer turns into something else.
TRICKY_STRINGS = [
    "",
    "yes",
    "No",
    "on",
    "OFF",
    "y",
    "n",
    "true",
    "False",
    "null",
    "~",
    "Null",
    "1e3",
    "0x10",
    "0o17",
    "0777",
    "1_000",
    "12:30:45",
    ".inf",
    "-.Inf",
    ".NaN",
    "2024-01-01",
    "2024-01-01T10:00:00Z",
    "<<",
    "=",
    "-",
    "- item",
    "? key",
    "key: value",
    "# not a comment",
    "a #b",
    "*alias",
    "&anchor",
    "!tag",
    "%directive",
    "@at",
    "`tick",
    "|",
    ">",
    "'single'",
    '"double"',
    "[flow]",
    "{flow}",
    "  leading spaces",
    "trailing spaces  ",
    "\ttab",
    "multi\nline\n",
    "multi\nline no end",
    "\nleading newline",
    "trailing newlines\n\n\n",
    "  indented first\nline\n",
    "line with trailing space \nnext",
    "---",
    "...",
    "--- a",
    "caf\u00e9 \u2713 \u65e5\u672c",
    "\u2028line separator",
    "nel\x85char",
    "bom\ufeffinside",
    "\x00nul",
    "\x07bell",
    "emoji \U0001f600",
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t" * 20,
]

strings = st.one_of(st.sampled_from(TRICKY_STRINGS), st.text(max_size=40))
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    strings,
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(strings, children, max_size=4),
    ),
    max_leaves=25,
)

rules = st.fixed_dictionaries(
    {
        "operations": st.lists(st.sampled_from(["CREATE", "UPDATE", "*"]), max_size=3),
        "apiGroups": st.lists(st.sampled_from(["", "apps", "*"]), max_size=2),
        "apiVersions": st.lists(st.sampled_from(["v1", "*"]), max_size=2),
        "resources": st.lists(strings, max_size=3),
    },
    optional={"scope": st.sampled_from(["*", "Namespaced", "Cluster", "yes"])},
)
webhooks = st.fixed_dictionaries(
    {
        "name": strings,
        "clientConfig": st.dictionaries(strings, json_values, max_size=3),
    },
    optional={
        "rules": st.lists(rules, max_size=2),
        "failurePolicy": st.sampled_from(["Fail", "Ignore", "no", ""]),
        "sideEffects": st.sampled_from(["None", "NoneOnDryRun", "Unknown"]),
        "timeoutSeconds": st.one_of(st.integers(-5, 40), st.none()),
        "admissionReviewVersions": st.lists(strings, max_size=3),
        "matchConditions": st.lists(
            st.fixed_dictionaries({"name": strings, "expression": strings}),
            max_size=2,
        ),
        "futureField": json_values,
    },
)
webhook_configurations = st.fixed_dictionaries(
    {
        "apiVersion": st.just("admissionregistration.k8s.io/v1"),
        "kind": st.sampled_from(
            ["ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"]
        ),
        "metadata": st.fixed_dictionaries(
            {"name": strings},
            optional={
                "annotations": st.dictionaries(strings, strings, max_size=4),
                "labels": st.dictionaries(strings, strings, max_size=3),
            },
        ),
    },
    optional={"webhooks": st.lists(webhooks, max_size=3), "unknown": json_values},
)


def same_with_order(left, right) -> bool:
    """Equal values of equal types, and every mapping's keys in the same order."""
    if isinstance(left, dict):
        return (
            isinstance(right, dict)
            and list(left) == list(right)
            and all(same_with_order(left[k], right[k]) for k in left)
        )
    if isinstance(left, list):
        return (
            isinstance(right, list)
            and len(left) == len(right)
            and all(same_with_order(a, b) for a, b in zip(left, right, strict=True))
        )
    return type(left) is type(right) and left == right


@given(webhook_configurations)
def test_webhook_configurations_survive_dump_yaml_then_load(obj):
    (loaded,) = load_documents(dump_yaml(obj))
    assert same_with_order(loaded, obj)


@given(webhook_configurations)
def test_webhook_configurations_survive_dump_json_then_load(obj):
    (loaded,) = load_documents(dump_json(obj))
    assert same_with_order(loaded, obj)


@given(st.dictionaries(strings, json_values, max_size=6))
def test_any_json_object_survives_dump_yaml_then_load(obj):
    (loaded,) = load_documents(dump_yaml(obj))
    assert same_with_order(loaded, obj)


@given(st.lists(webhook_configurations, min_size=1, max_size=3))
def test_multi_document_dumps_read_back_in_order(objs):
    assert same_with_order(load_documents(dump_yaml_documents(objs)), objs)


@given(webhook_configurations)
def test_yaml_and_json_dumps_describe_the_same_data(obj):
    from_yaml = load_documents(dump_yaml(obj))[0]
    assert json.dumps(from_yaml) == json.dumps(json.loads(dump_json(obj)))


@given(st.sampled_from(TRICKY_STRINGS))
def test_tricky_strings_are_still_strings_as_keys_and_values(text):
    obj = {text: text, "list": [text]}
    assert same_with_order(load_documents(dump_yaml(obj))[0], obj)
