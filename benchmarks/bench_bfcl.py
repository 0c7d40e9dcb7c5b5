"""BFCL at scale (issue 18, point 4): import every single-turn category, run an oracle over all
of it, build the board for 100 entrants on it. Prints figures beside same-run baselines.

    .venv/bin/python benchmarks/bench_bfcl.py [--rounds 2] [--concurrency 4] [--entrants 100]
        [--quick] [--profile] [--keep DIR]

It needs the pinned bfcl-eval (``tests/suites/bfcl-requirements.txt``): the venv the agreement
tests build under ``~/.cache/bench-suite/`` is reused, and built first (from PyPI, hash-checked,
``--no-deps``) when missing. The one assertion: the oracle scores 1.000 in every category (exit
1 otherwise), since a slow run of a wrong oracle measures nothing.

1. **import**: ``bench suite import bfcl --out DIR --source PKG``, the whole process, as a user
   runs it (every single-turn category). Baseline: a process that only ``json.loads`` every
   line of the same BFCL data and possible-answer files.
2. **oracle run**: ``bench run --tasks DIR/tasks --target oracle.yaml``, the whole process, at
   ``--concurrency``. The entrant (a scripted target the script writes) answers each task's
   first request with what :func:`bench.suites.oracle.oracle` makes of its ground truth (the
   task it answers is the runner's ``current_attempt``, since BFCL asks three questions twice
   with other answers), no call for irrelevance, the first tool for relevance, and "done"
   after the tools answered. Baseline: in one process, load the task set
   and score the oracle's trace of every task with ``score_attempt``, no runner. Then the score
   per category, read from the run's attempts.
3. **board**: 100 entrants on the BFCL task set through ``bench.board.build`` (what ``bench
   board build`` calls: load, rows, registry, render, write the site). The entrants are the
   oracle run as the board loads it (``RunsLoader``), copied with synthetic per-task results
   (graded skill and difficulty, one repeat, a failing sentence per failed task), as
   ``bench_board.py`` fabricates them; writing 363,100 attempt files to load them back is not
   done, so loading one real run of 3,631 attempts is timed apart and multiplied. Baseline:
   the same build for 100 entrants on 300 of the tasks (every twelfth).
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import importlib.util
import json
import os
import platform
import pstats
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
BENCH = [sys.executable, "-m", "bench.cli"]


def _conftest() -> Any:
    path = REPO / "tests" / "suites" / "conftest.py"
    spec = importlib.util.spec_from_file_location("bfcl_suite_conftest", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bfcl_package() -> Path:
    """The pinned bfcl-eval's ``bfcl_eval`` directory, in the agreement tests' cached venv."""
    python = _conftest().build_venv()
    found = subprocess.run(
        [str(python), "-c", "import importlib.util as u;"
         "print(u.find_spec('bfcl_eval').submodule_search_locations[0])"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return Path(found.stdout.strip())


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str]) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Wall seconds and CPU seconds (user + sys) of one child process, and what it printed.
    The CPU figure moves less than the wall time when other sessions load the machine."""
    cpu, start = _children_cpu(), time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(command)}\n{done.stderr[-3000:]}")
    return seconds, _children_cpu() - cpu, done


# --- 1. import ----------------------------------------------------------------------------

JSON_ONLY = """
import json, sys
from pathlib import Path
data = Path(sys.argv[1]) / "data"
names = sys.argv[2:]
n = 0
for name in names:
    for path in (data / f"BFCL_v4_{name}.json", data / "possible_answer" / f"BFCL_v4_{name}.json"):
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    json.loads(line)
                    n += 1
print(n)
"""


def bench_import(package: Path, work: Path, rounds: int) -> tuple[list[float], list[float]]:
    from bench.suites.bfcl import CATEGORIES

    imports, baselines, cpu, cpu_base = [], [], [], []
    for r in range(rounds):
        t_base, c_base, done = timed([sys.executable, "-c", JSON_ONLY, str(package), *CATEGORIES])
        baselines.append(t_base)
        cpu_base.append(c_base)
        out = work / f"import-{r}"
        t_import, c_import, _ = timed([*BENCH, "suite", "import", "bfcl", "--out", str(out),
                                       "--source", str(package)])  # fmt: skip
        imports.append(t_import)
        cpu.append(c_import)
        if r:
            shutil.rmtree(out)
    lines = int(done.stdout.strip())
    print(f"\n1. import of every single-turn category ({len(CATEGORIES)}), whole process, "
          f"{rounds} round(s)")  # fmt: skip
    print(f"   bench suite import bfcl: wall {fmt(imports)} s (goal <= 10 s), "
          f"CPU {fmt(cpu)} s")  # fmt: skip
    print(f"   baseline, a process that json.loads the same {lines:,} lines: wall "
          f"{fmt(baselines)} s, CPU {fmt(cpu_base)} s")  # fmt: skip
    print(f"   ratio import / baseline: wall {ratios(imports, baselines)}, "
          f"CPU {ratios(cpu, cpu_base)}")  # fmt: skip
    return imports, baselines


def fmt(values: list[float]) -> str:
    return " / ".join(f"{v:.2f}" for v in values)


def ratios(values: list[float], bases: list[float]) -> str:
    return " / ".join(f"{v / b:.1f}x" for v, b in zip(values, bases, strict=True))


# --- 2. the oracle run ----------------------------------------------------------------------

ENTRANT = '''
"""The BFCL oracle: on an attempt's first request, the ground truth's calls for the task being
attempted (the runner's current_attempt says which); "done" once the tools answered.
bench_bfcl.py writes answers.json beside it: task id -> [input messages, calls]. The task id,
not the question, is the key: BFCL asks some questions twice with the same functions and
another ground truth (live_multiple_262-125-1 expects a call, live_irrelevance_565-173-0 none)."""
import json
from pathlib import Path

from bench.core.trace import ToolCallRequest
from bench.targets import ModelRequest, ModelResponse, current_attempt

ANSWERS = json.loads((Path(__file__).parent / "answers.json").read_text())


def oracle(request: ModelRequest) -> ModelResponse:
    attempt = current_attempt.get()
    assert attempt is not None
    inputs, made = ANSWERS[attempt[0]]
    if len(request.messages) > inputs:  # the tools answered
        return ModelResponse(content="done")
    calls = [ToolCallRequest(id=f"c{i}", name=name, arguments=args)
             for i, (name, args) in enumerate(made)]
    return ModelResponse(content="" if calls else "No function fits.", tool_calls=calls)
'''


def same_question(tasks: tuple[Any, ...]) -> list[tuple[str, str]]:
    """Pairs of tasks with the same messages and tools but other checks (no entrant that sees
    only the request can pass both)."""
    seen: dict[str, Any] = {}
    pairs = []
    for task in tasks:
        key = json.dumps([[[m.role, m.content] for m in task.input],
                          [t.model_dump(mode="json") for t in task.tools]],
                         sort_keys=True)  # fmt: skip
        check = task.expectations[0].model_dump(mode="json")
        first = seen.setdefault(key, (task.id, check))
        if first[1] != check:
            pairs.append((first[0], task.id))
    return pairs


def oracle_output(task: Any) -> list[tuple[str, dict[str, Any]]]:
    from bench.suites.astmatch import signature_of
    from bench.suites.oracle import oracle
    from bench.tasks.expectations import Calls
    from bench.tasks.model import ToolSpec

    check = task.expectations[0]
    assert isinstance(check, Calls)
    specs = [tool for tool in task.tools if isinstance(tool, ToolSpec)]
    if check.any_call:
        return [(specs[0].name, {})]
    signatures = {tool.name: signature_of(tool.name, tool.parameters) for tool in specs}
    return oracle(signatures, check.calls, check.language)


def write_oracle(tasks: tuple[Any, ...], where: Path) -> Path:
    answers = {
        task.id: [len(task.input), [list(call) for call in oracle_output(task)]] for task in tasks
    }
    where.mkdir(parents=True, exist_ok=True)
    (where / "answers.json").write_text(json.dumps(answers), encoding="utf-8")
    (where / "entrant.py").write_text(ENTRANT, encoding="utf-8")
    target = where / "oracle.yaml"
    target.write_text(
        "format_version: 1\nkind: scripted\nentrant: bfcl-oracle\ndisplay_name: BFCL oracle\n"
        "model: oracle\ncallable: entrant.py:oracle\n",
        encoding="utf-8",
    )
    return target


def score_in_process(task_dir: Path) -> float:
    """The floor: load the task set and score every task's oracle trace, no runner."""
    from bench.core.trace import Message, ToolCall, ToolCallRequest, Trace
    from bench.scorers import score_attempt
    from bench.tasks.load import load_task_set

    start = time.perf_counter()
    tasks = load_task_set(task_dir).tasks
    for task in tasks:
        output = oracle_output(task)
        requests = [ToolCallRequest(id=f"c{i}", name=n, arguments=a)
                    for i, (n, a) in enumerate(output)]  # fmt: skip
        messages = [Message(role=m.role, content=m.content) for m in task.input]
        if requests:
            messages.append(Message(role="assistant", tool_calls=requests))
        messages.append(Message(role="assistant", content="done"))
        ran = [ToolCall(id=r.id, name=r.name, arguments=r.arguments) for r in requests]
        score = score_attempt(task, Trace(messages=messages, tool_calls=ran, answers=["done"]),
                              frozenset())  # fmt: skip
        assert score.value == 1.0, task.id
    return time.perf_counter() - start


def categories_of(task_dir: Path) -> dict[str, str]:
    out = {}
    for path in sorted(task_dir.glob("*.json")):
        for task in json.loads(path.read_text(encoding="utf-8"))["tasks"]:
            out[task["id"]] = next(
                t.removeprefix("bfcl:category=") for t in task["tags"]
                if t.startswith("bfcl:category=")
            )  # fmt: skip
    return out


def per_category(runs: Path, task_dir: Path) -> tuple[dict[str, tuple[int, float]], Counter[str]]:
    from bench.records import RunStore

    [run_dir] = [p for p in runs.iterdir() if p.is_dir() and p.name[:1].isdigit()]
    category = categories_of(task_dir)
    values: dict[str, list[float]] = defaultdict(list)
    outcomes: Counter[str] = Counter()
    for record in RunStore(runs).resolve(run_dir.name).attempts():
        outcomes[record.outcome] += 1
        values[category[record.task_id]].append(record.value or 0.0)
    if sum(len(v) for v in values.values()) != len(category):
        sys.exit(
            f"the run has {sum(len(v) for v in values.values())} attempts for {len(category)} tasks"
        )
    return {c: (len(v), sum(v) / len(v)) for c, v in sorted(values.items())}, outcomes


def bench_run(task_dir: Path, work: Path, rounds: int, concurrency: int,
              profile: bool) -> tuple[list[float], list[float], Path]:  # fmt: skip
    from bench.tasks.load import load_task_set

    start = time.perf_counter()
    tasks = load_task_set(task_dir).tasks
    target = write_oracle(tasks, work / "oracle")
    t_answers = time.perf_counter() - start
    runs_seen, bases, cpu, cpu_base = [], [], [], []
    last_runs = work / "runs-0"
    for r in range(rounds):
        c0 = time.process_time()
        bases.append(score_in_process(task_dir))
        cpu_base.append(time.process_time() - c0)
        runs = work / f"runs-{r}"
        t_run, c_run, _ = timed([*BENCH, "run", "--tasks", str(task_dir), "--target",
                                 str(target), "--concurrency", str(concurrency), "--progress",
                                 "none", "--runs-dir", str(runs)])  # fmt: skip
        runs_seen.append(t_run)
        cpu.append(c_run)
        last_runs = runs
    print(
        f"\n2. oracle run over all {len(tasks):,} tasks, whole process, concurrency {concurrency}"
    )
    print(f"   (the oracle's answers computed once beforehand, untimed below: {t_answers:.2f} s)")
    pairs = same_question(tasks)
    print(f"   tasks asking the same question with the same tools and another check: "
          f"{len(pairs)} pair(s) {pairs[:5]}")  # fmt: skip
    print(f"   bench run: wall {fmt(runs_seen)} s (goal <= 60 s), CPU {fmt(cpu)} s; "
          f"{fmt([1e3 * t / len(tasks) for t in runs_seen])} ms per attempt")  # fmt: skip
    print(f"   baseline, load + score_attempt of every oracle trace in one process: "
          f"wall {fmt(bases)} s, CPU {fmt(cpu_base)} s")  # fmt: skip
    print(f"   ratio run / baseline: wall {ratios(runs_seen, bases)}, "
          f"CPU {ratios(cpu, cpu_base)}")  # fmt: skip
    if profile:
        profile_run(task_dir, target, work / "runs-profile", concurrency)
    return runs_seen, bases, last_runs


def profile_run(task_dir: Path, target: Path, runs: Path, concurrency: int) -> None:
    from click.testing import CliRunner

    from bench.cli.main import cli

    profiler = cProfile.Profile()
    profiler.enable()
    done = CliRunner().invoke(cli, ["run", "--tasks", str(task_dir), "--target", str(target),
                                    "--concurrency", str(concurrency), "--progress", "none",
                                    "--runs-dir", str(runs)])  # fmt: skip
    profiler.disable()
    assert done.exit_code == 0, done.output
    print("\n   cProfile of one run in this process (top 25 by cumulative time):")
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    pstats.Stats(profiler).sort_stats("tottime").print_stats(20)


def print_scores(scores: dict[str, tuple[int, float]], outcomes: Counter[str]) -> bool:
    print("\n   | category | tasks | oracle score |\n   |---|---|---|")
    for category, (n, value) in scores.items():
        print(f"   | {category} | {n:,} | {value:.3f} |")
    print(f"   outcomes: {dict(outcomes)}")
    return all(value == 1.0 for _, value in scores.values())


# --- 3. the board ---------------------------------------------------------------------------


class Loaded:
    """A board loader that hands over entries built beforehand."""

    def __init__(self, entries: list[Any]) -> None:
        self.entries = entries

    def load(self, repo_url: str | None) -> list[tuple[Any, bytes]]:
        return [(e, hashlib.sha256(e.run_id.encode()).digest()) for e in self.entries]


def entrants(template: Any, n: int, ids: list[str], sentence: dict[str, str],
             seed: int = 0) -> list[Any]:  # fmt: skip
    """``n`` copies of a loaded run with synthetic results on its tasks: graded skill and
    difficulty, one repeat, the calls check's sentence on every failed task."""
    from bench.board import FailedInput

    sys.path.insert(0, str(Path(__file__).parent))
    from bench_board import REPO_URL, with_headline

    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0, 1.5, len(ids))
    family = template.families
    out = []
    for e in range(n):
        p = 1 / (1 + np.exp(-(rng.normal(0, 1) - difficulty)))
        values = (rng.random(len(ids)) < p).astype(float)
        run_id = f"20260101T000000Z-{e:06x}"
        failed = tuple(
            FailedInput(task_id=t, family=family[t], value=0.0,
                        lines=(f"1/1 repeats: {sentence[t]}",), private=False,
                        transcript=f"{REPO_URL}/blob/HEAD/runs/{run_id}/attempts/{t}--r0.json")
            for t, v in zip(ids, values, strict=True) if v == 0.0
        )  # fmt: skip
        entry = replace(
            template, entrant=f"entrant-{e:04d}", display_name=f"Entrant {e}", run_id=run_id,
            fingerprint=f"{e:016x}", config={**template.config, "model": f"m{e}"},
            values={t: float(v) for t, v in zip(ids, values, strict=True)},
            pass_hat={t: float(v) for t, v in zip(ids, values, strict=True)},
            latencies=tuple((t, float(x)) for t, x in zip(ids, rng.exponential(2.0, len(ids)),
                                                         strict=True)),
            failed=failed, headline=None, source_path=f"runs/{run_id}", counted=len(ids),
        )  # fmt: skip
        out.append(with_headline(entry))
    return out


def sentences(task_dir: Path) -> dict[str, str]:
    """A failing sentence per task, in the calls check's words."""
    out = {}
    for path in sorted(task_dir.glob("*.json")):
        for task in json.loads(path.read_text(encoding="utf-8"))["tasks"]:
            calls = task["expectations"][0].get("calls", [])
            wanted = ", ".join(call["tool"] for call in calls)
            out[task["id"]] = (
                f"made no tool call, expected {wanted}"
                if calls
                else "called get_weather, and the task expects no tool call"
            )
    return out


def build_seconds(entries: list[Any], out: Path, cpu: list[float]) -> float:
    from bench.board import BuildOptions, build

    options = BuildOptions(runs=None, results=None, out=out, submissions=None,
                           extra_loaders=(Loaded(entries),))  # fmt: skip
    c0, start = time.process_time(), time.perf_counter()
    result = build(options)
    seconds = time.perf_counter() - start
    cpu.append(time.process_time() - c0)
    rows = [e for cohort in result.board.cohorts for e in cohort.entries]
    assert len(rows) == len(entries), (len(rows), len(entries), result.warnings[:5])
    return seconds


def bench_board(
    runs: Path, task_dir: Path, work: Path, n: int, rounds: int, profile: bool
) -> list[float]:
    from bench.board.load import RunsLoader

    t0 = time.perf_counter()
    [(template, _)] = RunsLoader(runs).load(None)
    t_load = time.perf_counter() - t0
    ids = list(template.values)
    said = sentences(task_dir)
    entries = entrants(template, n, ids, said)
    fewer = entrants(template, n, ids[:: len(ids) // 300][:300], said)
    builds, bases, cpu, cpu_base = [], [], [], []
    for r in range(rounds):
        bases.append(build_seconds(fewer, work / f"site-base-{r}", cpu_base))
        builds.append(build_seconds(entries, work / f"site-{r}", cpu))
    page = (work / "site-0" / "index.html").stat().st_size
    print(f"\n3. board for {n} entrants on the BFCL task set ({len(ids):,} tasks, 1 repeat), "
          f"bench.board.build")  # fmt: skip
    print(f"   build (load the entries, rows, registry, render, write): wall {fmt(builds)} s "
          f"(goal <= 20 s), CPU {fmt(cpu)} s; page {page / 1e6:.2f} MB")  # fmt: skip
    print(f"   baseline, the same build for {n} entrants on 300 of the tasks: wall "
          f"{fmt(bases)} s, CPU {fmt(cpu_base)} s")  # fmt: skip
    print(f"   ratio BFCL / 300 tasks: wall {ratios(builds, bases)}, CPU {ratios(cpu, cpu_base)}")
    print(f"   not in the build above: reading one real run of {len(ids):,} attempts "
          f"(RunsLoader, summarize) took {t_load:.2f} s, so from {n} run directories "
          f"about {t_load * n:.0f} s more")  # fmt: skip
    if profile:
        profiler = cProfile.Profile()
        profiler.enable()
        build_seconds(entries, work / "site-profile", [])
        profiler.disable()
        print("\n   cProfile of one board build (top 25 by cumulative time):")
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    return builds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--entrants", type=int, default=100)
    parser.add_argument("--quick", action="store_true", help="one round of each")
    parser.add_argument("--profile", action="store_true", help="also cProfile one oracle run")
    parser.add_argument("--keep", type=Path, help="keep the import, runs and sites here")
    args = parser.parse_args()
    rounds = 1 if args.quick else args.rounds
    load = os.getloadavg()
    print(f"bench_bfcl.py  {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}  "
          f"{os.cpu_count()} cores  Python {platform.python_version()}  "
          f"load average {load[0]:.2f} {load[1]:.2f}")  # fmt: skip
    package = bfcl_package()
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-bfcl-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        bench_import(package, work, rounds)
        task_dir = work / "import-0" / "tasks"
        _, _, runs = bench_run(task_dir, work, rounds, args.concurrency, args.profile)
        scores, outcomes = per_category(runs, task_dir)
        perfect = print_scores(scores, outcomes)
        bench_board(runs, task_dir, work, args.entrants, rounds, args.profile)
        print(f"\nload average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    if not perfect:
        sys.exit("the oracle scored below 1.000 in some category")


if __name__ == "__main__":
    main()
