"""The judge a run claims (config.json's ``judge``): what ``bench run --judge`` records, and
only in a run that had something to judge.

A run's judge is not in its bundle (its exchanges, cache and calibration file stay with the
submitter), so what it said is the submitter's word. What can be bound is bound here:

* the claim has the shape ``RunJudge.describe()`` writes (model, temperature, a fingerprint of
  16 hex digits, trusted, trust_note, calibration), so no other text reaches the card and the
  run's fingerprint can be computed (a claim without ``fingerprint`` stopped verify with a
  traceback) — ``RECORD_INVALID``;
* a claim of a *trusted* judge carries calibration numbers that clear the floor and the note
  ``assess`` writes for them — ``RECORD_INCONSISTENT``;
* a run claims a judge only when one of its tasks has a ``judge`` expectation: otherwise the
  judge decided nothing, and the claim would only change the run's fingerprint (one more row
  of the same agent in its cohort) and show a judge on the card — ``RECORD_INCONSISTENT``.

``scores.check_scores`` then binds each judged verdict to the form this claim gives.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bench.core.validation import describe
from bench.scorers.judge.calibration import KAPPA_FLOOR, LABELS_FLOOR, floor_problems, fmt_kappa
from bench.tasks.load import TaskSet

from .codes import Code
from .failure import VerifyFailure
from .records import BundleRun

_CONFIG = "config.json"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ClaimedCalibration(_Strict):
    kappa: Annotated[float, Field(ge=-1.0, le=1.0)] | None
    n: Annotated[int, Field(ge=0)]
    created_at: str


class ClaimedJudge(_Strict):
    """config.json's ``judge``, as ``RunJudge.describe()`` writes it."""

    model: Annotated[str, Field(min_length=1, max_length=200)]
    temperature: Annotated[float, Field(ge=0.0, le=2.0)]
    fingerprint: Annotated[str, Field(pattern=r"^[0-9a-f]{16}$")]
    trusted: bool
    trust_note: Annotated[str, Field(max_length=1000)]
    calibration: ClaimedCalibration | None


def trusted_note(kappa: float, n: int) -> str:
    """The note ``calibration.assess`` gives a judge whose calibration clears the floor."""
    return f"κ {fmt_kappa(kappa)} over {n} labels (floor {KAPPA_FLOOR:.2f} over {LABELS_FLOOR})"


def check_judge_claim(bundle: Path, run: BundleRun) -> None:
    """The claim's shape, and a trusted claim's numbers (before anything hashes the config)."""
    value = run.config.judge
    if value is None:
        return
    try:
        claim = ClaimedJudge.model_validate(value)
    except ValidationError as exc:
        where, message = describe(exc)
        raise VerifyFailure(
            Code.RECORD_INVALID,
            f"the judge the run claims is not one bench run records: {message}",
            path=str(bundle / _CONFIG),
            field=f"judge.{where}" if where else "judge",
        ) from None
    if not claim.trusted:
        return
    calibration = claim.calibration
    problems = (
        ["no calibration"]
        if calibration is None
        else floor_problems(calibration.kappa, calibration.n)
    )
    if problems:
        raise VerifyFailure(
            Code.RECORD_INCONSISTENT,
            f"the run claims a trusted judge, and its calibration does not clear the floor: "
            f"{'; '.join(problems)}",
            path=str(bundle / _CONFIG),
            field="judge.trusted",
        )
    assert calibration is not None and calibration.kappa is not None
    note = trusted_note(calibration.kappa, calibration.n)
    if claim.trust_note != note:
        raise VerifyFailure(
            Code.RECORD_INCONSISTENT,
            f"a trusted judge's note is the one its calibration gives ({note!r})",
            path=str(bundle / _CONFIG),
            field="judge.trust_note",
        )


def check_judged_tasks(bundle: Path, task_set: TaskSet, run: BundleRun) -> None:
    """A run claims a judge only when one of its tasks has a ``judge`` expectation."""
    if run.config.judge is None:
        return
    if any(e.type == "judge" for task in task_set.tasks for e in task.expectations):
        return
    raise VerifyFailure(
        Code.RECORD_INCONSISTENT,
        "the run claims a judge, and none of its tasks has a judge expectation: the judge "
        "decided nothing (re-run without --judge)",
        path=str(bundle / _CONFIG),
        field="judge",
    )


__all__ = [
    "ClaimedCalibration",
    "ClaimedJudge",
    "check_judge_claim",
    "check_judged_tasks",
    "trusted_note",
]
