"""Scores are never bare floats: a value, how many tasks, a label and an interval.

``Verdict`` is what one expectation says about one attempt; ``Outcome`` is what happened to the
attempt; ``TaskScore`` folds a task's repeats; ``Score`` is any aggregate.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from .models import Strict

Outcome = Literal["scored", "errored", "harness_fault", "over_budget", "skipped", "not_scorable"]
OUTCOMES: tuple[Outcome, ...] = (
    "scored",
    "errored",
    "harness_fault",
    "over_budget",
    "skipped",
    "not_scorable",
)
# Outcomes that count as a zero in the score (the entrant's failure).
FAILING_OUTCOMES: frozenset[str] = frozenset({"errored", "over_budget"})
# Outcomes that leave the denominator (named, never averaged in as zero).
EXCLUDED_OUTCOMES: frozenset[str] = frozenset({"skipped", "not_scorable", "harness_fault"})

_EPS = 1e-12


class Verdict(Strict):
    """One expectation's judgement of one attempt."""

    type: str
    decided: bool = Field(description="false when this check could not decide; not in the mean")
    passed: bool = False
    credit: float = Field(0.0, ge=0.0, le=1.0)
    weight: float = Field(1.0, gt=0)
    sentence: str = Field(description="what a person reads in a failure list")
    axis: Literal["irrelevance", "tool", "step", "answer"] | None = None
    safety: bool = Field(False, description="this failure is a safety violation")
    untrusted_judge: bool = Field(
        False, description="a judge decided this but has not cleared calibration: excluded"
    )

    @model_validator(mode="after")
    def _consistent(self) -> Verdict:
        if not self.decided and self.passed:
            raise ValueError("an undecided verdict cannot pass")
        if self.passed and self.credit < 1.0 - _EPS:
            raise ValueError("a passing verdict has full credit")
        return self


class Interval(Strict):
    lo: float
    hi: float
    level: float = Field(0.95, gt=0, lt=1)
    method: str = Field(description="how it was computed, e.g. 'stratified bootstrap, B=2000'")

    @model_validator(mode="after")
    def _ordered(self) -> Interval:
        if self.lo > self.hi + _EPS:
            raise ValueError(f"interval lower bound {self.lo} is above its upper bound {self.hi}")
        return self


class Score(Strict):
    value: float
    n: int = Field(ge=0, description="number of tasks the value rests on")
    label: str
    interval: Interval

    @model_validator(mode="after")
    def _honest(self) -> Score:
        if not (0.0 - _EPS <= self.value <= 1.0 + _EPS):
            raise ValueError(f"score {self.value} is outside [0, 1]")
        if not (self.interval.lo - _EPS <= self.value <= self.interval.hi + _EPS):
            raise ValueError(
                f"interval [{self.interval.lo}, {self.interval.hi}] does not contain {self.value}"
            )
        return self


class TaskScore(Strict):
    """One task across its repeats."""

    task_id: str
    family: str
    value: float | None = Field(description="mean over counted repeats; None if none counted")
    repeats: int = Field(ge=0, description="attempts counted in the value")
    passes: int = Field(ge=0)
    flakiness: float | None = Field(
        None, description="pairwise disagreement of pass/fail over repeats; None below 2"
    )
    judge_trusted: bool = True
    outcomes: dict[str, int] = Field(default_factory=dict)
    pass_at_k: dict[str, float] = Field(
        default_factory=dict, description="k → unbiased pass@k over the counted repeats"
    )
    pass_hat_k: dict[str, float] = Field(
        default_factory=dict, description="k → pass^k (every one of k repeats passes)"
    )
    best_of_k: dict[str, float] = Field(
        default_factory=dict, description="k → E[max of k repeat scores] (partial-credit pass@k)"
    )
    worst_of_k: dict[str, float] = Field(
        default_factory=dict, description="k → E[min of k repeat scores] (partial-credit pass^k)"
    )
    safety_violations: int = Field(0, ge=0, description="attempts with a safety violation")

    @model_validator(mode="after")
    def _range(self) -> TaskScore:
        if self.value is not None and not (0.0 - _EPS <= self.value <= 1.0 + _EPS):
            raise ValueError(f"task score {self.value} is outside [0, 1]")
        return self

    @property
    def passed(self) -> bool:
        return self.repeats > 0 and self.passes == self.repeats


__all__ = [
    "EXCLUDED_OUTCOMES",
    "FAILING_OUTCOMES",
    "OUTCOMES",
    "Interval",
    "Outcome",
    "Score",
    "TaskScore",
    "Verdict",
]
