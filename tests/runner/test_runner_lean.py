"""Issue 19, a run's whole cost: a summary from the records a run kept equals one read back from
its files; the cassette is written line by line to the same bytes; the writer threads' backlog
is bounded; a run without a judge does not import the judge's client."""

from __future__ import annotations

import dataclasses
import itertools
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from bench.records import AttemptRecord
from bench.records.run import without_transcript
from bench.records.store import RunDir, cassette_line
from bench.reports import render_json, render_markdown, render_summary, summarize
from bench.reports.markdown import _trimmed, markdown_pieces
from bench.reports.output import write_report
from bench.reports.transcripts import records_from_files
from bench.runner import NullProgress, RunRequest, engine, start_run
from bench.runner.progress import KeepRecords


def request(mini: Path, **changes: Any) -> RunRequest:
    values: dict[str, Any] = {
        "tasks": mini / "tasks",
        "target_file": mini / "targets" / "good.yaml",
        "runs_dir": mini / "runs",
        "repeats": 3,
        "concurrency": 4,
    }
    values.update(changes)
    return RunRequest(**values)


@pytest.mark.parametrize("target", ["good.yaml", "crashes_on_refunds.yaml", "bad_arguments.yaml"])
def test_a_summary_of_the_kept_records_equals_one_read_from_the_files(
    mini: Path, target: str, tmp_path: Path
) -> None:
    kept = KeepRecords(NullProgress())
    run, status = start_run(request(mini, target_file=mini / "targets" / target), kept)
    assert len(kept.records) == status.attempts_total
    assert all(not r.trace.messages and not r.trace.tool_calls for r in kept.records)
    read = summarize(run)
    held = summarize(run, records=kept.records)
    assert dataclasses.replace(held, records=()) == dataclasses.replace(read, records=())
    assert held.records == tuple(without_transcript(r) for r in read.records)
    if target != "good.yaml":
        assert held.failures  # so the transcripts below are really read back
    streamed = "".join(markdown_pieces(held, records_from_files(held, run)))
    assert streamed == render_markdown(read)
    written = write_report(held, "markdown", tmp_path / "r.md", records_from_files(held, run))
    assert written.read_text(encoding="utf-8") == render_markdown(read)
    assert render_json(held) == render_json(read)
    assert render_summary(held) == render_summary(read)


def test_a_record_without_its_transcript_keeps_what_a_summary_reads(mini: Path) -> None:
    run, _ = start_run(request(mini, repeats=1), NullProgress())
    record = next(r for r in run.attempts() if r.trace.exchanges)
    raw = {"warnings": ["max_tokens clipped"], "choices": ["x" * 1000]}
    first = record.trace.exchanges[0].model_copy(update={"response": {"raw": raw}})
    exchanges = [first, *record.trace.exchanges[1:]]
    record = record.model_copy(
        update={"trace": record.trace.model_copy(update={"exchanges": exchanges})}
    )
    slim = without_transcript(record)
    assert slim.model_dump(exclude={"trace"}) == record.model_dump(exclude={"trace"})
    transcript = {"messages", "tool_calls", "retrieved", "answers", "exchanges"}
    kept = slim.trace.model_dump(exclude=transcript)
    assert kept == record.trace.model_dump(exclude=transcript)
    assert not any(getattr(slim.trace, name) for name in transcript - {"exchanges"})
    assert [e.response for e in slim.trace.exchanges][0] == {"raw": {"warnings": raw["warnings"]}}
    assert all(e.request == {} for e in slim.trace.exchanges)
    assert [(e.index, e.latency_s, e.usage, e.cost_usd) for e in slim.trace.exchanges] == [
        (e.index, e.latency_s, e.usage, e.cost_usd) for e in record.trace.exchanges
    ]
    assert record.trace.messages  # the record itself is not changed


def test_keep_records_passes_every_event_on(mini: Path) -> None:
    events: list[tuple[str, Any]] = []

    class Seen(NullProgress):
        def started(self, run_id: str, total: int, done: int) -> None:
            events.append(("started", total))

        def attempt(self, record: AttemptRecord, done: int, total: int) -> None:
            events.append(("attempt", (record.task_id, record.repeat)))

        def finished(self, status: Any) -> None:
            events.append(("finished", status.status))

    kept = KeepRecords(Seen())
    start_run(request(mini, repeats=2), kept)
    attempts = [value for name, value in events if name == "attempt"]
    assert attempts == [(r.task_id, r.repeat) for r in kept.records]
    assert events[0][0] == "started" and events[-1] == ("finished", "complete")


def test_the_cassette_written_line_by_line_is_the_joined_lines(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "run")
    entries = [
        ("t-1", 0, '{"index":0,"x":"ü"}'),
        ("t-1", 1, '{"index":0}'),
        ("t-2", 0, '{"index":1}'),
    ]
    written = run.write_cassette_lines(iter(entries))
    expected = "\n".join(cassette_line(t, r, line) for t, r, line in entries) + "\n"
    assert written.read_bytes() == expected.encode()
    assert [json.loads(line)["task_id"] for line in written.read_text().splitlines()] == [
        "t-1",
        "t-1",
        "t-2",
    ]
    assert run.write_cassette_lines([]).read_bytes() == b""
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["cassette.jsonl"]


def test_finished_attempts_wait_for_a_writer_within_a_bound(
    mini: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fast entrant outruns the fsyncs: at most ``concurrency + WRITE_BACKLOG`` attempts are
    between their start and their written file at once (every record queued before)."""
    monkeypatch.setattr(engine, "WRITE_BACKLOG", 1)
    live = [0]
    most = [0]
    perform = engine._perform  # perform_attempt, and whether the endpoint was there

    async def counted(plan: Any, task: Any, repeat: int) -> tuple[AttemptRecord, bool]:
        live[0] += 1
        most[0] = max(most[0], live[0])
        return await perform(plan, task, repeat)

    original_write = RunDir.write_attempt

    def slow_write(self: RunDir, record: AttemptRecord, lines: Any = None) -> Path:
        time.sleep(0.01)  # the writer threads fall behind the scripted entrant
        return original_write(self, record, lines)

    def done_writing(self: Any, record: AttemptRecord, done: int, total: int) -> None:
        live[0] -= 1

    monkeypatch.setattr(engine, "_perform", counted)
    monkeypatch.setattr(RunDir, "write_attempt", slow_write)
    monkeypatch.setattr(NullProgress, "attempt", done_writing)
    run, status = start_run(request(mini, repeats=4, concurrency=2), NullProgress())
    assert status.status == "complete"
    assert len(run.attempts()) == status.attempts_total > 3
    # Two talking to the entrant and one waiting for its write, at most; unbounded, every
    # attempt of the run was started before the first file was written.
    assert 2 <= most[0] <= 3


def test_a_run_without_a_judge_does_not_import_the_judge_client(mini: Path) -> None:
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from bench.runner import RunRequest, start_run\n"
        f"mini = Path({str(mini)!r})\n"
        "start_run(RunRequest(tasks=mini / 'tasks', target_file=mini / 'targets' / 'good.yaml',"
        " runs_dir=mini / 'runs'))\n"
        "import json\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('bench.scorers.judge'))))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    loaded = set(json.loads(result.stdout))
    assert "bench.scorers.judge" in loaded  # the scorer registers, and nothing heavier loads
    assert not loaded & {
        "bench.scorers.judge.service",
        "bench.scorers.judge.client",
        "bench.scorers.judge.calibration",
        "bench.scorers.judge.cache",
        # the guard's patterns (about 25 ms to compile) load with the first judged answer
        "bench.scorers.judge.guard",
        "bench.scorers.judge.disguise",
    }


@pytest.mark.parametrize(
    "parts",
    [
        [["a", ""], ["", "b\n\n", ""]],
        [["", ""], [""]],
        [[]],
        [["x\n", "\n"], ["y"], ["", "\n\n"]],
        [["```\nfence\n```", ""], ["## z", ""]],
    ],
)
def test_the_markdown_in_pieces_is_the_joined_text_trimmed(parts: list[list[str]]) -> None:
    lines = [line for part in parts for line in part]
    assert "".join(_trimmed(iter(parts))) == "\n".join(lines).rstrip("\n") + "\n"


def test_equal_parts_of_slim_records_are_kept_once() -> None:
    from bench.core.score import Verdict
    from bench.core.trace import Usage
    from bench.records.run import SharedParts

    shared = SharedParts()
    one = Verdict(type="contains", decided=True, passed=True, credit=1.0, sentence="says refund")
    same = Verdict(type="contains", decided=True, passed=True, credit=1.0, sentence="says refund")
    other = Verdict(type="contains", decided=True, passed=False, credit=0.0, sentence="no refund")
    zero = Verdict(type="contains", decided=True, credit=-0.0, sentence="no refund")
    assert shared.part(one) is one and shared.part(same) is one
    assert shared.part(other) is other
    assert shared.part(zero) is zero  # 0.0 and -0.0 are not merged: floats by their bits
    usage = Usage(prompt_tokens=3, completion_tokens=4)
    assert shared.part(Usage(prompt_tokens=3, completion_tokens=4)) is not usage
    assert shared.part(usage) is not usage  # the first equal one seen is the one kept
    assert shared.part(Usage(prompt_tokens=3, completion_tokens=5)) != usage


def test_keep_records_shares_equal_verdicts_between_repeats(mini: Path) -> None:
    kept = KeepRecords(NullProgress())
    run, _ = start_run(request(mini, repeats=3), kept)
    by_task: dict[str, list[Any]] = {}
    for record in kept.records:
        by_task.setdefault(record.task_id, []).append(record)
    shared = 0
    for records in by_task.values():
        for first, later in itertools.combinations(records, 2):
            for a, b in zip(first.verdicts, later.verdicts, strict=False):
                if a == b:
                    assert a is b
                    shared += 1
    assert shared > 0
    # the identifying strings and the sets of set field names are shared too
    first, later = by_task[next(iter(by_task))][:2]
    assert first.task_id is later.task_id and first.task_fingerprint is later.task_fingerprint
    assert first.model_fields_set is later.model_fields_set
    assert first.trace.model_fields_set is later.trace.model_fields_set
    # and each record still equals its file, without the transcript
    files = {r.key: r for r in run.attempts()}
    assert all(r == without_transcript(files[r.key]) for r in kept.records)
