"""A run's event loop is uvloop's where it is installed, the standard library's on request;
the records are the same on either."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import uvloop

from bench.records.run import AttemptRecord
from bench.runner import RunRequest, start_run
from bench.runner.progress import NullProgress
from bench.runner.session import EVENT_LOOP_ENV, loop_factory

from .test_runner_writes import comparable


class LoopWatch(NullProgress):
    def __init__(self) -> None:
        self.loops: set[type] = set()

    def attempt(self, record: AttemptRecord, done: int, total: int) -> None:
        self.loops.add(type(asyncio.get_running_loop()))


def run(mini: Path, runs: str) -> tuple[set[type], list[dict[str, object]]]:
    watch = LoopWatch()
    request = RunRequest(
        tasks=mini / "tasks",
        target_file=mini / "targets" / "good.yaml",
        runs_dir=mini / runs,
        split="public",
        repeats=2,
        concurrency=3,
    )
    made, _ = start_run(request, watch)
    records = sorted(made.attempts(), key=lambda r: (r.task_id, r.repeat))
    return watch.loops, [comparable(record) for record in records]


def test_the_factory_is_uvloop_unless_asked_for_asyncio(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(EVENT_LOOP_ENV, raising=False)
    assert loop_factory() is uvloop.new_event_loop
    monkeypatch.setenv(EVENT_LOOP_ENV, " AsyncIO ")
    assert loop_factory() is None


def test_runs_on_either_loop_write_the_same_records(
    mini: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(EVENT_LOOP_ENV, raising=False)
    fast_loops, fast = run(mini, "runs-uvloop")
    monkeypatch.setenv(EVENT_LOOP_ENV, "asyncio")
    std_loops, std = run(mini, "runs-asyncio")
    assert fast_loops == {uvloop.Loop}
    assert len(std_loops) == 1 and not issubclass(next(iter(std_loops)), uvloop.Loop)
    assert fast == std and len(fast) > 0
