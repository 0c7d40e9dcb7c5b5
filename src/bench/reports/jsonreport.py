"""A run as versioned JSON (``format_version: 1``); its JSON Schema is ``RunReport``'s."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from bench.core.models import FORMAT_VERSION, Strict
from bench.core.score import Score, TaskScore
from bench.records.run import AttemptKey

from .summary import RunSummary


class ReportFailure(Strict):
    task_id: str
    family: str
    value: float | None
    lines: list[str] = Field(description="the sentences that failed the task, across repeats")


class ReportSafety(Strict):
    task_id: str
    repeat: int
    what: str


class ReportUnscorable(Strict):
    task_id: str
    reason: str


class ReportAxes(Strict):
    score: float | None
    axes: dict[str, float]
    counts: dict[str, int]
    weights: dict[str, float]


class RunReport(Strict):
    """What ``bench report --format json`` writes."""

    format_version: Literal[1] = FORMAT_VERSION
    run_id: str
    entrant: str
    display_name: str
    model: str | None
    status: Literal["started", "complete", "partial"]
    partial_reason: str | None
    created_at: datetime
    config_fingerprint: str
    cohort_key: str
    task_set_path: str
    task_set_hash: str
    suite: str = Field(
        "bench-suite", description="the suite the task set belongs to: 'bfcl-v4 2026.3.23'"
    )
    split: str | None
    subset: str | None = Field(
        None, description="'subset: 43 of 86 public tasks' when the run left out tasks of its split"
    )
    reference: str | None = Field(
        None, description="the no-model baseline's name for a reference run (never ranked)"
    )
    repeats: int
    headline: Score | None = Field(description="mean of family means with its interval")
    pooled: float | None
    family_means: dict[str, float]
    family_sizes: dict[str, int]
    axes: ReportAxes
    outcomes: dict[str, int]
    tasks_scored: int
    tasks_passed: int
    harness_faults: int
    cost_usd: float | None = Field(description="None means not measured, never $0")
    cost: str
    tokens: int | None = Field(
        description="tokens the entrant reported; null when no attempt reported any (never 0)"
    )
    tokens_note: str = Field(
        description="'1234', '1234 (2 of 6 attempts report no tokens)' or 'not measured'"
    )
    p95_latency_s: float | None
    safety: list[ReportSafety]
    tasks: list[TaskScore]
    failures: list[ReportFailure]
    not_scorable: list[ReportUnscorable]
    skipped: list[AttemptKey]
    warnings: list[str]
    languages: dict[str, float] = Field(
        default_factory=dict, description="language → mean task value (plain, per language)"
    )


def build_report(summary: RunSummary) -> RunReport:
    config, head, axes = summary.config, summary.headline, summary.axes
    model = config.target.get("model")
    return RunReport(
        run_id=config.run_id,
        entrant=config.entrant,
        display_name=config.display_name,
        model=None if model is None else str(model),
        status=summary.status.status,
        partial_reason=summary.status.partial_reason,
        created_at=config.created_at,
        config_fingerprint=config.fingerprint(),
        cohort_key=config.cohort_key(),
        task_set_path=config.task_set.path,
        task_set_hash=config.task_set.content_hash,
        suite=config.task_set.suite_label(),
        split=config.task_set.split,
        subset=config.task_set.subset_label(),
        reference=config.reference(),
        repeats=config.repeats,
        headline=None if head is None else head.score,
        pooled=None if head is None else head.pooled,
        family_means={} if head is None else head.family_means,
        family_sizes={} if head is None else head.family_sizes,
        axes=ReportAxes(score=axes.score, axes=axes.axes, counts=axes.counts, weights=axes.weights),
        outcomes=summary.outcomes,
        tasks_scored=summary.scored_tasks,
        tasks_passed=summary.passed_tasks,
        harness_faults=summary.harness_faults,
        cost_usd=summary.cost_usd,
        cost=summary.cost_note,
        tokens=summary.tokens_or_none,
        tokens_note=summary.tokens_note,
        p95_latency_s=summary.p95_latency_s,
        safety=[ReportSafety(task_id=t, repeat=r, what=w) for t, r, w in summary.safety],
        tasks=list(summary.task_scores),
        failures=[
            ReportFailure(task_id=f.task_id, family=f.family, value=f.value, lines=list(f.lines))
            for f in summary.failures
        ],
        not_scorable=[ReportUnscorable(task_id=t, reason=r) for t, r in summary.not_scorable],
        skipped=list(summary.status.skipped),
        warnings=[] if head is None else list(head.warnings),
        languages={lang: mean for lang, (mean, _) in summary.languages.items()},
    )


def render_json(summary: RunSummary) -> str:
    return build_report(summary).model_dump_json(indent=2) + "\n"


__all__ = [
    "ReportAxes",
    "ReportFailure",
    "ReportSafety",
    "ReportUnscorable",
    "RunReport",
    "build_report",
    "render_json",
]
