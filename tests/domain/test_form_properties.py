"""Properties of the form mapping: fields it does not know survive anything,
and whatever is typed, saving the same form again changes nothing."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from tests.domain.test_corpus_roundtrip import key_orders
from tests.domain.test_form_model import _with_rows, configuration, edit, posted
from webhooks_ui.domain.form_model import form_to_object, object_to_form
from webhooks_ui.domain.kinds import MUTATING, VALIDATING

leaves = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=6), st.floats(0, 9)
)
values = st.recursive(
    leaves,
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(min_size=1, max_size=4), children, max_size=3)
    ),
    max_leaves=8,
)
# "x-" keeps them apart from every field the API (and the form) knows.
extras = st.dictionaries(
    st.text("abcdefXYZ", min_size=1, max_size=6).map(lambda key: f"x-{key}"),
    values,
    max_size=2,
)


def _levels(obj: dict) -> list[dict]:
    hook = obj["webhooks"][0]
    return [
        obj,
        obj["metadata"],
        hook,
        hook["clientConfig"],
        hook["clientConfig"]["service"],
        hook["rules"][0],
        hook["namespaceSelector"],
        hook["namespaceSelector"]["matchExpressions"][0],
        hook["objectSelector"],
        hook["matchConditions"][0],
    ]


@given(
    kind=st.sampled_from([VALIDATING, MUTATING]),
    unknown=st.lists(extras, min_size=10, max_size=10),
    timeout=st.text(max_size=4),
)
def test_unknown_fields_survive_any_edit(kind, unknown, timeout):
    obj = _with_rows(configuration(kind))
    for level, extra in zip(_levels(obj), unknown, strict=True):
        level.update(extra)
    before = json.loads(json.dumps(obj))
    assert edit(obj) == before
    after = edit(obj, w__0__timeout_seconds=timeout)
    for level, extra in zip(_levels(after), unknown, strict=True):
        assert {key: level[key] for key in extra} == extra
    after["webhooks"][0].pop("timeoutSeconds", None)
    assert after == before
    assert key_orders(after) == key_orders(before)


text_fields = st.sampled_from(
    [
        "name",
        "w-0-name",
        "w-0-service_port",
        "w-0-url",
        "w-0-ca_bundle",
        "w-0-r-0-api_groups",
        "w-0-r-0-resources",
        "w-0-r-0-scope",
        "w-0-failure_policy",
        "w-0-timeout_seconds",
        "w-0-admission_review_versions",
        "w-0-ns-me-0-values",
        "w-0-mc-0-expression",
        "labels-0-key",
    ]
)


@given(field=text_fields, typed=st.text(max_size=12))
def test_saving_the_same_form_twice_changes_nothing(field, typed):
    obj = _with_rows(configuration(MUTATING))
    obj["metadata"]["labels"] = {"a": "b"}
    once = edit(obj, **{field.replace("-", "__"): typed})
    form = object_to_form(once, kind=MUTATING)
    again = form_to_object(posted(form), once, kind=MUTATING)
    assert json.dumps(again) == json.dumps(once)
