"""Stopping a run whose endpoint went away (``engine.EndpointWatch``), and the wall time an
interrupted run reports (docs/DECISIONS.md 52)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from bench.records import AttemptRecord, RunStore
from bench.reports import render_summary, summarize
from bench.runner import NullProgress, RunRequest, engine, resume_run, start_run


def request(mini: Path, **changes: Any) -> RunRequest:
    values: dict[str, Any] = {
        "tasks": mini / "tasks",
        "target_file": mini / "targets" / "good.yaml",
        "runs_dir": mini / "runs",
        "split": "public",
        "repeats": 3,
        "concurrency": 1,
    }
    values.update(changes)
    return RunRequest(**values)


@pytest.fixture
def records(mini: Path) -> list[AttemptRecord]:
    """Nine real records (their content does not matter to the watch, only their identity)."""
    run, _ = start_run(request(mini))
    return sorted(run.attempts(), key=lambda r: (r.task_id, r.repeat))


def test_attempts_that_could_not_connect_wait_for_the_next_and_are_written_if_it_is_answered(
    records: list[AttemptRecord],
) -> None:
    a, b, c, d = records[:4]
    watch = engine.EndpointWatch(3)
    assert watch.see(a, False) == [a]
    assert watch.see(b, True) == []  # held: is the endpoint gone, or was this one unlucky?
    assert watch.see(c, True) == []
    assert watch.see(d, False) == [b, c, d]  # answered: the held ones are errored, as any
    assert not watch.stopped and watch.left == 0


def test_the_limit_in_a_row_stops_and_leaves_them_unwritten(
    records: list[AttemptRecord],
) -> None:
    a, b, c, d, e, f = records[:6]
    watch = engine.EndpointWatch(3)
    assert [watch.see(r, True) for r in (a, b, c)] == [[], [], []]
    assert watch.stopped and watch.left == 3 and watch.release() == []
    # Attempts in flight at the stop finish: answered ones are written, whatever they end
    # with; those that could not connect either are left too.
    assert watch.see(d, False) == [d]
    assert watch.see(e, True) == [] and watch.left == 4
    assert watch.see(f, False) == [f]


def test_held_attempts_at_the_end_of_a_run_are_written(records: list[AttemptRecord]) -> None:
    a, b = records[:2]
    watch = engine.EndpointWatch(5)
    assert watch.see(a, True) == [] and watch.see(b, True) == []
    assert watch.release() == [a, b] and watch.release() == []
    assert not watch.stopped


class StopAfter(NullProgress):
    """Ctrl-C after ``count`` attempts are written."""

    def __init__(self, count: int) -> None:
        self.count = count

    def attempt(self, record: AttemptRecord, done: int, total: int) -> None:
        if done >= self.count:
            raise KeyboardInterrupt


def test_an_interrupted_run_says_how_long_it_ran(mini: Path) -> None:
    with pytest.raises(KeyboardInterrupt):
        start_run(request(mini), StopAfter(4))
    [run] = RunStore(mini / "runs").runs()
    status = run.status()
    assert status.status == "started" and status.attempts_done >= 4
    assert status.elapsed_s > 0
    [line] = [x for x in render_summary(summarize(run)) if "wall" in x]
    assert f"wall {status.elapsed_s:.3f}s" in line
    _, resumed = resume_run(run.run_id, request(mini))
    assert resumed.status == "complete" and resumed.elapsed_s > status.elapsed_s


def test_a_run_that_never_said_its_wall_time_says_it_was_not_measured(mini: Path) -> None:
    run, _ = start_run(request(mini))
    summary = summarize(run)
    never = summary.status.model_copy(update={"status": "started", "elapsed_s": 0.0})
    unsaid = dataclasses.replace(summary, status=never)
    [line] = [x for x in render_summary(unsaid) if "wall" in x]
    assert "wall not measured" in line
    [done] = [x for x in render_summary(summary) if "wall" in x]
    assert "not measured" not in done
