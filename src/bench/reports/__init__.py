"""Reports: a run's summary and its renderings (terminal, Markdown, JUnit, JSON), the paired
comparison of two runs, and the SQLite run history with its leaderboard and export."""

from .compare import Comparison, compare_runs
from .jsonreport import RunReport, build_report, render_json
from .junit import render_junit
from .markdown import render_markdown
from .summary import Failure, RunSummary, fold_task, summarize
from .terminal import render_attempt, render_compare, render_show, render_summary, render_task

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
