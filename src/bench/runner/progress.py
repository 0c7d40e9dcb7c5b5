"""Progress events. The runner reports to a sink; the CLI picks a bar, JSON Lines or nothing."""

from __future__ import annotations

import json
from typing import Protocol, TextIO

from bench.records.run import AttemptRecord, RunStatus, SharedParts, without_transcript


class ProgressSink(Protocol):
    def started(self, run_id: str, total: int, done: int) -> None: ...

    def attempt(self, record: AttemptRecord, done: int, total: int) -> None: ...

    def skipped(self, task_id: str, repeat: int, reason: str) -> None: ...

    def finished(self, status: RunStatus) -> None: ...


class NullProgress:
    def started(self, run_id: str, total: int, done: int) -> None:
        return None

    def attempt(self, record: AttemptRecord, done: int, total: int) -> None:
        return None

    def skipped(self, task_id: str, repeat: int, reason: str) -> None:
        return None

    def finished(self, status: RunStatus) -> None:
        return None


class JsonLinesProgress:
    """One JSON object per line, flushed at once (``bench run --progress json``)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.run_id = ""

    def _emit(self, event: str, **fields: object) -> None:
        payload = {"event": event, "run_id": self.run_id, **fields}
        self.stream.write(json.dumps(payload, ensure_ascii=False, sort_keys=True) + "\n")
        self.stream.flush()

    def started(self, run_id: str, total: int, done: int) -> None:
        self.run_id = run_id
        self._emit("run_started", total=total, done=done)

    def attempt(self, record: AttemptRecord, done: int, total: int) -> None:
        self._emit(
            "attempt_finished",
            task_id=record.task_id,
            repeat=record.repeat,
            outcome=record.outcome,
            value=record.value,
            passed=record.passed,
            done=done,
            total=total,
        )

    def skipped(self, task_id: str, repeat: int, reason: str) -> None:
        self._emit("attempt_skipped", task_id=task_id, repeat=repeat, reason=reason)

    def finished(self, status: RunStatus) -> None:
        self._emit(
            "run_finished",
            status=status.status,
            done=status.attempts_done,
            total=status.attempts_total,
            skipped=len(status.skipped),
        )


class KeepRecords:
    """Passes every event on to ``sink`` and keeps each attempt record, once its file is
    written, without its transcript (``without_transcript``): ``bench run`` builds its summary
    from them instead of reading every attempt file back (``summarize(run, records=...)``), and
    reads back only the files of the tasks whose transcripts its report prints. A whole record
    held for every attempt was most of a long run's memory (docs/PERFORMANCE.md, issue 19);
    equal verdicts and usages are kept once (``SharedParts``). Only the attempts of this
    session: a resumed run's earlier ones are on disk only."""

    def __init__(self, sink: ProgressSink) -> None:
        self.sink = sink
        self.records: list[AttemptRecord] = []
        self._shared = SharedParts()

    def started(self, run_id: str, total: int, done: int) -> None:
        self.sink.started(run_id, total, done)

    def attempt(self, record: AttemptRecord, done: int, total: int) -> None:
        self.sink.attempt(record, done, total)
        self.records.append(without_transcript(record, self._shared))

    def skipped(self, task_id: str, repeat: int, reason: str) -> None:
        self.sink.skipped(task_id, repeat, reason)

    def finished(self, status: RunStatus) -> None:
        self.sink.finished(status)


__all__ = ["JsonLinesProgress", "KeepRecords", "NullProgress", "ProgressSink"]
