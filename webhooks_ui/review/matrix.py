"""The multi-cluster matrix: one row per configuration (kind, name), one column
per cluster, each cell saying whether that cluster's copy matches the others."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from string import ascii_uppercase

ABSENT = "absent"
ONLY_HERE = "present"
IDENTICAL = "identical"
DIFFERENT = "different"


@dataclass(frozen=True)
class MatrixEntry:
    """One live configuration on one cluster, as the matrix needs it."""

    cluster_id: int
    kind: str
    name: str
    fingerprint: str
    configuration_id: int


@dataclass(frozen=True)
class MatrixCell:
    cluster_id: int
    cluster_name: str
    state: str
    # Letter shared by the clusters whose copies are identical to each other,
    # so "different" cells still say which clusters agree (A, B, ...).
    variant: str = ""
    configuration_id: int | None = None


@dataclass(frozen=True)
class MatrixRow:
    kind: str
    name: str
    cells: tuple[MatrixCell, ...]

    @property
    def differs(self) -> bool:
        """Absent somewhere or not identical everywhere it exists."""
        return any(cell.state in (ABSENT, DIFFERENT) for cell in self.cells)


def build_matrix(
    entries: Iterable[MatrixEntry], columns: Sequence[tuple[int, str]]
) -> list[MatrixRow]:
    """Rows sorted by kind then name; cells in ``columns`` (id, name) order."""
    by_row: dict[tuple[str, str], dict[int, MatrixEntry]] = defaultdict(dict)
    for entry in entries:
        by_row[(entry.kind, entry.name)][entry.cluster_id] = entry
    return [
        MatrixRow(kind, name, _cells(by_row[(kind, name)], columns))
        for kind, name in sorted(by_row)
    ]


def _cells(
    present: dict[int, MatrixEntry], columns: Sequence[tuple[int, str]]
) -> tuple[MatrixCell, ...]:
    fingerprints = Counter(entry.fingerprint for entry in present.values())
    # Most common variant first, so the majority is always "A".
    letters = {
        fp: ascii_uppercase[i % 26]
        for i, (fp, _) in enumerate(
            sorted(fingerprints.items(), key=lambda item: (-item[1], item[0]))
        )
    }
    cells = []
    for cluster_id, cluster_name in columns:
        entry = present.get(cluster_id)
        if entry is None:
            state, variant = ABSENT, ""
        elif len(present) == 1:
            state, variant = ONLY_HERE, ""
        elif len(fingerprints) == 1:
            state, variant = IDENTICAL, "A"
        else:
            state, variant = DIFFERENT, letters[entry.fingerprint]
        cells.append(
            MatrixCell(
                cluster_id,
                cluster_name,
                state,
                variant,
                entry.configuration_id if entry else None,
            )
        )
    return tuple(cells)
