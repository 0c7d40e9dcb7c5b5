"""The board's task view, "which entries failed this task?", at build time.

For each cohort: every task some row of it attempted (sorted by id) with its family, whether it
is private, and the prompt in brief; and for each row, in the cohort's listing order, its
verdict on every one of those tasks, one letter a task (:data:`VERDICTS`). The page opens one
task from a failed task's id on a report card, or from the task search box, and lists every
row of each cohort that has it with that verdict and a link to the row's transcript.

The prompt is the project's own words, never a submitter's: the first user message of the
task in the task set the build verified bundles against (``--tasks``, ``--suite-tasks``), and
only when that task set, cut to the cohort's split, hashes to the cohort's task set (a
subset's cohort, or a task set the build was not given, gets none: the view says so). A
private task has no prompt, as it has no failing sentence.

Not in ``board.json`` (whose rows are unchanged): the page carries it as JSON in the view's
own ``data-tasks`` attribute (``index.html.j2``), beside the pairs and the standings it also
computes at build time (docs/METHODOLOGY.md, "One task across the rows").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .entries import EntryInput
from .model import Board, CohortRows

VERDICTS = {"p": "passed", "f": "failed", "e": "errored", "n": "not scored", "-": "not run"}
"""One letter per task: passed (on every repeat), failed, errored (an attempt errored or ran
over budget: it scores 0 and fails the task), not scored (left out of the mean), not run (a
subset's row, or a row that attempted none of it)."""

_ERRORED = re.compile(r"^\d+/\d+ repeats: (errored|over budget)\b")
BRIEF = 240
"""Characters of the prompt the view shows (a word boundary before it, then an ellipsis)."""


def brief(text: str, limit: int = BRIEF) -> str:
    """``text`` on one line, cut at a word boundary before ``limit`` characters."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:.") + "…"


def task_brief(task: Any) -> str | None:
    """A task's first user message in brief, and how many more messages its input has."""
    messages = list(task.input)
    first = next((m for m in messages if m.role == "user" and m.content.strip()), None)
    if first is None:
        return None
    more = len(messages) - 1 - messages.index(first)
    tail = f" (and {more} more message{'s' if more != 1 else ''})" if more > 0 else ""
    return brief(first.content) + tail


def task_prompts(
    sources: Iterable[Path], cohorts: Iterable[CohortRows]
) -> dict[str, dict[str, str]]:
    """Cohort task-set hash -> {task id: its prompt in brief} for each cohort whose task set is
    one of ``sources`` cut to the cohort's split; public tasks only. A source that cannot be
    loaded gives nothing (the board is built without its prompts, never refused for them)."""
    from bench.core.errors import BenchError
    from bench.verify.taskcache import TaskCache

    wanted = {(c.task_set_hash, c.split) for c in cohorts if c.subset is None}
    cache = TaskCache()
    out: dict[str, dict[str, str]] = {}
    for source in dict.fromkeys(sources):
        if len(out) == len({h for h, _ in wanted}):
            break
        try:
            loaded = cache.load(source, None)
        except (BenchError, OSError, ValueError):
            continue
        for digest, split in sorted(wanted, key=lambda w: (w[0], w[1] or "")):
            if digest in out:
                continue
            try:
                chosen = cache.select(loaded, split)
                if cache.content_hash(chosen) != digest:
                    continue
            except (BenchError, OSError, ValueError):
                continue
            out[digest] = {
                t.id: said
                for t in chosen.tasks
                if t.split == "public" and (said := task_brief(t)) is not None
            }
    return out


def _verdict(entry: EntryInput, task: str, failed: Mapping[str, Any], unscored: set[str]) -> str:
    if task in unscored:
        return "n"
    f = failed.get(task)
    if f is not None:
        return "e" if any(_ERRORED.match(line) for line in f.lines) else "f"
    return "p" if task in entry.values else "-"


def cohort_tasks(
    cohort: CohortRows, rows: Sequence[EntryInput], prompts: Mapping[str, str] | None
) -> dict[str, Any]:
    """The view of one cohort: ``rows`` its entries' inputs in its listing order.

    ``{"tasks": [[id, family, prompt or None, private 0/1], ...], "verdicts": ["pf-e...", ...],
    "prompts": bool}``: ``verdicts[k][i]`` is row k's verdict on task i (:data:`VERDICTS`);
    ``prompts``: whether the build had the cohort's task set (else every prompt is None)."""
    family: dict[str, str] = {}
    private: set[str] = set()
    for e in rows:
        family.update({t: f for t, f in e.families.items() if t in e.values})
        for f in e.failed:
            family.setdefault(f.task_id, f.family)
            if f.private:
                private.add(f.task_id)
        for n in e.not_scored:
            if n.family:
                family.setdefault(n.task_id, n.family)
            if n.private:
                private.add(n.task_id)
    ids = sorted(
        {t for e in rows for t in e.values}
        | {f.task_id for e in rows for f in e.failed}
        | {n.task_id for e in rows for n in e.not_scored}
    )
    if cohort.split == "private":
        private = set(ids)
    verdicts = []
    for e in rows:
        failed = {f.task_id: f for f in e.failed}
        unscored = {n.task_id for n in e.not_scored}
        verdicts.append("".join(_verdict(e, t, failed, unscored) for t in ids))
    said = prompts or {}
    return {
        "tasks": [
            [t, family.get(t, ""), None if t in private else said.get(t), 1 if t in private else 0]
            for t in ids
        ],
        "verdicts": verdicts,
        "prompts": prompts is not None,
    }


def board_tasks(
    board: Board, entries: Sequence[EntryInput], prompts: Mapping[str, Mapping[str, str]]
) -> list[dict[str, Any] | None]:
    """Per cohort of ``board`` (in its order), :func:`cohort_tasks` of every row; ``entries``:
    what ``build_rows`` was given; ``prompts``: :func:`task_prompts`. A cohort whose rows are
    not all among ``entries`` gets None (no view, never verdicts of other runs)."""
    by_row = {(e.cohort_key, e.key, e.run_id): e for e in entries}
    out: list[dict[str, Any] | None] = []
    for cohort in board.cohorts:
        found = [by_row.get((cohort.cohort_key, r.key, r.run_id)) for r in cohort.entries]
        rows = [e for e in found if e is not None]
        if len(rows) != len(cohort.entries):
            out.append(None)
            continue
        said = prompts.get(cohort.task_set_hash)
        out.append(cohort_tasks(cohort, rows, None if said is None else dict(said)))
    return out


def prompt_sources(
    tasks: Path | None, results: Path | None, suite_tasks: Sequence[Path]
) -> list[Path]:
    """The task sets the build verifies bundles against, where the prompts come from:
    ``--tasks`` (default: ``tasks/`` beside ``--results``) and each ``--suite-tasks``."""
    found = [tasks] if tasks is not None else [results.parent / "tasks"] if results else []
    return [p for p in [*found, *suite_tasks] if p.exists()]


__all__ = [
    "BRIEF",
    "VERDICTS",
    "board_tasks",
    "brief",
    "cohort_tasks",
    "prompt_sources",
    "task_brief",
    "task_prompts",
]
