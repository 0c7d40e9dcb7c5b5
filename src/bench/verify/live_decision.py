"""The sample ``bench verify --live`` re-runs and the rule that decides from it
(docs/LIVE-VERIFY.md, "The sample", "The test" and "Errors during the re-run").

A live attempt that errored, hit a harness fault, was skipped or was not scorable says nothing
about the claim: its task is left out on both sides. Errors can neither convict nor acquit: the
decision is "could not re-run" when no task is left, when more than 25 % of the sample is left
out, or when counting the left-out tasks as live failures would make the sample inconsistent.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, fields
from typing import Literal

from bench.records.run import AttemptRecord

from .live_stats import TEST_NAME, sign_flip_pvalue
from .records import BundleRun

MAX_UNUSABLE_SHARE = 0.25
# Live outcomes that say nothing about the claim: the re-run, not the model, failed.
NOT_COMPARABLE = frozenset({"errored", "harness_fault", "skipped", "not_scorable"})

Decision = Literal["consistent", "inconsistent", "could not re-run"]


@dataclass(frozen=True, kw_only=True)
class Comparison:
    """The sampled tasks side by side and what the test decided; ``p_value`` is None when no
    task could be compared."""

    repeats: int
    sampled: tuple[str, ...]
    excluded: tuple[str, ...]  # sampled tasks whose live attempts errored
    claimed_passes: int  # on the compared tasks
    live_passes: int
    live_better: int  # tasks where live passed more often than claimed
    live_worse: int
    p_value: float | None
    p_value_errors_as_failures: float | None  # only when some tasks were excluded
    alpha: float
    decision: Decision
    reason: str
    test: str = TEST_NAME

    @property
    def n(self) -> int:
        """Tasks compared."""
        return len(self.sampled) - len(self.excluded)

    @property
    def claimed_rate(self) -> float | None:
        return self.claimed_passes / (self.n * self.repeats) if self.n else None

    @property
    def live_rate(self) -> float | None:
        return self.live_passes / (self.n * self.repeats) if self.n else None


@dataclass(frozen=True, kw_only=True)
class LiveCheck(Comparison):
    """A comparison and the allow-listed endpoint it was made against."""

    endpoint: str  # scheme://host[:port]: a path can carry a token
    endpoint_id: str
    model: str
    requests: int  # model calls sent (each may be retried by the HTTP client)

    @classmethod
    def of(
        cls, comparison: Comparison, *, endpoint: str, endpoint_id: str, model: str, requests: int
    ) -> LiveCheck:
        found = {f.name: getattr(comparison, f.name) for f in fields(Comparison)}
        return cls(
            **found, endpoint=endpoint, endpoint_id=endpoint_id, model=model, requests=requests
        )


def _claimed(run: BundleRun) -> dict[str, list[AttemptRecord]]:
    by_task: dict[str, list[AttemptRecord]] = {}
    for record in run.attempts:
        by_task.setdefault(record.task_id, []).append(record)
    return by_task


def sample_tasks(run: BundleRun, public: set[str], size: int, seed: int) -> list[str]:
    """Public tasks whose every claimed attempt decided (passed is True or False), seeded."""
    claimed = _claimed(run)
    eligible = [
        task_id
        for task_id in run.config.task_set.task_ids
        if task_id in public
        and len(claimed.get(task_id, [])) == run.config.repeats
        and all(r.passed is not None for r in claimed[task_id])
    ]
    chosen = set(random.Random(seed).sample(eligible, min(size, len(eligible))))
    return [task_id for task_id in eligible if task_id in chosen]


def _codes(attempts: list[AttemptRecord]) -> str:
    found = Counter(
        match.group(0) if (match := re.match(r"[A-Z][A-Z_]+", r.reason or "")) else r.outcome
        for r in attempts
    )
    return ", ".join(f"{code} ×{count}" for code, count in found.most_common(3))


def decide(
    run: BundleRun,
    sampled: list[str],
    live: list[AttemptRecord],
    alpha: float,
) -> Comparison:
    """Compare the claimed and live attempts of ``sampled`` and decide (module docstring)."""
    claimed = _claimed(run)
    again: dict[str, list[AttemptRecord]] = {}
    for record in live:
        again.setdefault(record.task_id, []).append(record)
    repeats = run.config.repeats
    diffs: list[int] = []
    as_failures: list[int] = []
    excluded: list[str] = []
    failed: list[AttemptRecord] = []
    passes = {"claimed": 0, "live": 0}
    for task_id in sampled:
        mine = sum(bool(r.passed) for r in claimed[task_id])
        theirs = again.get(task_id, [])
        now = sum(r.passed is True for r in theirs)
        as_failures.append(now - mine)
        if len(theirs) != repeats or any(r.outcome in NOT_COMPARABLE for r in theirs):
            excluded.append(task_id)
            failed += [r for r in theirs if r.outcome in NOT_COMPARABLE]
            continue
        diffs.append(now - mine)
        passes["claimed"] += mine
        passes["live"] += now
    p = sign_flip_pvalue(diffs) if diffs else None
    p_err = sign_flip_pvalue(as_failures) if excluded else None
    errors = _codes(failed) if failed else "no attempts recorded"
    decision: Decision = "consistent"
    if p is None:
        decision, reason = "could not re-run", f"no sampled task re-ran without an error ({errors})"
    elif p < alpha:
        decision, reason = "inconsistent", f"p = {p:.4g}, below alpha = {alpha:g}"
    elif len(excluded) > MAX_UNUSABLE_SHARE * len(sampled):
        decision = "could not re-run"
        reason = (
            f"{len(excluded)} of {len(sampled)} sampled tasks errored live ({errors}); "
            f"more than {MAX_UNUSABLE_SHARE:.0%} cannot be compared"
        )
    elif p_err is not None and p_err < alpha:
        decision = "could not re-run"
        reason = (
            f"consistent only if the {len(excluded)} errored task(s) are left out "
            f"(p = {p_err:.4g} with them counted as failures; {errors})"
        )
    else:
        reason = f"p = {p:.4g}, not below alpha = {alpha:g}"
    return Comparison(
        repeats=repeats,
        sampled=tuple(sampled),
        excluded=tuple(excluded),
        claimed_passes=passes["claimed"],
        live_passes=passes["live"],
        live_better=sum(d > 0 for d in diffs),
        live_worse=sum(d < 0 for d in diffs),
        p_value=p,
        p_value_errors_as_failures=p_err,
        alpha=alpha,
        decision=decision,
        reason=reason,
    )


__all__ = [
    "MAX_UNUSABLE_SHARE",
    "NOT_COMPARABLE",
    "Comparison",
    "Decision",
    "LiveCheck",
    "decide",
    "sample_tasks",
]
