"""Reports: a run's summary and its renderings (terminal today; more formats later)."""

from .summary import Failure, RunSummary, fold_task, summarize
from .terminal import render_attempt, render_compare, render_show, render_summary, render_task

__all__ = [
    "Failure",
    "RunSummary",
    "fold_task",
    "render_attempt",
    "render_compare",
    "render_show",
    "render_summary",
    "render_task",
    "summarize",
]
