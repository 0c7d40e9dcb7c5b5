"""Re-score a finished run from its traces: the same checks, today's scorers, no entrant.

Nothing is written. Attempts that were *scored* or *not scorable* are judged again; the
others (errored, over budget, harness fault) have no verdicts to recompute. A judge is asked
only on a cache miss, so re-scoring a run whose verdicts are cached costs no judge calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.core.errors import RunStoreError
from bench.corpus import CorpusLibrary
from bench.records.store import RunDir
from bench.scorers import score_attempt
from bench.tasks.load import load_task_set

RESCORED = frozenset({"scored", "not_scorable"})


@dataclass(frozen=True)
class Change:
    task_id: str
    repeat: int
    before: float | None
    after: float | None


@dataclass(frozen=True)
class RescoreResult:
    run_id: str
    rescored: int
    changed: tuple[Change, ...]
    judge_usage: dict[str, Any] | None


def rescore_run(
    run: RunDir,
    tasks: Path | None = None,
    corpus_root: Path | None = None,
    judge_file: Path | None = None,
    judge_cache: Path | None = None,
) -> RescoreResult:
    config = run.config()
    source = tasks if tasks is not None else Path(config.task_set.path)
    task_set = load_task_set(source, corpus_root)
    by_id = task_set.by_id()
    judge = None
    if judge_file is not None:
        from bench.scorers.judge.service import open_judge

        judge = open_judge(judge_file, cache_path=judge_cache)
    try:
        corpora = CorpusLibrary(task_set.corpus_root)
        changed: list[Change] = []
        count = 0
        for record in run.attempts():
            if record.outcome not in RESCORED:
                continue
            task = by_id.get(record.task_id)
            if task is None or task.fingerprint() != record.task_fingerprint:
                raise RunStoreError(
                    f"task '{record.task_id}' is not the task this run attempted "
                    "(missing or changed); re-score against the task set the run used",
                    code="CONFIG_CHANGED",
                    path=source,
                )
            corpus = corpora.corpus(task.corpus) if task.corpus else None
            known = corpus.passage_ids if corpus is not None else frozenset()
            scored = score_attempt(task, record.trace, known, judge=judge)
            count += 1
            if scored.value != record.value:
                changed.append(Change(record.task_id, record.repeat, record.value, scored.value))
        usage = judge.usage() if judge is not None else None
    finally:
        if judge is not None:
            judge.close()
    return RescoreResult(config.run_id, count, tuple(changed), usage)


__all__ = ["Change", "RescoreResult", "rescore_run"]
