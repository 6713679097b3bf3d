"""Semantic and textual diffs of webhook configurations.

``diff_objects`` compares normalised objects (``normalize.py``), so an unset
field equals its default and server-managed metadata never shows up. Lists
follow the API's patch strategy: ``webhooks`` and ``matchConditions`` are
maps keyed by ``name`` (paired by name, a reorder is one "moved" change),
every other list (rules, operations, admissionReviewVersions, selector
expressions...) is atomic, so a change to it is one Change at the list path.

Key-path format (the apiserver's field-path style, E-1, extended for map keys):

* fields are joined with dots, list items use ``[i]``:
  ``webhooks[0].clientConfig.service.port``;
* a paired webhook or match condition uses its index in the NEW object, or in
  the OLD object when it was removed;
* keys of user-keyed maps (``labels``, ``annotations``, ``matchLabels``) are
  always written as ``["<key>"]`` with JSON string quoting:
  ``metadata.annotations["cert-manager.io/inject-ca-from"]``;
* keys of any other (unknown, future) map use the dot form when they look like
  a field name (``[A-Za-z_][A-Za-z0-9_]*``) and the bracket form otherwise;
* the whole object (created or deleted) is the empty path ``""``.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from webhooks_ui.domain.kinds import (
    MUTATING,
    MUTATING_ONLY_WEBHOOK_FIELDS,
    WEBHOOK_FIELDS,
)
from webhooks_ui.domain.normalize import normalize_with
from webhooks_ui.domain.ownership import ca_bundle_injected

ADDED = "added"
REMOVED = "removed"
CHANGED = "changed"
MOVED = "moved"

_USER_KEYED_MAPS = frozenset({"labels", "annotations", "matchLabels"})
_MAP_KEY_NOUN = {"labels": "label", "annotations": "annotation"}
_FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# A reading order for webhook fields in change lists (API reference order,
# name first); anything else follows alphabetically.
_WEBHOOK_FIELD_ORDER = WEBHOOK_FIELDS + MUTATING_ONLY_WEBHOOK_FIELDS
_TOP_LEVEL_ORDER = ("apiVersion", "kind", "metadata", "webhooks")
_SHORT = 60


@dataclass(frozen=True)
class Change:
    """One semantic difference. ``old``/``new`` are None on the missing side.

    ``op`` is "added", "removed", "changed", or "moved" (list order of
    webhooks or match conditions changed; ``old``/``new`` are name lists).
    Compare Changes with ``==``; one holding a dict or list cannot be hashed.
    """

    path: str
    op: str
    old: Any = None
    new: Any = None
    summary: str = ""
    webhook: str | None = None


@dataclass(frozen=True)
class DiffLine:
    """A line of a unified text diff; ``kind`` is hunk, context, added or removed."""

    kind: str
    text: str
    old_lineno: int | None = None
    new_lineno: int | None = None


@dataclass(frozen=True)
class NumberedLine:
    """One side of a side-by-side row: 1-based line number and its text."""

    number: int
    text: str


SideBySideRow = tuple[NumberedLine | None, NumberedLine | None, str]


def diff_objects(
    old: Mapping[str, Any] | None,
    new: Mapping[str, Any] | None,
    *,
    compare_ca_bundle: bool | None = None,
) -> list[Change]:
    """Semantic changes from ``old`` to ``new`` (None = did not exist).

    ``compare_ca_bundle``: None (default) leaves caBundle out when either side
    has it injected (see ownership.py), True always compares it, False never.
    """
    if old is None and new is None:
        return []
    if compare_ca_bundle is None:
        drop_ca = ca_bundle_injected(old) or ca_bundle_injected(new)
    else:
        drop_ca = not compare_ca_bundle
    before = normalize_with(old, drop_ca_bundle=drop_ca) if old is not None else None
    after = normalize_with(new, drop_ca_bundle=drop_ca) if new is not None else None
    if before is None:
        return [Change("", ADDED, None, after, f"{_describe_object(after)} created")]
    if after is None:
        return [
            Change("", REMOVED, before, None, f"{_describe_object(before)} deleted")
        ]
    changes: list[Change] = []
    for key in _ordered_keys(before, after, _TOP_LEVEL_ORDER):
        if key == "webhooks":
            is_mutating = after.get("kind") == MUTATING
            changes.extend(
                _diff_webhooks(before.get(key), after.get(key), mutating=is_mutating)
            )
        else:
            changes.extend(_diff_value(_join("", key), key, before, after, None))
    return changes


# --- webhooks and match conditions (merge key: name) -------------------------


def _diff_webhooks(old: Any, new: Any, *, mutating: bool) -> Iterator[Change]:
    # Normalisation drops an empty list, so "absent" means "no webhooks".
    old = [] if old is None else old
    new = [] if new is None else new
    if not _is_keyed_list(old) or not _is_keyed_list(new):
        yield from _diff_atomic("webhooks", old, new, None, "webhooks")
        return
    old_items = _key_by_name(old)
    new_items = _key_by_name(new)
    for key, (index, webhook) in old_items.items():
        if key not in new_items:
            name = _name_of(webhook)
            yield Change(
                f"webhooks[{index}]",
                REMOVED,
                webhook,
                None,
                f"webhook {_quote(name)} removed",
                name,
            )
    old_order = [key for key in old_items if key in new_items]
    new_order = [key for key in new_items if key in old_items]
    if old_order != new_order:
        note = " (mutating webhooks are called in this order)" if mutating else ""
        old_names = [_name_of(old_items[key][1]) for key in old_order]
        new_names = [_name_of(new_items[key][1]) for key in new_order]
        yield Change(
            "webhooks",
            MOVED,
            old_names,
            new_names,
            f"webhook order changed: {_names(old_names)} → {_names(new_names)}{note}",
        )
    for key, (index, webhook) in new_items.items():
        name = _name_of(webhook)
        path = f"webhooks[{index}]"
        if key not in old_items:
            yield Change(
                path, ADDED, None, webhook, f"webhook {_quote(name)} added", name
            )
            continue
        before = old_items[key][1]
        for field in _ordered_keys(before, webhook, _WEBHOOK_FIELD_ORDER):
            field_path = _join(path, field)
            if field == "matchConditions":
                yield from _diff_match_conditions(
                    field_path, before.get(field), webhook.get(field), name
                )
            else:
                yield from _diff_value(field_path, field, before, webhook, name)


def _diff_match_conditions(
    path: str, old: Any, new: Any, webhook: str | None
) -> Iterator[Change]:
    old = [] if old is None else old
    new = [] if new is None else new
    if not _is_keyed_list(old) or not _is_keyed_list(new):
        yield from _diff_atomic(
            path, old or None, new or None, webhook, "matchConditions"
        )
        return
    old_items = _key_by_name(old)
    new_items = _key_by_name(new)
    for key, (index, condition) in old_items.items():
        if key not in new_items:
            cond = _name_of(condition)
            yield Change(
                f"{path}[{index}]",
                REMOVED,
                condition,
                None,
                _in_webhook(webhook, f"matchCondition {_quote(cond)} removed"),
                webhook,
            )
    old_order = [key for key in old_items if key in new_items]
    new_order = [key for key in new_items if key in old_items]
    if old_order != new_order:
        old_names = [_name_of(old_items[key][1]) for key in old_order]
        new_names = [_name_of(new_items[key][1]) for key in new_order]
        yield Change(
            path,
            MOVED,
            old_names,
            new_names,
            _in_webhook(
                webhook,
                f"matchConditions order changed: {_names(old_names)} → "
                f"{_names(new_names)}",
            ),
            webhook,
        )
    for key, (index, condition) in new_items.items():
        cond = _name_of(condition)
        item_path = f"{path}[{index}]"
        if key not in old_items:
            yield Change(
                item_path,
                ADDED,
                None,
                condition,
                _in_webhook(
                    webhook,
                    f"matchCondition {_quote(cond)} added: "
                    f"{_short(condition.get('expression'))}",
                ),
                webhook,
            )
            continue
        before = old_items[key][1]
        for field in _ordered_keys(before, condition, ("name", "expression")):
            yield from _diff_value(
                _join(item_path, field),
                field,
                before,
                condition,
                webhook,
                label=f"matchCondition {_quote(cond)} {field}",
            )


def _is_keyed_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, dict) for item in value)


def _key_by_name(
    items: list[dict[str, Any]],
) -> dict[tuple[str, int], tuple[int, dict]]:
    """Key each item by (name, occurrence), keeping list order.

    Names are unique in a valid object; the occurrence count keeps an invalid
    object (duplicate or missing names) diffable instead of losing items.
    """
    keyed: dict[tuple[str, int], tuple[int, dict]] = {}
    seen: dict[str, int] = {}
    for index, item in enumerate(items):
        name = _stable(item.get("name"))
        occurrence = seen.get(name, 0)
        seen[name] = occurrence + 1
        keyed[(name, occurrence)] = (index, item)
    return keyed


# --- generic values ------------------------------------------------------------


def _diff_value(
    path: str,
    key: str,
    old_parent: Mapping[str, Any],
    new_parent: Mapping[str, Any],
    webhook: str | None,
    *,
    label: str | None = None,
) -> Iterator[Change]:
    """Diff ``old_parent[key]`` against ``new_parent[key]`` at ``path``."""
    missing = object()
    old = old_parent.get(key, missing)
    new = new_parent.get(key, missing)
    if old is not missing and new is not missing and _same(old, new):
        return
    if key in _USER_KEYED_MAPS:
        # Normalisation drops an empty map: a first label is one added key.
        old = {} if old is missing and isinstance(new, dict) else old
        new = {} if new is missing and isinstance(old, dict) else new
    if isinstance(old, dict) and isinstance(new, dict):
        user_keyed = key in _USER_KEYED_MAPS
        for child in _ordered_keys(old, new, ()):
            child_path = (
                _map_key_path(path, child) if user_keyed else _join(path, child)
            )
            child_label = None
            if user_keyed and key in _MAP_KEY_NOUN and path.startswith("metadata."):
                child_label = f"{_MAP_KEY_NOUN[key]} {_quote(child)}"
            yield from _diff_value(
                child_path, child, old, new, webhook, label=child_label
            )
        return
    yield from _diff_atomic(
        path,
        None if old is missing else old,
        None if new is missing else new,
        webhook,
        label or _relative(path),
        old_present=old is not missing,
        new_present=new is not missing,
    )


def _diff_atomic(
    path: str,
    old: Any,
    new: Any,
    webhook: str | None,
    label: str,
    *,
    old_present: bool | None = None,
    new_present: bool | None = None,
) -> Iterator[Change]:
    old_present = old is not None if old_present is None else old_present
    new_present = new is not None if new_present is None else new_present
    if old_present and new_present:
        if _same(old, new):
            return
        text = f"{label} {_show(label, old)} → {_show(label, new)}"
        if label.endswith("rules") and isinstance(old, list) and isinstance(new, list):
            text = f"{label} changed ({_count(old, 'rule')} → {_count(new, 'rule')})"
        yield Change(path, CHANGED, old, new, _in_webhook(webhook, text), webhook)
    elif new_present:
        text = f"{label} added: {_show(label, new)}"
        yield Change(path, ADDED, None, new, _in_webhook(webhook, text), webhook)
    elif old_present:
        text = f"{label} removed (was {_show(label, old)})"
        yield Change(path, REMOVED, old, None, _in_webhook(webhook, text), webhook)


# --- text diffs -----------------------------------------------------------------


def yaml_text_diff(old_text: str, new_text: str, *, context: int = 3) -> list[DiffLine]:
    """A unified diff of two texts as typed lines; empty when they are equal.

    Built on difflib's grouped opcodes (what ``difflib.unified_diff`` uses)
    so each line keeps its old and new line numbers for display.
    """
    old_lines = old_text.splitlines()
    new_lines = new_text.splitlines()
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    lines: list[DiffLine] = []
    for group in matcher.get_grouped_opcodes(context):
        first, last = group[0], group[-1]
        header = (
            f"@@ -{_unified_range(first[1], last[2])} "
            f"+{_unified_range(first[3], last[4])} @@"
        )
        lines.append(DiffLine("hunk", header))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                for offset, text in enumerate(old_lines[i1:i2]):
                    lines.append(
                        DiffLine("context", text, i1 + offset + 1, j1 + offset + 1)
                    )
                continue
            if tag in ("replace", "delete"):
                for offset, text in enumerate(old_lines[i1:i2]):
                    lines.append(DiffLine("removed", text, i1 + offset + 1, None))
            if tag in ("replace", "insert"):
                for offset, text in enumerate(new_lines[j1:j2]):
                    lines.append(DiffLine("added", text, None, j1 + offset + 1))
    return lines


def side_by_side(old_text: str, new_text: str) -> list[SideBySideRow]:
    """Every line of both texts aligned in two columns.

    Kinds: "equal", "changed" (a replaced line paired with its replacement),
    "removed" (left only) and "added" (right only).
    """
    old_lines = old_text.splitlines()
    new_lines = new_text.splitlines()
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    rows: list[SideBySideRow] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        left = [NumberedLine(i + 1, old_lines[i]) for i in range(i1, i2)]
        right = [NumberedLine(j + 1, new_lines[j]) for j in range(j1, j2)]
        if tag == "equal":
            rows.extend((a, b, "equal") for a, b in zip(left, right, strict=True))
            continue
        paired = min(len(left), len(right))
        rows.extend((left[k], right[k], "changed") for k in range(paired))
        rows.extend((line, None, "removed") for line in left[paired:])
        rows.extend((None, line, "added") for line in right[paired:])
    return rows


def _unified_range(start: int, stop: int) -> str:
    """Range as in a unified diff header (same convention as difflib)."""
    beginning = start + 1
    length = stop - start
    if length == 1:
        return str(beginning)
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


# --- small helpers ------------------------------------------------------------------


def _ordered_keys(
    old: Mapping[str, Any], new: Mapping[str, Any], preferred: tuple[str, ...]
) -> list[str]:
    keys = set(old) | set(new)
    first = [key for key in preferred if key in keys]
    return first + sorted(keys - set(first), key=str)


def _join(path: str, key: Any) -> str:
    key = str(key)
    if not _FIELD_NAME.match(key):
        return _map_key_path(path, key)
    return f"{path}.{key}" if path else key


def _map_key_path(path: str, key: Any) -> str:
    return f"{path}[{json.dumps(str(key), ensure_ascii=False)}]"


def _relative(path: str) -> str:
    """The part of a path after ``webhooks[i].`` (summaries name the webhook)."""
    return re.sub(r"^webhooks\[\d+\]\.", "", path)


def _in_webhook(webhook: str | None, text: str) -> str:
    return f"webhook {_quote(webhook)}: {text}" if webhook is not None else text


def _same(a: Any, b: Any) -> bool:
    """Equality that tells 1, 1.0 and True apart, as JSON does."""
    return _stable(a) == _stable(b)


def _stable(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _name_of(item: Mapping[str, Any]) -> str | None:
    name = item.get("name")
    return name if isinstance(name, str) else None


def _quote(text: str | None) -> str:
    return json.dumps(text if text is not None else "", ensure_ascii=False)


def _names(names: list[str | None]) -> str:
    return ", ".join(name or "(unnamed)" for name in names)


def _count(items: list[Any], noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"


def _show(label: str, value: Any) -> str:
    """A short display form of a value for summaries."""
    if label.endswith("caBundle") and isinstance(value, str):
        return f"(CA bundle, {len(value)} characters)"
    if isinstance(value, str):
        text = value if value and value.strip() == value and " " not in value else None
        return _short(value) if text is None else _truncate(text)
    if isinstance(value, list) and all(
        isinstance(item, str | int | float) for item in value
    ):
        return _truncate("[" + ", ".join(str(item) for item in value) + "]")
    return _short(value)


def _short(value: Any) -> str:
    return _truncate(json.dumps(value, ensure_ascii=False, sort_keys=True, default=str))


def _truncate(text: str) -> str:
    return text if len(text) <= _SHORT else text[: _SHORT - 1] + "…"


def _describe_object(obj: Mapping[str, Any] | None) -> str:
    obj = obj or {}
    metadata = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    kind = obj.get("kind") or "object"
    return f"{kind} {_quote(metadata.get('name'))}"
