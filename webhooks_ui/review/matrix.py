"""The multi-cluster matrix: one row per configuration (kind, name), one column
per cluster, each cell saying whether that cluster's copy matches the others.

A fleet has thousands of configurations, so rows are grouped from plain
tuples, "differs" is decided from fingerprints alone, and cells are built and
rendered only for the page being shown.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from string import ascii_uppercase

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from webhooks_ui.converters import SLUG_BY_KIND

ABSENT = "absent"
ONLY_HERE = "present"
IDENTICAL = "identical"
DIFFERENT = "different"

_LABELS = {ABSENT: "absent", ONLY_HERE: "only here", IDENTICAL: "identical"}
_BADGES = {
    ABSENT: "text-bg-light border",
    ONLY_HERE: "text-bg-secondary",
    IDENTICAL: "text-bg-success",
    DIFFERENT: "text-bg-warning",
}

# (cluster id, kind, name, fingerprint): what the query yields per configuration.
Entry = tuple[int, str, str, str]


@dataclass(frozen=True)
class Column:
    cluster_id: int
    cluster_name: str


@dataclass(frozen=True)
class MatrixCell:
    cluster_name: str
    state: str
    # Letter shared by the clusters whose copies are identical to each other,
    # so "different" cells still say which clusters agree (A, B, ...).
    variant: str = ""
    url: str = ""

    @property
    def label(self) -> str:
        return _LABELS.get(self.state) or f"different ({self.variant})"


@dataclass(frozen=True)
class MatrixRow:
    kind: str
    name: str
    cells: tuple[MatrixCell, ...]
    compare_url: str = ""

    @property
    def differs(self) -> bool:
        """Absent somewhere or not identical everywhere it exists."""
        return any(cell.state in (ABSENT, DIFFERENT) for cell in self.cells)

    def cells_html(self) -> SafeString:
        """The row's <td> cells (rendered here: a page has ~1,000 of them)."""
        return format_html_join(
            "",
            '<td data-cluster="{}" data-state="{}">{}</td>',
            ((c.cluster_name, c.state, _badge(c)) for c in self.cells),
        )


def _badge(cell: MatrixCell) -> SafeString:
    css = _BADGES[cell.state]
    if cell.url:
        return format_html(
            '<a href="{}" class="badge {} text-decoration-none">{}</a>',
            cell.url,
            css,
            cell.label,
        )
    return format_html('<span class="badge {}">{}</span>', css, cell.label)


class Matrix:
    """Every row's fingerprints per cluster; cells are built on demand."""

    def __init__(self, entries: Iterable[Entry], columns: Sequence[Column]) -> None:
        self.columns = list(columns)
        self._rows: dict[tuple[str, str], dict[int, str]] = {}
        for cluster_id, kind, name, fingerprint in entries:
            self._rows.setdefault((kind, name), {})[cluster_id] = fingerprint
        self.keys = sorted(self._rows)

    def differing_keys(self) -> list[tuple[str, str]]:
        """Rows absent from some column or with more than one variant."""
        wanted = len(self.columns)
        return [
            key
            for key, present in ((k, self._rows[k]) for k in self.keys)
            if len(present) < wanted or len(set(present.values())) > 1
        ]

    def row(
        self, key: tuple[str, str], *, base_urls: dict[int, str], compare_url: str = ""
    ) -> MatrixRow:
        """One row's cells. ``base_urls`` are the clusters' page URLs: a
        configuration's page is nested below its cluster's (see urls.py)."""
        kind, name = key
        present = self._rows[key]
        suffix = f"{SLUG_BY_KIND.get(kind, kind)}/{name}/"
        counts = Counter(present.values())
        # Most common variant first, so the majority is always "A".
        ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        letters = {fp: ascii_uppercase[i % 26] for i, (fp, _) in enumerate(ordered)}
        cells = []
        for column in self.columns:
            fingerprint = present.get(column.cluster_id)
            if fingerprint is None:
                cells.append(MatrixCell(column.cluster_name, ABSENT))
                continue
            url = base_urls[column.cluster_id] + suffix
            if len(present) == 1:
                state, variant = ONLY_HERE, ""
            elif len(counts) == 1:
                state, variant = IDENTICAL, "A"
            else:
                state, variant = DIFFERENT, letters[fingerprint]
            cells.append(MatrixCell(column.cluster_name, state, variant, url))
        return MatrixRow(kind, name, tuple(cells), compare_url)


def build_matrix(
    entries: Iterable[Entry], columns: Sequence[tuple[int, str]]
) -> list[MatrixRow]:
    """Every row, fully built (for tests and small fleets)."""
    matrix = Matrix(entries, [Column(*column) for column in columns])
    base = {c.cluster_id: f"/clusters/{c.cluster_name}/" for c in matrix.columns}
    return [matrix.row(key, base_urls=base) for key in matrix.keys]
