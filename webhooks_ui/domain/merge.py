"""Three-way merge of a proposed configuration onto a live object that moved on.

A change request is made from a base (the live object when the draft started).
When the cluster's copy changes before the change is applied, the proposal is
stale. If the cluster's changes and the proposal's changes touch different
fields, the proposal can be replayed onto the new live object (a rebase);
where both changed the same field differently, a person has to decide.

Lists of named items (webhooks, matchConditions) merge item by item, keyed by
name, as the API server's strategic merge does; every other list is atomic.
Server-managed fields are ignored: they change on every write.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from webhooks_ui.domain.defaulting import json_copy
from webhooks_ui.domain.normalize import strip_server_fields

_MISSING = object()
# Lists merged by the name of their items (mergeKey "name" in the API types).
_KEYED_LISTS = frozenset({"webhooks", "matchConditions"})


@dataclass(frozen=True)
class MergeResult:
    """The rebased object (None when there are conflicts) and where they are."""

    merged: dict[str, Any] | None
    conflicts: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.conflicts


def three_way_merge(
    base: Mapping[str, Any], live: Mapping[str, Any], proposed: Mapping[str, Any]
) -> MergeResult:
    """Replay ``base`` → ``proposed`` onto ``live``.

    Conflicts are field paths (``webhooks["a.example.com"].timeoutSeconds``)
    that both sides changed to different values.
    """
    conflicts: list[str] = []
    merged = _merge(
        strip_server_fields(base),
        strip_server_fields(live),
        strip_server_fields(proposed),
        "",
        conflicts,
    )
    if conflicts:
        return MergeResult(None, conflicts)
    return MergeResult(merged if isinstance(merged, dict) else {}, [])


def _merge(base: Any, theirs: Any, ours: Any, path: str, conflicts: list[str]) -> Any:
    if _same(ours, base):
        return _copy(theirs)
    if _same(theirs, base) or _same(theirs, ours):
        return _copy(ours)
    if all(isinstance(v, Mapping) for v in (base, theirs, ours)):
        return _merge_maps(base, theirs, ours, path, conflicts)
    if _keyed(path) and all(_named_list(v) for v in (base, theirs, ours)):
        return _merge_named(base, theirs, ours, path, conflicts)
    conflicts.append(path or "(whole object)")
    return _copy(ours)


def _merge_maps(
    base: Mapping[str, Any],
    theirs: Mapping[str, Any],
    ours: Mapping[str, Any],
    path: str,
    conflicts: list[str],
) -> dict[str, Any]:
    # Keep the live object's key order, then keys only the proposal adds.
    keys = list(theirs) + [k for k in ours if k not in theirs]
    keys += [k for k in base if k not in keys]
    result: dict[str, Any] = {}
    for key in keys:
        value = _merge(
            base.get(key, _MISSING),
            theirs.get(key, _MISSING),
            ours.get(key, _MISSING),
            f"{path}.{key}" if path else str(key),
            conflicts,
        )
        if value is not _MISSING:
            result[key] = value
    return result


def _merge_named(
    base: list[dict[str, Any]],
    theirs: list[dict[str, Any]],
    ours: list[dict[str, Any]],
    path: str,
    conflicts: list[str],
) -> list[dict[str, Any]]:
    by_base = {item["name"]: item for item in base}
    by_theirs = {item["name"]: item for item in theirs}
    by_ours = {item["name"]: item for item in ours}
    merged: dict[str, Any] = {}
    for name in dict.fromkeys([*by_theirs, *by_ours, *by_base]):
        value = _merge(
            by_base.get(name, _MISSING),
            by_theirs.get(name, _MISSING),
            by_ours.get(name, _MISSING),
            f'{path}["{name}"]',
            conflicts,
        )
        if value is not _MISSING:
            merged[name] = value
    order = _order(
        [i["name"] for i in base],
        [i["name"] for i in theirs],
        [i["name"] for i in ours],
        path,
        conflicts,
    )
    return [merged[name] for name in order if name in merged] + [
        merged[name] for name in merged if name not in order
    ]


def _order(
    base: list[str], theirs: list[str], ours: list[str], path: str, conflicts: list
) -> list[str]:
    """The item order: whichever side reordered wins; both reordering conflicts.

    Order matters for mutating webhooks (they are called in list order).
    """
    common = [n for n in base if n in theirs and n in ours]
    base_order = [n for n in base if n in common]
    ours_order = [n for n in ours if n in common]
    theirs_order = [n for n in theirs if n in common]
    ours_moved = ours_order != base_order
    theirs_moved = theirs_order != base_order
    if ours_moved and theirs_moved and ours_order != theirs_order:
        conflicts.append(f"{path} (order)")
    if ours_moved:
        return ours + [n for n in theirs if n not in ours]
    return theirs + [n for n in ours if n not in theirs]


def _keyed(path: str) -> bool:
    last = path.rsplit(".", 1)[-1]
    return last in _KEYED_LISTS


def _named_list(value: Any) -> bool:
    if value is _MISSING:
        return False
    if not isinstance(value, list):
        return False
    names = [item.get("name") if isinstance(item, Mapping) else None for item in value]
    return all(isinstance(n, str) for n in names) and len(set(names)) == len(names)


def _same(a: Any, b: Any) -> bool:
    if a is _MISSING or b is _MISSING:
        return a is b
    return a == b


def _copy(value: Any) -> Any:
    return value if value is _MISSING else json_copy(value)
