"""A progress bar on a terminal (rich), written to stderr so stdout stays clean."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from bench.records.run import AttemptRecord, RunStatus


class BarProgress:
    def __init__(self) -> None:
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[last]}"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self._task = self._progress.add_task("run", total=None, last="")

    def __enter__(self) -> BarProgress:
        self._progress.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._progress.stop()

    def started(self, run_id: str, total: int, done: int) -> None:
        self._progress.update(self._task, description=run_id, total=total, completed=done)

    def attempt(self, record: AttemptRecord, done: int, total: int) -> None:
        last = f"{record.task_id}#{record.repeat} {record.outcome}"
        self._progress.update(self._task, completed=done, last=last)

    def skipped(self, task_id: str, repeat: int, reason: str) -> None:
        self._progress.update(self._task, last=f"{task_id}#{repeat} skipped")

    def finished(self, status: RunStatus) -> None:
        return None
