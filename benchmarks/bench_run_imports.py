"""CPU of importing what `bench run` imports, in a fresh interpreter (issue 19, start-up).

    .venv/bin/python benchmarks/bench_run_imports.py                      # this tree
    .venv/bin/python benchmarks/bench_run_imports.py --before /tmp/old/src  # against another

`--before` is the `src` directory of another tree, e.g. `git archive REV src | tar -x -C
/tmp/old`. The two are run interleaved, so load on a shared machine falls on both alike. Also
prints which heavy third-party modules the import pulled in.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

MODULES = "bench.runner, bench.cli.run_cmd, bench.reports.summary"
HEAVY = ("httpx", "rich", "numpy", "jsonschema", "pydantic", "sqlite3", "yaml")
SRC = Path(__file__).resolve().parents[1] / "src"


def _cpu(src: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(src)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", f"import {MODULES}"], env=env, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def _loaded(src: Path) -> list[str]:
    code = f"import sys, {MODULES}; print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)
    return out.stdout.decode().split()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="the src directory of another tree")
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    trees = {"this tree": SRC, **({"before": args.before} if args.before else {})}
    times: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(args.rounds):
        for name, src in trees.items():
            times[name].append(_cpu(src))
    for name, src in trees.items():
        median = statistics.median(times[name]) * 1000
        print(f"{name:>10}: import CPU median {median:.0f} ms; loads {' '.join(_loaded(src))}")
    if args.before:
        ratio = statistics.median(times["this tree"]) / statistics.median(times["before"])
        print(f"this tree / before: {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
