"""Whole records again, for a summary built from records without their transcripts (``bench
run`` keeps them so, see ``bench.runner.progress.KeepRecords``): read from the run's attempt
files one task at a time, when a report prints that task's transcripts."""

from __future__ import annotations

from collections.abc import Callable

from bench.records.run import AttemptRecord
from bench.records.store import RunDir

from .summary import RunSummary


def records_from_files(summary: RunSummary, run: RunDir) -> Callable[[str], list[AttemptRecord]]:
    """A task id -> its records in ``summary``, each read again whole from ``run``."""

    repeats: dict[str, list[int]] = {}
    for record in summary.records:  # one pass, not one per failed task
        repeats.setdefault(record.task_id, []).append(record.repeat)

    def records_of(task_id: str) -> list[AttemptRecord]:
        return [run.attempt(task_id, repeat) for repeat in repeats.get(task_id, ())]

    return records_of


__all__ = ["records_from_files"]
