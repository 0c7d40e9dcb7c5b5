"""``bench report``: one run as terminal text, Markdown, JUnit XML, versioned JSON or HTML."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
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
    help="Write here instead of stdout ('-': stdout); a directory (or a path ending in /) gets "
    "<run_id>.<md|xml|json|txt|html>. A report already there is replaced whole (atomically: "
    "an interrupted write leaves the old one); a path inside the run's own directory is refused.",
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
    from bench.reports.output import ReportFormat, render_report, report_path, write_report

    run = RunStore(runs_dir).resolve(run_ref)
    if out_text == "-":  # standard output, as for any Unix tool (it wrote a file named '-')
        if fmt == "html":
            click.echo(_page(run, templates, methodology), nl=False)
            return
        out_text = None
    out = _out_path(out_text)
    if fmt == "html":
        click.echo(f"wrote {_html(run, out, templates, methodology)}")
        return
    chosen = cast(ReportFormat, fmt)
    if out is not None:
        _refuse_into_run(run, report_path(out, run.run_id, chosen))
    summary = summarize(run)
    if out is None:
        click.echo(render_report(summary, chosen), nl=False)
        return
    click.echo(f"wrote {write_report(summary, chosen, out)}")


def _refuse_into_run(run: RunDir, path: Path) -> None:
    """A report is never written over the run it reports (``--out runs/<id>/status.json``
    replaced the run's status with a report: the run was lost); anything else is replaced."""
    from bench.core.errors import UsageError

    try:
        inside = path.resolve().is_relative_to(run.path.resolve())
    except (OSError, RuntimeError):  # a symlink loop: the write names it
        return
    if inside:
        raise UsageError(
            "is inside the run's own directory, whose files a report must not replace: "
            "give --out a path outside it",
            code="REPORT_OUT",
            path=path,
            field="--out",
        )


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
    from bench.core.atomic import write_atomic

    if out is None:
        out = Path(f"{run.run_id}.html")
    elif out.is_dir():
        out = out / f"{run.run_id}.html"
    _refuse_into_run(run, out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with _built(run, out.parent, str(out), templates, methodology) as page:
        # atomically: a copy that a full disk stopped left half a page where the old was
        write_atomic(out, page)
    return out


def _page(run: RunDir, templates: Path | None, methodology: Path | None) -> str:
    """The page for ``--out -`` (built in the system's temp directory)."""
    with _built(run, None, "the report", templates, methodology) as page:
        return page.decode("utf-8")


@contextlib.contextmanager
def _built(
    run: RunDir, parent: Path | None, named: str, templates: Path | None, methodology: Path | None
) -> Iterator[bytes]:
    """The page, built in a scratch folder in ``parent`` that is kept until the page is
    written; what the file system refuses there is said of ``named``, the report the user
    asked for (not ``.report-…/site``)."""
    import tempfile

    from bench.board import BuildOptions, build
    from bench.board.load import RunLoader

    try:
        scratch_dir = tempfile.TemporaryDirectory(dir=parent, prefix=".report-")
    except OSError as exc:
        exc.filename, exc.filename2 = named, None
        raise
    with scratch_dir as scratch:
        try:
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
            page = result.index.read_bytes()
        except OSError as exc:
            inside = os.path.abspath(str(exc.filename or scratch))
            if os.path.commonpath([inside, os.path.abspath(scratch)]) == os.path.abspath(scratch):
                exc.filename, exc.filename2 = named, None
            raise
        yield page
