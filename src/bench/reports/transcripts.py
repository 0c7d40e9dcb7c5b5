"""Whole records again, for a summary built from records without their transcripts (``bench
run`` keeps them so, see ``bench.runner.progress.KeepRecords``): read from the run's attempt
files one task at a time, when a report prints that task's transcripts.

Only the transcript is read from a file: its messages, tool calls, retrieved ids and answers
(``Transcript``, every other field of the file skipped), put back into the record the summary
already holds (``records.run.without_transcript`` dropped just those, and left one exchange per
model call). Validating a whole attempt file, its exchanges' requests and responses included,
cost about four times as much, for a report that prints only how many model calls there were
(docs/PERFORMANCE.md, issue 19)."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bench.core.errors import RunStoreError
from bench.core.trace import Message, ToolCall
from bench.core.validation import describe
from bench.records.run import AttemptRecord, attempt_filename
from bench.records.store import ATTEMPTS, RunDir

from .summary import RunSummary


class _TraceText(BaseModel):
    model_config = ConfigDict(extra="ignore")

    messages: list[Message] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)
    retrieved: list[str] = Field(default_factory=list)
    answers: list[str] = Field(default_factory=list)


class Transcript(BaseModel):
    """The transcript of an attempt file, as ``AttemptRecord`` validates those fields."""

    model_config = ConfigDict(extra="ignore")

    trace: _TraceText


def with_transcript(record: AttemptRecord, run: RunDir) -> AttemptRecord:
    """``record`` (as the summary holds it) with its transcript read from its file in
    ``run``: a shallow copy; ``record`` is not changed."""
    file = run.path / ATTEMPTS / attempt_filename(record.task_id, record.repeat)
    try:
        text = Transcript.model_validate_json(file.read_bytes()).trace
    except FileNotFoundError:
        raise RunStoreError(
            "missing from the run directory", code="RUN_CORRUPT", path=file
        ) from None
    except ValidationError as exc:
        field, message = describe(exc)
        raise RunStoreError(message, code="RUN_CORRUPT", path=file, field=field) from None
    parts = {
        "messages": text.messages,
        "tool_calls": text.tool_calls,
        "retrieved": text.retrieved,
        "answers": text.answers,
    }
    return record.model_copy(update={"trace": record.trace.model_copy(update=parts)})


def records_from_files(summary: RunSummary, run: RunDir) -> Callable[[str], list[AttemptRecord]]:
    """A task id -> its records in ``summary``, each with its transcript read again from
    ``run`` (``with_transcript``)."""

    kept: dict[str, list[AttemptRecord]] = {}
    for record in summary.records:  # one pass, not one per failed task
        kept.setdefault(record.task_id, []).append(record)

    def records_of(task_id: str) -> list[AttemptRecord]:
        return [with_transcript(record, run) for record in kept.get(task_id, ())]

    return records_of


__all__ = ["Transcript", "records_from_files", "with_transcript"]
