"""JSON merge patches: the examples of RFC 7396 (appendix A), inputs untouched."""

from __future__ import annotations

import copy

import pytest

from webhooks_ui.domain.merge_patch import merge_patch

RFC_7396_EXAMPLES = [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    (["a", "b"], ["c", "d"], ["c", "d"]),
    ({"a": "b"}, ["c"], ["c"]),
    ({"a": "foo"}, None, None),
    ({"a": "foo"}, "bar", "bar"),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
]


@pytest.mark.parametrize(("target", "patch", "expected"), RFC_7396_EXAMPLES)
def test_rfc_7396_examples(target, patch, expected):
    before = (copy.deepcopy(target), copy.deepcopy(patch))
    assert merge_patch(target, patch) == expected
    assert (target, patch) == before


def test_a_patch_of_one_label_keeps_the_rest():
    live = {"metadata": {"name": "x", "labels": {"a": "1", "b": "2"}}, "webhooks": []}
    patched = merge_patch(live, {"metadata": {"labels": {"a": None, "c": "3"}}})
    assert patched == {
        "metadata": {"name": "x", "labels": {"b": "2", "c": "3"}},
        "webhooks": [],
    }
