"""A summary built from records without their transcripts (``bench run`` keeps them so, see
``bench.runner.progress.KeepRecords``) gets back the whole records of the tasks whose
transcripts a report prints: its failed tasks, read from their attempt files."""

from __future__ import annotations

import dataclasses

from bench.records.store import RunDir

from .summary import RunSummary


def with_failed_transcripts(summary: RunSummary, run: RunDir) -> RunSummary:
    """``summary`` whose records of failed tasks are read again from ``run``, transcript and
    all; every other record is left as it is."""
    failed = {failure.task_id for failure in summary.failures}
    if not failed:
        return summary
    records = tuple(
        run.attempt(record.task_id, record.repeat) if record.task_id in failed else record
        for record in summary.records
    )
    return dataclasses.replace(summary, records=records)


__all__ = ["with_failed_transcripts"]
