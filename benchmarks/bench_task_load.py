"""Start-up CPU of a run (issue 19): loading and checking a task set, before the first request.

    .venv/bin/python benchmarks/bench_task_load.py [--rounds 7] [--bfcl DIR] [--profile]
        [--before SRC]

Each round is a fresh process (what ``bench run`` pays once: no warm caches), which imports
the harness untimed and then measures with ``time.process_time``:

- **baseline**: read every task file and parse it with plain ``yaml.load(text,
  Loader=yaml.CSafeLoader)`` (``json.loads`` for ``.json``): no checks, no models;
- **load**: ``bench.tasks.load.load_task_set`` (strict YAML, pydantic models, set lints);
- **check**: ``bench.world.check.check_task_set`` (corpus parsed, a mock world per task);
- **origin**: ``TaskSet.origin`` once for every task, as error paths and the runner ask.

It prints the median of the rounds and the ratio to the baseline, for the shipped ``tasks/``
and, with ``--bfcl DIR`` (the ``--out`` of ``bench suite import bfcl``), for BFCL too. With
``--before SRC`` (a directory holding another ``bench`` package, e.g. from ``git archive HEAD
src | tar -x -C /tmp/before``, then ``--before /tmp/before/src``) the same rounds also run
against that copy, alternating with this tree's, and the ratio after/before is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
FIGURES = ("load", "check", "origin")

CHILD = """
import json, sys, time
from pathlib import Path
import yaml
from bench.tasks.load import load_task_set, task_files
from bench.world.check import check_task_set

source, corpora = Path(sys.argv[1]), Path(sys.argv[2])
clock = time.process_time
start = clock()
for path in task_files(source):
    text = path.read_bytes().decode("utf-8")
    if path.suffix == ".json":
        json.loads(text)
    else:
        yaml.load(text, Loader=yaml.CSafeLoader)
baseline = clock() - start
start = clock()
task_set = load_task_set(source, corpora)
load = clock() - start
start = clock()
check_task_set(task_set)
check = clock() - start
start = clock()
for task in task_set.tasks:
    task_set.origin(task.id)
origin = clock() - start
print(json.dumps({"baseline": baseline, "load": load, "check": check, "origin": origin,
                  "tasks": len(task_set.tasks), "hash": task_set.content_hash()}))
"""

PROFILE = """
import cProfile, pstats, sys
from pathlib import Path
from bench.tasks.load import load_task_set
from bench.world.check import check_task_set
profile = cProfile.Profile()
profile.enable()
check_task_set(load_task_set(Path(sys.argv[1]), Path(sys.argv[2])))
profile.disable()
pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
"""


def child(source: Path, corpora: Path, src: Path | None) -> dict[str, Any]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(source), str(corpora)],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
        env=env,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    hashes = {run["hash"] for run in runs}
    assert len(hashes) == 1, hashes
    figures = {key: statistics.median(run[key] for run in runs) for key in FIGURES}
    return {**figures, "baseline": statistics.median(run["baseline"] for run in runs),
            "tasks": runs[0]["tasks"], "hash": runs[0]["hash"]}  # fmt: skip


def report(name: str, after: dict[str, Any], before: dict[str, Any] | None) -> None:
    base = after["baseline"]
    print(f"\n{name}: {after['tasks']} tasks, content hash {after['hash'][:16]}")
    print(f"  baseline (plain CSafeLoader / json.loads): {base * 1000:8.1f} ms CPU")
    for key in FIGURES:
        line = f"  {key:<8} {after[key] * 1000:8.1f} ms CPU   {after[key] / base:5.2f}x baseline"
        if before is not None:
            line += f"   before {before[key] * 1000:8.1f} ms CPU"
            line += f" ({before[key] / before['baseline']:5.2f}x its baseline)"
            line += f"   after/before {after[key] / max(before[key], 1e-9):5.2f}"
        print(line)
    if before is not None:
        same = "same" if before["hash"] == after["hash"] else "DIFFERENT"
        print(f"  content hash before: {before['hash'][:16]} ({same})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="fresh processes per task set")
    parser.add_argument("--bfcl", type=Path, help="the --out of `bench suite import bfcl`")
    parser.add_argument("--profile", action="store_true", help="cProfile one load and check")
    parser.add_argument("--before", type=Path, help="a directory holding an older bench package")
    args = parser.parse_args()
    sets = [("tasks/ (shipped)", REPO / "tasks", REPO / "corpora")]
    if args.bfcl is not None:
        sets.append(("BFCL", args.bfcl / "tasks", args.bfcl / "corpora"))
    print(f"median CPU of {args.rounds} fresh processes each (time.process_time)")
    for name, source, corpora in sets:
        after, before = [], []
        for _ in range(args.rounds):
            after.append(child(source, corpora, None))
            if args.before is not None:
                before.append(child(source, corpora, args.before))
        report(name, median(after), median(before) if before else None)
        if args.profile:
            subprocess.run([sys.executable, "-c", PROFILE, str(source), str(corpora)], check=True)


if __name__ == "__main__":
    main()
