"""Reports: a run's summary and its renderings (terminal, Markdown, JUnit, JSON), the paired
comparison of two runs, and the SQLite run history with its leaderboard and export.

The names below are imported from their modules when first used (PEP 562): ``bench run``
needs the summary and the terminal text, not the comparison (numpy's paired tests) or JUnit's
XML, and importing a package runs its ``__init__`` before any submodule."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bench.core.lazy import lazy_exports

if TYPE_CHECKING:
    from .compare import Comparison, compare_runs
    from .jsonreport import RunReport, build_report, render_json
    from .junit import render_junit
    from .markdown import render_markdown
    from .summary import Failure, RunSummary, fold_task, summarize
    from .terminal import (
        render_attempt,
        render_compare,
        render_show,
        render_summary,
        render_task,
    )

_WHERE = {
    "Comparison": "compare",
    "compare_runs": "compare",
    "RunReport": "jsonreport",
    "build_report": "jsonreport",
    "render_json": "jsonreport",
    "render_junit": "junit",
    "render_markdown": "markdown",
    "Failure": "summary",
    "RunSummary": "summary",
    "fold_task": "summary",
    "summarize": "summary",
    "render_attempt": "terminal",
    "render_compare": "terminal",
    "render_show": "terminal",
    "render_summary": "terminal",
    "render_task": "terminal",
}


__getattr__ = lazy_exports(__name__, _WHERE, globals())


__all__ = [
    "Comparison",
    "Failure",
    "RunReport",
    "RunSummary",
    "build_report",
    "compare_runs",
    "fold_task",
    "render_attempt",
    "render_compare",
    "render_json",
    "render_junit",
    "render_markdown",
    "render_show",
    "render_summary",
    "render_task",
    "summarize",
]
