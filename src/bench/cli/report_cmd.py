"""``bench report``: one run as terminal text, Markdown, JUnit XML, versioned JSON or HTML."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, cast

import click

from .common import CONTEXT, runs_dir_option

if TYPE_CHECKING:
    from bench.records.store import RunDir


@click.command(context_settings=CONTEXT)
@click.argument("run_ref", metavar="RUN", default="latest")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["terminal", "markdown", "junit", "json", "html"]),
    default="terminal",
    show_default=True,
    help="Report format.",
)
@click.option(
    "--out",
    "out_text",
    type=click.Path(),
    help="Write here instead of stdout; a directory (or a path ending in /) gets "
    "<run_id>.<md|xml|json|txt|html>.",
)
@click.option(
    "--templates",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="html: templates instead of the board's packaged ones (the report is a board of one run).",
)
@click.option(
    "--methodology",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="html: the methodology section, instead of the packaged docs/METHODOLOGY.md.",
)
@runs_dir_option
def report(
    run_ref: str,
    fmt: str,
    out_text: str | None,
    templates: Path | None,
    methodology: Path | None,
    runs_dir: Path,
) -> None:
    """Write a report of RUN (an id, a unique prefix, a path, or 'latest').

    html is one self-contained page, built with the board's templates and escaping rules.
    """
    from bench.records.store import RunStore
    from bench.reports import summarize
    from bench.reports.output import ReportFormat, render_report, write_report

    run = RunStore(runs_dir).resolve(run_ref)
    out = _out_path(out_text)
    if fmt == "html":
        click.echo(f"wrote {_html(run, out, templates, methodology)}")
        return
    summary = summarize(run)
    chosen = cast(ReportFormat, fmt)
    if out is None:
        click.echo(render_report(summary, chosen), nl=False)
        return
    click.echo(f"wrote {write_report(summary, chosen, out)}")


def _out_path(text: str | None) -> Path | None:
    """``--out`` as a path. ``Path`` drops a trailing slash, so a path written as a directory
    (``build/``, as the README does) is made here, and the report goes inside it as
    ``<run_id>.<ext>`` instead of becoming a file called ``build``."""
    if text is None:
        return None
    out = Path(text)
    if text.endswith(("/", os.sep)):
        if out.exists() and not out.is_dir():
            from bench.core.errors import UsageError

            raise UsageError("--out names a directory, and a file is there", path=text)
        out.mkdir(parents=True, exist_ok=True)
    return out


def _html(run: RunDir, out: Path | None, templates: Path | None, methodology: Path | None) -> Path:
    import tempfile

    from bench.board import BuildOptions, build
    from bench.board.load import RunLoader
    from bench.core.atomic import write_atomic

    if out is None:
        out = Path(f"{run.run_id}.html")
    elif out.is_dir():
        out = out / f"{run.run_id}.html"
    out.parent.mkdir(parents=True, exist_ok=True)
    try:  # the page is built beside ``out``; a refusal there is said of ``out``
        scratch_dir = tempfile.TemporaryDirectory(dir=out.parent, prefix=".report-")
    except OSError as exc:
        exc.filename = str(out)
        raise
    with scratch_dir as scratch:
        result = build(
            BuildOptions(
                runs=None,
                results=None,
                out=Path(scratch) / "site",
                templates=templates,
                methodology=methodology,
                extra_loaders=(RunLoader(run),),
            )
        )
        # atomically: a copy that a full disk stopped left half a page where the old was
        write_atomic(out, result.index.read_bytes())
    return out
