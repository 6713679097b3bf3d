"""Throughput of ``validate`` over the shared corpus (not a pytest test).

Run: ``.venv/bin/python -m tests.benchmarks.bench_validate [corpus_dir]``.
Prints configurations per second and the time to validate 500 configurations,
both with a cold CEL cache (first pass) and warm (steady state).
"""

from __future__ import annotations

import sys
import time
from itertools import cycle, islice
from pathlib import Path

from ruamel.yaml import YAML

from webhooks_ui.domain.cel import check_expression
from webhooks_ui.domain.kinds import KINDS
from webhooks_ui.domain.validation import validate

DEFAULT_CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "webhooks"
BATCH = 500


def load_corpus(corpus_dir: Path) -> list[dict]:
    yaml = YAML(typ="safe")
    documents = []
    for path in sorted(corpus_dir.glob("*.yaml")):
        for document in yaml.load_all(path.read_text()):
            if isinstance(document, dict) and document.get("kind") in KINDS:
                documents.append(document)
    return documents


def time_batch(documents: list[dict]) -> tuple[float, int]:
    """Seconds to validate ``documents`` once, and how many had errors."""
    start = time.perf_counter()
    invalid = sum(1 for document in documents if validate(document))
    return time.perf_counter() - start, invalid


def main(argv: list[str]) -> int:
    corpus_dir = Path(argv[1]) if len(argv) > 1 else DEFAULT_CORPUS
    documents = load_corpus(corpus_dir)
    if not documents:
        print(f"no webhook configurations found in {corpus_dir}")
        return 1
    batch = list(islice(cycle(documents), BATCH))
    check_expression.cache_clear()
    cold, invalid = time_batch(batch)
    runs = [time_batch(batch)[0] for _ in range(5)]
    warm = min(runs)
    print(f"corpus: {len(documents)} configurations from {corpus_dir}")
    print(f"configurations with errors: {invalid} of {BATCH} (expected 0)")
    print(f"{BATCH} configurations, cold CEL cache: {cold * 1000:.1f} ms")
    print(f"{BATCH} configurations, warm (best of 5): {warm * 1000:.1f} ms")
    print(f"throughput: {BATCH / warm:,.0f} configurations/second")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
