"""Pure helpers: patch formats and selector grammar."""

from __future__ import annotations

import pytest

from webhooks_ui.sandbox.patch import json_patch, merge_patch, strategic_merge_patch
from webhooks_ui.sandbox.selectors import parse_field_selector, parse_label_selector
from webhooks_ui.sandbox.status import ApiError


def test_merge_patch_rfc7386() -> None:
    target = {"a": "b", "c": {"d": "e", "f": "g"}, "list": [1, 2]}
    patched = merge_patch(target, {"a": "z", "c": {"f": None}, "list": [3]})
    assert patched == {"a": "z", "c": {"d": "e"}, "list": [3]}
    assert target["c"] == {"d": "e", "f": "g"}  # not modified in place


def test_json_patch_operations() -> None:
    doc = {"items": [1, 2], "meta": {"x": 1}}
    patched = json_patch(
        doc,
        [
            {"op": "add", "path": "/items/-", "value": 3},
            {"op": "remove", "path": "/items/0"},
            {"op": "move", "from": "/meta/x", "path": "/meta/y"},
            {"op": "copy", "from": "/meta/y", "path": "/z"},
            {"op": "replace", "path": "/meta/y", "value": "a~b"},
        ],
    )
    assert patched == {"items": [2, 3], "meta": {"y": "a~b"}, "z": 1}
    with pytest.raises(ApiError) as missing:
        json_patch(doc, [{"op": "replace", "path": "/nope", "value": 1}])
    assert missing.value.code == 422


def test_strategic_merge_by_name_and_replace_directive() -> None:
    target = {
        "webhooks": [
            {"name": "a", "matchConditions": [{"name": "x", "expression": "true"}]},
            {"name": "b", "rules": [{"resources": ["pods"]}]},
        ]
    }
    patched = strategic_merge_patch(
        target,
        {
            "$setElementOrder/webhooks": [{"name": "a"}, {"name": "b"}],
            "webhooks": [
                {
                    "name": "a",
                    "matchConditions": [{"name": "y", "expression": "1 == 1"}],
                },
                {"name": "b", "rules": [{"resources": ["services"]}]},
                {"name": "c"},
            ],
        },
    )
    assert [h["name"] for h in patched["webhooks"]] == ["a", "b", "c"]
    assert [c["name"] for c in patched["webhooks"][0]["matchConditions"]] == [
        "x",
        "y",
    ]
    # rules has no merge key: the list is replaced.
    assert patched["webhooks"][1]["rules"] == [{"resources": ["services"]}]
    replaced = strategic_merge_patch(
        target, {"webhooks": [{"name": "z"}, {"$patch": "replace"}]}
    )
    assert replaced["webhooks"] == [{"name": "z"}]


@pytest.mark.parametrize(
    ("selector", "labels", "matches"),
    [
        ("", {}, True),
        ("a=b", {"a": "b"}, True),
        ("a=b", {}, False),
        ("a!=b", {}, True),
        ("a in (b, c)", {"a": "c"}, True),
        ("a notin (b)", {}, True),
        ("a,!b", {"a": "1"}, True),
        ("a,!b", {"a": "1", "b": "2"}, False),
        ("example.com/x in (1),y", {"example.com/x": "1", "y": ""}, True),
    ],
)
def test_label_selector(selector: str, labels: dict, matches: bool) -> None:
    assert parse_label_selector(selector)(labels) is matches


@pytest.mark.parametrize("bad", ["a in b", "=b", "a=b=c", "a in (b", "-a"])
def test_bad_label_selectors(bad: str) -> None:
    with pytest.raises(ApiError) as error:
        parse_label_selector(bad)
    assert error.value.code == 400


def test_field_selector() -> None:
    obj = {"metadata": {"name": "x", "namespace": "ns"}}
    assert parse_field_selector("metadata.name=x")(obj)
    assert parse_field_selector("metadata.name!=y,metadata.namespace==ns")(obj)
    assert not parse_field_selector("metadata.name=y")(obj)
