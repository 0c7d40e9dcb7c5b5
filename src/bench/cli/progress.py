"""A progress bar on a terminal (rich), written to stderr so stdout stays clean."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Column

from bench.records.run import AttemptRecord, RunStatus


def _fixed() -> Column:
    return Column(no_wrap=True)


class BarProgress:
    def __init__(self) -> None:
        # On an 80-column terminal the row is wider than the screen: the last attempt's name
        # is what gets cut ("…"), never the count or the clock ("28/1…" and "0:00:…" were).
        self._progress = Progress(
            TextColumn("{task.description}", table_column=_fixed()),
            BarColumn(bar_width=20, table_column=_fixed()),
            MofNCompleteColumn(table_column=_fixed()),
            TextColumn(
                "{task.fields[last]}",
                table_column=Column(no_wrap=True, overflow="ellipsis", ratio=1),
            ),
            TimeElapsedColumn(table_column=_fixed()),
            console=Console(stderr=True),
            transient=True,
            expand=True,
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
