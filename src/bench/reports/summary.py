"""From a run's attempt records to the numbers a person reads: task scores, the headline with
its interval, the errored column, what could not be scored, cost and latency.

Rules (docs/SCORING.md):
- an attempt that *errored* or went *over budget* counts as 0 and is also counted on its own;
- *skipped*, *not scorable* and *harness fault* attempts leave the denominator and are named;
- a ``REQUEST_REFUSED`` harness fault whose request has the shape of one the endpoint answered
  in the run is the entrant's refusal, counted as *errored* (``bench.core.refused``);
- a task's value is the mean over its counted repeats; a task with none is not scorable;
- the headline is the mean of family means with a stratified bootstrap interval over tasks;
  the pooled mean over tasks is printed beside it;
- cost is the sum of attempt costs, or *not measured* if any counted attempt has no cost.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bench.core.pairs import orphaned, pair_scores
from bench.core.refused import chosen_refusals
from bench.core.score import TaskScore
from bench.records.run import AttemptRecord, RunConfig, RunStatus
from bench.records.store import RunDir

if TYPE_CHECKING:
    from bench.stats import AxisView, HeadlineResult

COUNTED = frozenset({"scored", "errored", "over_budget"})


@dataclass(frozen=True)
class Failure:
    """One task that did not pass, with the sentences that failed it across repeats."""

    task_id: str
    family: str
    value: float | None
    lines: tuple[str, ...]


@dataclass(frozen=True)
class RunSummary:
    config: RunConfig
    status: RunStatus
    records: tuple[AttemptRecord, ...]
    task_scores: tuple[TaskScore, ...]
    headline: HeadlineResult | None  # bench.stats is imported lazily: numpy stays off --help
    axes: AxisView
    outcomes: dict[str, int]
    not_scorable: tuple[tuple[str, str], ...]
    failures: tuple[Failure, ...]
    cost_usd: float | None
    cost_note: str
    tokens: int
    p95_latency_s: float | None
    harness_faults: int
    safety: tuple[tuple[str, int, str], ...]
    """(task id, repeat, what happened) for every safety violation."""
    languages: dict[str, tuple[float, int]]
    """Language → (mean task value, tasks), over scorable tasks; per-language, not stratified."""
    tokens_measured: int = -1
    """Attempts (of ``records``) whose entrant reported tokens; -1: not counted (all)."""
    endpoint_warnings: dict[str, int] = field(default_factory=dict)
    """Warning → model calls it was raised on (an exchange's ``raw.warnings``, e.g. an endpoint
    that did not enforce ``tool_choice: required``); model calls in all, under ``"calls"``."""

    @property
    def tokens_note(self) -> str:
        """``1234``, ``1234 (2 of 6 attempts report no tokens)``, or ``not measured`` when no
        attempt reported any: never a 0 that was not measured."""
        if self.tokens_measured < 0 or self.tokens_measured == len(self.records):
            return str(self.tokens)
        if self.tokens_measured == 0:
            return "not measured"
        missing = len(self.records) - self.tokens_measured
        return f"{self.tokens} ({missing} of {len(self.records)} attempts report no tokens)"

    @property
    def tokens_or_none(self) -> int | None:
        """The tokens, or None when attempts ran and none reported any (``tokens_note`` says
        "not measured"): a 0 that was not measured is never published as a number."""
        return None if self.tokens_measured == 0 and self.records else self.tokens

    @property
    def passed_tasks(self) -> int:
        return sum(1 for score in self.task_scores if score.value is not None and score.passed)

    @property
    def scored_tasks(self) -> int:
        return sum(1 for score in self.task_scores if score.value is not None)


def fold_task(task_id: str, family: str, records: list[AttemptRecord]) -> TaskScore:
    from bench.stats import (
        expected_max_of_k,
        expected_min_of_k,
        pairwise_disagreement,
        pass_at_k,
        pass_hat_k,
    )

    counted = [r for r in records if r.outcome in COUNTED]
    values = [r.value if r.value is not None else 0.0 for r in counted]
    passes = [bool(r.passed) for r in counted]
    n, c = len(passes), sum(passes)
    ks = range(1, n + 1)
    return TaskScore(
        pass_at_k={str(k): pass_at_k(n, c, k) for k in ks},
        pass_hat_k={str(k): pass_hat_k(n, c, k) for k in ks},
        best_of_k={str(k): expected_max_of_k(values, k) for k in ks},
        worst_of_k={str(k): expected_min_of_k(values, k) for k in ks},
        safety_violations=sum(1 for r in records if r.safety_violations),
        judge_trusted=not any(v.untrusted_judge for r in records for v in r.verdicts),
        task_id=task_id,
        family=family,
        value=sum(values) / len(values) if values else None,
        repeats=len(counted),
        passes=sum(passes),
        flakiness=pairwise_disagreement(passes) if len(passes) >= 2 else None,
        outcomes=dict(Counter(r.outcome for r in records)),
    )


def _failure_lines(records: list[AttemptRecord]) -> tuple[str, ...]:
    total = len(records)
    counts: Counter[str] = Counter()
    order: list[str] = []
    for record in records:
        lines: list[str] = []
        if record.outcome in ("errored", "over_budget", "harness_fault", "not_scorable"):
            said = record.outcome.replace("_", " ")
            reason = record.reason
            # An over-budget reason already says so ("over budget: no final answer …").
            if reason is not None and reason.startswith(f"{said}:"):
                lines.append(reason)
            else:
                lines.append(f"{said}: {reason}")
        lines.extend(v.sentence for v in record.verdicts if v.decided and not v.passed)
        for line in dict.fromkeys(lines):
            if line not in counts:
                order.append(line)
            counts[line] += 1
    return tuple(f"{counts[line]}/{total} repeats: {line}" for line in order)


def _axis_credit(record: AttemptRecord, axis: str) -> float | None:
    if record.outcome in ("errored", "over_budget"):
        return 0.0
    chosen = [v for v in record.verdicts if v.decided and v.axis == axis]
    if not chosen:
        return None
    weight = math.fsum(v.weight for v in chosen)
    return math.fsum(v.weight * v.credit for v in chosen) / weight


def axis_values(by_task: dict[str, list[AttemptRecord]]) -> dict[str, list[float]]:
    """Axis → one value per task (its repeats averaged), for ``bench.stats.axis_view``."""
    out: dict[str, list[float]] = defaultdict(list)
    for records in by_task.values():
        counted = [r for r in records if r.outcome in COUNTED]
        for axis in sorted({a for r in counted for a in r.axes}):
            credits = [c for c in (_axis_credit(r, axis) for r in counted) if c is not None]
            if credits:
                out[axis].append(math.fsum(credits) / len(credits))
    return dict(out)


def p95(values: list[float]) -> float | None:
    """The 95th percentile by the inverted CDF (the smallest value with at least 95 % of the
    values at or below it), computed as numpy's ``percentile(..., method="inverted_cdf")``
    computes it, float arithmetic included, without numpy."""
    if not values:
        return None
    ordered = sorted(values)
    index = len(ordered) * 0.95 - 1
    below = math.floor(index)
    position = below if index - below == 0 else below + 1
    return float(ordered[max(0, position)])


def summarize(
    run: RunDir, seed: int | None = None, records: Iterable[AttemptRecord] | None = None
) -> RunSummary:
    """The run's summary. ``records``: every attempt record of the run, when the caller already
    holds them (``bench run`` keeps each one its engine wrote, ``KeepRecords``, without its
    transcript: nothing here reads one), so the attempt files are not read and validated
    again; the run's config and status are always read."""
    config, status = run.config(), run.status()
    found = run.attempts() if records is None else records
    return _summary(config, status, tuple(sorted(found, key=lambda r: (r.task_id, r.repeat))), seed)


def as_counted(config: RunConfig, records: tuple[AttemptRecord, ...]) -> tuple[AttemptRecord, ...]:
    """``records`` as the score counts them: each ``REQUEST_REFUSED`` harness fault that was
    the entrant's choice (``bench.core.refused.chosen_refusals``) read as the *errored*
    attempt it is, with the reason; the attempt files are untouched."""
    chosen = chosen_refusals(config.target_kind, records)
    if not chosen:
        return records
    return tuple(
        record.model_copy(
            update={
                "outcome": "errored",
                "value": 0.0,
                "passed": False,
                "fault": None,
                "reason": f"{chosen[record.key]}: {record.reason}",
            }
        )
        if record.key in chosen
        else record
        for record in records
    )


def _summary(
    config: RunConfig, status: RunStatus, records: tuple[AttemptRecord, ...], seed: int | None
) -> RunSummary:
    records = as_counted(config, records)
    by_task: dict[str, list[AttemptRecord]] = defaultdict(list)
    for record in records:
        by_task[record.task_id].append(record)
    order = [tid for tid in config.task_set.task_ids if tid in by_task]
    scores = tuple(fold_task(tid, by_task[tid][0].family, by_task[tid]) for tid in order)
    alone = orphaned(scores)  # a half whose other half could not be scored is not scored
    scores = pair_scores(scores)  # refuse/help pairs are scored as pairs (docs/SCORING.md)
    headline = None
    scorable = [s for s in scores if s.value is not None]
    if scorable:
        from bench.stats import stratified_headline

        headline = stratified_headline(
            [s.value for s in scorable if s.value is not None],
            [s.family for s in scorable],
            seed=config.seed if seed is None else seed,
            label=f"{config.display_name} headline",
        )
    not_scorable = tuple(
        (
            s.task_id,
            f"its pair's other half, {alone[s.task_id]}, could not be scored"
            if s.task_id in alone
            else _why_unscorable(by_task[s.task_id]),
        )
        for s in scores
        if s.value is None
    )
    failures = tuple(
        Failure(s.task_id, s.family, s.value, _failure_lines(by_task[s.task_id]))
        for s in scores
        if s.value is not None and not s.passed
    )
    counted = [r for r in records if r.outcome in COUNTED]
    costs = [r.trace.cost_usd for r in counted]
    unmeasured = sum(1 for c in costs if c is None)
    if not records:
        cost, note = None, "not measured (no attempts)"
    elif not counted:
        # Attempts ran (and may have spent tokens) but none counts in the score.
        cost = None
        ran = len(records)
        which = "its one attempt does not" if ran == 1 else f"none of the {ran} attempts"
        note = f"not measured ({which} count{'s' if ran != 1 else ''} in the score)"
    elif unmeasured:
        cost = None
        note = f"not measured ({unmeasured} of {len(counted)} attempts report no cost)"
    else:
        cost = math.fsum(c for c in costs if c is not None)
        note = f"${cost:.6f}"
    from bench.stats import axis_view

    by_language: dict[str, list[float]] = defaultdict(list)
    for score in scorable:
        if score.value is not None:
            by_language[by_task[score.task_id][0].language].append(score.value)
    languages = {
        lang: (math.fsum(values) / len(values), len(values))
        for lang, values in sorted(by_language.items())
    }
    endpoint_warnings: dict[str, int] = defaultdict(int)
    for record in records:
        for exchange in record.trace.exchanges:
            endpoint_warnings["calls"] += 1
            raw = exchange.response.get("raw")
            said = raw.get("warnings") if isinstance(raw, dict) else None
            for warning in said if isinstance(said, list) else []:
                endpoint_warnings[str(warning)] += 1
    return RunSummary(
        endpoint_warnings=dict(endpoint_warnings) if len(endpoint_warnings) > 1 else {},
        languages=languages,
        axes=axis_view(axis_values(by_task)),
        safety=tuple((r.task_id, r.repeat, text) for r in records for text in r.safety_violations),
        config=config,
        status=status,
        records=records,
        task_scores=scores,
        headline=headline,
        outcomes=dict(Counter(r.outcome for r in records)),
        not_scorable=not_scorable,
        failures=failures,
        cost_usd=cost,
        cost_note=note,
        tokens=sum(r.trace.usage.total for r in records),
        tokens_measured=sum(1 for r in records if r.trace.usage_measured),
        p95_latency_s=p95([r.trace.latency_s for r in counted]),
        harness_faults=sum(1 for r in records if r.outcome == "harness_fault"),
    )


def scope_lines(config: RunConfig) -> list[str]:
    """What a reader must know before reading the score: a run on a subset of its split, a
    reference (baseline) run. Empty for an ordinary whole-split run."""
    lines = []
    subset = config.task_set.subset
    label = config.task_set.subset_label()
    if subset is not None and label is not None:
        chosen = " and ".join(f"--{name}" for name in subset.by) or "a filter"
        lines.append(
            f"{label} (chosen with {chosen}); compared only with runs of the same tasks, "
            "never with whole-split runs"
        )
    reference = config.reference()
    if reference is not None:
        lines.append(
            f"reference run: the no-model baseline {reference}; listed on the board, never ranked"
        )
    return lines


def _why_unscorable(records: list[AttemptRecord]) -> str:
    reasons = [f"{r.outcome.replace('_', ' ')}: {r.reason}" for r in records if r.reason]
    return reasons[0] if reasons else "no attempt could be scored"


__all__ = [
    "Failure",
    "RunSummary",
    "as_counted",
    "axis_values",
    "fold_task",
    "p95",
    "scope_lines",
    "summarize",
]
