"""How a run writes: records equal run to run, the cassette written at the end equal to one rebuilt
from the attempt files, status.json throttled but current at the end and after a failure."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.core.canonical import canonical_json
from bench.core.errors import RunStoreError
from bench.records import AttemptRecord, RunStore
from bench.records.store import RunDir
from bench.runner import NullProgress, RunRequest, engine, resume_run, start_run


def request(mini: Path, **changes: Any) -> RunRequest:
    values: dict[str, Any] = {
        "tasks": mini / "tasks",
        "target_file": mini / "targets" / "good.yaml",
        "runs_dir": mini / "runs",
        "split": "public",
        "repeats": 3,
        "concurrency": 4,
    }
    values.update(changes)
    return RunRequest(**values)


def comparable(record: AttemptRecord) -> dict[str, Any]:
    """A record without what differs from run to run: ids and timings."""
    data = record.model_dump(mode="json")
    for name in ("run_id", "started_at", "finished_at"):
        data.pop(name)
    data["trace"].pop("latency_s")
    for exchange in data["trace"]["exchanges"]:
        exchange.pop("latency_s")
    return data


def rebuilt_cassette(run: RunDir) -> list[dict[str, Any]]:
    """The cassette's entries as the engine wrote them before it kept exchanges in memory:
    each exchange of each attempt file, in (task, repeat) order, with its attempt key."""
    records = sorted(run.attempts(), key=lambda r: (r.task_id, r.repeat))
    return [
        json.loads(
            canonical_json({"task_id": r.task_id, "repeat": r.repeat, **e.model_dump(mode="json")})
        )
        for r in records
        for e in r.trace.exchanges
    ]


def entries(cassette: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in cassette.splitlines()]


def test_two_runs_write_equal_records_but_for_ids_and_timings(mini: Path) -> None:
    first, a = start_run(request(mini))
    second, b = start_run(request(mini))
    assert a.status == b.status == "complete"
    assert a.attempts_done == b.attempts_done == 9
    left = [comparable(r) for r in first.attempts()]
    right = [comparable(r) for r in second.attempts()]
    assert len(left) == 9
    assert left == right


def test_every_attempt_file_reads_back_as_written(mini: Path) -> None:
    run, _ = start_run(request(mini))
    for file in sorted((run.path / "attempts").glob("*.json")):
        data = file.read_bytes()
        record = AttemptRecord.model_validate_json(data)
        legacy = json.dumps(record.model_dump(mode="json"), indent=2, ensure_ascii=False)
        assert json.loads(data) == json.loads(legacy)
    assert not list((run.path / "attempts").glob(".tmp-*"))  # no temp file left behind


def test_the_cassette_written_at_the_end_is_the_one_the_files_give(mini: Path) -> None:
    run, _ = start_run(request(mini))
    cassette = (run.path / "cassette.jsonl").read_bytes()
    assert cassette.count(b"\n") == sum(len(r.trace.exchanges) for r in run.attempts()) > 0
    assert entries(cassette) == rebuilt_cassette(run)
    # the lines waited in an anonymous temporary file in the run directory: nothing is left
    assert sorted(p.name for p in run.path.iterdir()) == [
        "attempts",
        "cassette.jsonl",
        "config.json",
        "status.json",
    ]


def test_a_resumed_run_writes_the_cassette_of_both_sessions(mini: Path) -> None:
    run, _ = start_run(request(mini))
    whole = (run.path / "cassette.jsonl").read_bytes()
    for name in ("qa-0001--r2.json", "tool-0001--r0.json"):
        (run.path / "attempts" / name).unlink()
    # as a kill with those two in flight leaves it: its status never counted their files
    run.write_status(
        run.status().model_copy(update={"status": "started", "attempts_done": len(run.attempts())})
    )
    _, status = resume_run(run.run_id, request(mini))
    assert status.status == "complete" and status.attempts_done == 9
    cassette = (run.path / "cassette.jsonl").read_bytes()
    assert entries(cassette) == rebuilt_cassette(run)
    assert len(cassette.splitlines()) == len(whole.splitlines())


def written_statuses(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    seen: list[tuple[str, int]] = []
    original = RunDir.write_status

    def spy(self: RunDir, status: Any) -> None:
        seen.append((status.status, status.attempts_done))
        original(self, status)

    monkeypatch.setattr(RunDir, "write_status", spy)
    return seen


def test_status_follows_the_attempts_at_most_every_interval(
    mini: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = written_statuses(monkeypatch)
    monkeypatch.setattr(engine, "STATUS_EVERY_S", 3600.0)
    start_run(request(mini))
    assert seen == [("started", 0), ("complete", 9)]  # created, then the end


def test_with_no_interval_status_follows_the_attempts_in_order(
    mini: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = written_statuses(monkeypatch)
    monkeypatch.setattr(engine, "STATUS_EVERY_S", 0.0)
    run, _ = start_run(request(mini, concurrency=1))
    # An attempt's file is written while the next attempt runs, so a status write still in
    # progress lets a count pass unwritten; an older count never follows a newer one.
    assert seen[0] == ("started", 0) and seen[-1] == ("complete", 9)
    middle = [count for state, count in seen[1:-1]]
    assert middle and all(state == "started" for state, _ in seen[1:-1])
    assert middle == sorted(set(middle)) and middle[0] >= 1 and middle[-1] <= 9
    assert run.status().attempts_done == 9


def test_a_failed_write_stops_the_run_with_a_status_that_counts_what_was_written(
    mini: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine, "STATUS_EVERY_S", 3600.0)
    original = RunDir.write_attempt
    calls: list[str] = []

    def failing(self: RunDir, record: AttemptRecord, lines: list[str] | None = None) -> Path:
        calls.append(record.task_id)
        if len(calls) == 3:
            raise RunStoreError("disk full", code="RUN_CORRUPT", path=self.path)
        return original(self, record, lines)

    monkeypatch.setattr(RunDir, "write_attempt", failing)
    with pytest.raises(RunStoreError, match="disk full"):
        start_run(request(mini, concurrency=1))
    [run] = RunStore(mini / "runs").runs()
    status = run.status()
    assert status.status == "started"
    # The two before it, and perhaps the next attempt's file, which was already being written
    # when the failure stopped the run (the slot is free once an attempt has run): the status
    # counts exactly the files there are, and the failed one is not among them.
    written = {(r.task_id, r.repeat) for r in run.attempts()}
    assert status.attempts_done == len(written) and 2 <= len(written) < len(calls)
    assert len(written) == len(calls) - 1  # every attempt that reached a write but the failed one

    monkeypatch.setattr(RunDir, "write_attempt", original)
    _, resumed = resume_run(run.run_id, request(mini, concurrency=1))
    assert resumed.status == "complete" and resumed.attempts_done == 9
    assert entries((run.path / "cassette.jsonl").read_bytes()) == rebuilt_cassette(run)


def test_progress_counts_each_attempt_once_while_status_writes_overlap(
    mini: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine, "STATUS_EVERY_S", 0.0)
    counts: list[int] = []

    class Counting(NullProgress):
        def attempt(self, record: AttemptRecord, done: int, total: int) -> None:
            counts.append(done)

    start_run(request(mini), Counting())
    assert counts == list(range(1, 10))
