"""Three-way merge: replay a proposal onto a live object that moved on."""

from __future__ import annotations

import copy

from tests import factories
from webhooks_ui.domain.merge import three_way_merge


def _base():
    obj = factories.configuration("checks", webhooks=3)
    obj["metadata"]["resourceVersion"] = "1"
    return obj


def test_disjoint_changes_merge_cleanly():
    base = _base()
    live = copy.deepcopy(base)
    live["metadata"]["resourceVersion"] = "2"
    live["webhooks"][1]["failurePolicy"] = "Ignore"
    ours = copy.deepcopy(base)
    ours["webhooks"][0]["timeoutSeconds"] = 7
    result = three_way_merge(base, live, ours)
    assert result.clean
    assert result.merged["webhooks"][0]["timeoutSeconds"] == 7
    assert result.merged["webhooks"][1]["failurePolicy"] == "Ignore"
    assert "resourceVersion" not in result.merged["metadata"]


def test_same_field_changed_differently_conflicts_with_a_readable_path():
    base = _base()
    live, ours = copy.deepcopy(base), copy.deepcopy(base)
    name = base["webhooks"][0]["name"]
    live["webhooks"][0]["timeoutSeconds"] = 3
    ours["webhooks"][0]["timeoutSeconds"] = 7
    result = three_way_merge(base, live, ours)
    assert not result.clean and result.merged is None
    assert result.conflicts == [f'webhooks["{name}"].timeoutSeconds']


def test_same_change_on_both_sides_is_no_conflict():
    base = _base()
    live, ours = copy.deepcopy(base), copy.deepcopy(base)
    live["webhooks"][0]["timeoutSeconds"] = ours["webhooks"][0]["timeoutSeconds"] = 5
    assert three_way_merge(base, live, ours).clean


def test_webhooks_merge_by_name_adds_and_removes_on_either_side():
    base = _base()
    live, ours = copy.deepcopy(base), copy.deepcopy(base)
    live["webhooks"].append(factories.webhook("added.by.cluster"))
    removed = ours["webhooks"].pop(1)["name"]
    ours["webhooks"].append(factories.webhook("added.by.proposal"))
    merged = three_way_merge(base, live, ours).merged
    names = [w["name"] for w in merged["webhooks"]]
    assert removed not in names
    assert names[-2:] == ["added.by.cluster", "added.by.proposal"]


def test_reordering_on_one_side_wins_on_both_sides_conflicts():
    base = _base()
    ours = copy.deepcopy(base)
    ours["webhooks"].reverse()
    live = copy.deepcopy(base)
    live["metadata"]["labels"] = {"team": "x"}
    result = three_way_merge(base, live, ours)
    assert [w["name"] for w in result.merged["webhooks"]] == [
        w["name"] for w in ours["webhooks"]
    ]
    assert result.merged["metadata"]["labels"] == {"team": "x"}
    live["webhooks"] = [live["webhooks"][1], live["webhooks"][0], live["webhooks"][2]]
    assert "webhooks (order)" in three_way_merge(base, live, ours).conflicts


def test_deleting_a_webhook_the_cluster_changed_conflicts():
    base = _base()
    live, ours = copy.deepcopy(base), copy.deepcopy(base)
    live["webhooks"][1]["timeoutSeconds"] = 4
    del ours["webhooks"][1]
    assert not three_way_merge(base, live, ours).clean


def test_an_injected_ca_bundle_rotated_in_the_cluster_is_kept():
    base = _base()
    base["webhooks"][0]["clientConfig"]["caBundle"] = "b2xk"
    live, ours = copy.deepcopy(base), copy.deepcopy(base)
    live["webhooks"][0]["clientConfig"]["caBundle"] = "bmV3"
    ours["webhooks"][0]["timeoutSeconds"] = 7
    merged = three_way_merge(base, live, ours).merged
    assert merged["webhooks"][0]["clientConfig"]["caBundle"] == "bmV3"
    assert merged["webhooks"][0]["timeoutSeconds"] == 7
