"""Rendering a run in a named format and choosing where the report file goes.

``--out`` naming an existing directory (or ending in ``/``) writes ``<dir>/<run_id>.<ext>``;
any other path is the file itself (parents created). Reports are derived files: writing one
again replaces it, atomically.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Literal

from bench.core.atomic import write_atomic
from bench.records.run import AttemptRecord

from .markdown import markdown_pieces
from .summary import RunSummary

ReportFormat = Literal["terminal", "markdown", "junit", "json"]
FORMATS: tuple[ReportFormat, ...] = ("terminal", "markdown", "junit", "json")
EXTENSIONS: dict[ReportFormat, str] = {
    "terminal": "txt",
    "markdown": "md",
    "junit": "xml",
    "json": "json",
}


def _renderer(fmt: ReportFormat) -> Callable[[RunSummary], str]:
    """The format's renderer, its module imported only when asked for (``bench run`` writes
    Markdown: JUnit's XML and the JSON report's models stay unimported)."""
    if fmt == "terminal":
        from .terminal import render_show

        return render_show
    if fmt == "markdown":
        from .markdown import render_markdown

        return render_markdown
    if fmt == "junit":
        from .junit import render_junit

        return render_junit
    from .jsonreport import render_json

    return render_json


def render_report(summary: RunSummary, fmt: ReportFormat) -> str:
    return _renderer(fmt)(summary)


def report_path(out: Path, run_id: str, fmt: ReportFormat) -> Path:
    if out.is_dir() or str(out).endswith(os.sep):
        return out / f"{run_id}.{EXTENSIONS[fmt]}"
    return out


def write_report(
    summary: RunSummary,
    fmt: ReportFormat,
    out: Path,
    records_of: Callable[[str], Iterable[AttemptRecord]] | None = None,
) -> Path:
    """Write the report. ``records_of`` (markdown only): a failed task's whole records, read
    when its transcripts are written (``markdown_pieces``); the markdown is written piece by
    piece either way."""
    path = report_path(out, summary.config.run_id, fmt)
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "markdown":
        pieces = markdown_pieces(summary, records_of)
        write_atomic(path, (piece.encode("utf-8") for piece in pieces))
    else:
        write_atomic(path, render_report(summary, fmt).encode("utf-8"))
    return path


__all__ = ["EXTENSIONS", "FORMATS", "ReportFormat", "render_report", "report_path", "write_report"]
