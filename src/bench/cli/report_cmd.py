"""``bench report``: one run as terminal text, Markdown, JUnit XML or versioned JSON."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import click

from .common import CONTEXT, runs_dir_option


@click.command(context_settings=CONTEXT)
@click.argument("run_ref", metavar="RUN", default="latest")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["terminal", "markdown", "junit", "json"]),
    default="terminal",
    show_default=True,
    help="Report format.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    help="Write here instead of stdout; a directory gets <run_id>.<md|xml|json|txt>.",
)
@runs_dir_option
def report(run_ref: str, fmt: str, out: Path | None, runs_dir: Path) -> None:
    """Write a report of RUN (an id, a unique prefix, a path, or 'latest')."""
    from bench.records.store import RunStore
    from bench.reports import summarize
    from bench.reports.output import ReportFormat, render_report, write_report

    summary = summarize(RunStore(runs_dir).resolve(run_ref))
    chosen = cast(ReportFormat, fmt)
    if out is None:
        click.echo(render_report(summary, chosen), nl=False)
        return
    click.echo(f"wrote {write_report(summary, chosen, out)}")
