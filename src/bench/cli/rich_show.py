"""``bench show`` on a terminal: the same content as the plain text, the failures as a table."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from bench.reports.summary import RunSummary
from bench.reports.terminal import render_summary


def print_show(summary: RunSummary, console: Console | None = None) -> None:
    out = console or Console()
    for line in render_summary(summary):
        out.print(line, markup=False, highlight=False)
    if summary.failures:
        table = Table(title=f"failed tasks ({len(summary.failures)})", show_lines=True)
        table.add_column("task", no_wrap=True)
        table.add_column("family")
        table.add_column("score", justify="right")
        table.add_column("what failed it")
        for failure in summary.failures:
            value = "n/a" if failure.value is None else f"{failure.value:.3f}"
            table.add_row(failure.task_id, failure.family, value, "\n".join(failure.lines))
        out.print(table)
    else:
        out.print("no failed tasks")
    if summary.not_scorable:
        table = Table(title="not scorable, left out of the score")
        table.add_column("task", no_wrap=True)
        table.add_column("why")
        for task_id, why in summary.not_scorable:
            table.add_row(task_id, why)
        out.print(table)
    if summary.status.skipped:
        skipped = ", ".join(f"{k.task_id}#{k.repeat}" for k in summary.status.skipped)
        out.print(f"skipped, left out of the score: {skipped}", markup=False)
