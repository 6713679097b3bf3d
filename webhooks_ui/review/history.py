"""History of a configuration: revisions, what changed in each, and diffs."""

from __future__ import annotations

from dataclasses import dataclass

from webhooks_ui.domain.diff import (
    Change,
    DiffLine,
    NumberedLine,
    SideBySideRow,
    diff_objects,
    side_by_side,
    yaml_text_diff,
)
from webhooks_ui.domain.manifest import dump_yaml
from webhooks_ui.domain.normalize import strip_server_fields
from webhooks_ui.models import ConfigurationRevision


@dataclass(frozen=True)
class RevisionEntry:
    revision: ConfigurationRevision
    changes: list[Change]


FOLD_CONTEXT = 3


@dataclass(frozen=True)
class SideBySideLine:
    """One row of the two-column view; ``kind`` "fold" stands for ``folded``
    unchanged lines left out."""

    left: NumberedLine | None
    right: NumberedLine | None
    kind: str
    folded: int = 0


def fold_unchanged(
    rows: list[SideBySideRow], *, context: int = FOLD_CONTEXT
) -> list[SideBySideLine]:
    """Keep changed rows and ``context`` equal rows around them; fold the rest."""
    changed = [i for i, (_, _, kind) in enumerate(rows) if kind != "equal"]
    keep = {
        j
        for i in changed
        for j in range(max(0, i - context), min(len(rows), i + context + 1))
    }
    result: list[SideBySideLine] = []
    folded = 0
    for index, (left, right, kind) in enumerate(rows):
        if index in keep:
            if folded:
                result.append(SideBySideLine(None, None, "fold", folded))
                folded = 0
            result.append(SideBySideLine(left, right, kind))
        else:
            folded += 1
    if folded:
        result.append(SideBySideLine(None, None, "fold", folded))
    return result


@dataclass(frozen=True)
class ObjectDiff:
    """A semantic and a text diff between two versions of a configuration."""

    changes: list[Change]
    unified: list[DiffLine]
    columns: list[SideBySideLine]


def revision_entries(revisions: list[ConfigurationRevision]) -> list[RevisionEntry]:
    """Each revision (newest first) with its changes against the one before it."""
    ordered = sorted(revisions, key=lambda r: r.number)
    entries = []
    previous = None
    for revision in ordered:
        if revision.change == ConfigurationRevision.Change.DELETED:
            changes = diff_objects(previous, None) if previous else []
            previous = None
        else:
            changes = diff_objects(previous, revision.raw)
            previous = revision.raw
        entries.append(RevisionEntry(revision, changes))
    return list(reversed(entries))


def object_diff(old: dict | None, new: dict | None) -> ObjectDiff:
    """Diff two objects: semantic changes and YAML text of what a person edits
    (server-managed fields left out of the text, as they are of the changes)."""
    old_text = dump_yaml(strip_server_fields(old)) if old else ""
    new_text = dump_yaml(strip_server_fields(new)) if new else ""
    return ObjectDiff(
        changes=diff_objects(old, new),
        unified=yaml_text_diff(old_text, new_text),
        columns=fold_unchanged(side_by_side(old_text, new_text)),
    )
