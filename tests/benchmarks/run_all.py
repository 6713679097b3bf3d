"""Run every benchmark in this folder, one after another, each in its own process
(each configures Django and its own throwaway database)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def main() -> int:
    failures = 0
    for path in sorted(Path(__file__).parent.glob("bench_*.py")):
        module = f"tests.benchmarks.{path.stem}"
        print(f"\n=== {module} ===", flush=True)
        failures += subprocess.call([sys.executable, "-m", module]) != 0
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
