"""The runner: attempts under budgets and a concurrency limit, written once, resumable."""

from .budget import Meter, OverBudget, effective_budget
from .engine import RunPlan, execute, perform_attempt
from .progress import JsonLinesProgress, NullProgress, ProgressSink
from .session import Prepared, RunRequest, prepare, resume_run, start_run

__all__ = [
    "JsonLinesProgress",
    "Meter",
    "NullProgress",
    "OverBudget",
    "Prepared",
    "ProgressSink",
    "RunPlan",
    "RunRequest",
    "effective_budget",
    "execute",
    "perform_attempt",
    "prepare",
    "resume_run",
    "start_run",
]
