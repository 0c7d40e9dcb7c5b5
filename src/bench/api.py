"""The Python API: the CLI's verbs as typed functions returning models, for people who script.

Every function mirrors a command (``bench run``, ``bench show``, ``bench compare``,
``bench verify``, ``bench board build``) and raises the same ``BenchError`` subclasses the
CLI turns into exit codes.
Runnable examples: ``docs/API.md`` (a test executes them).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from bench.board import BuildOptions, BuildResult, build
from bench.core.budget import Budget
from bench.core.rng import DEFAULT_SEED
from bench.records.store import RunStore
from bench.reports.compare import Comparison, compare_runs
from bench.reports.summary import RunSummary, summarize
from bench.runner.session import RunRequest, resume_run, start_run
from bench.verify.verifier import BundleVerdict, VerifyOptions, verify_bundle


def run(
    tasks: str | Path,
    target: str | Path | None = None,
    *,
    replay: str | None = None,
    split: str | None = None,
    task_ids: list[str] | None = None,
    repeats: int = 1,
    concurrency: int = 4,
    timeout_s: float | None = None,
    task_budget: Budget | None = None,
    run_budget: Budget | None = None,
    seed: int = DEFAULT_SEED,
    runs_dir: str | Path = "runs",
    resume: str | None = None,
    judge: str | Path | None = None,
) -> RunSummary:
    """Run (or with ``resume``, continue) an entrant over a task set; return its summary."""
    request = RunRequest(
        tasks=Path(tasks),
        target_file=Path(target) if target is not None else None,
        replay=replay,
        split=split,
        task_ids=tuple(task_ids) if task_ids else None,
        repeats=repeats,
        concurrency=concurrency,
        attempt_timeout_s=timeout_s,
        task_budget=task_budget or Budget(),
        run_budget=run_budget or Budget(),
        seed=seed,
        runs_dir=Path(runs_dir),
        judge_file=Path(judge) if judge is not None else None,
    )
    run_dir, _ = resume_run(resume, request) if resume else start_run(request)
    return summarize(run_dir)


def show(run: str = "latest", *, runs_dir: str | Path = "runs") -> RunSummary:
    """A run's summary: score with interval, failed tasks with their sentences, records."""
    return summarize(RunStore(Path(runs_dir)).resolve(run))


def compare(first: str, second: str, *, runs_dir: str | Path = "runs") -> Comparison:
    """Two runs paired on their shared tasks (``bench compare``)."""
    store = RunStore(Path(runs_dir))
    return compare_runs(summarize(store.resolve(first)), summarize(store.resolve(second)))


def verify(bundle: str | Path, options: VerifyOptions | None = None) -> BundleVerdict:
    """Check a signed bundle (``bench verify``); never raises for a bad bundle."""
    return verify_bundle(Path(bundle), options)


def build_board(options: BuildOptions | None = None, **fields: Any) -> BuildResult:
    """Build the board (``bench board build``): ``BuildOptions`` or its fields as keywords."""
    chosen = options or BuildOptions()
    if fields:
        chosen = dataclasses.replace(chosen, **fields)
    return build(chosen)


__all__ = ["build_board", "compare", "run", "show", "verify"]
