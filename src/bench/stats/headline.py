"""The stratified headline: the mean of family means, with a stratified bootstrap interval.

Input is **one value per task**: the caller averages a task's repeats first, so repeating
attempts (or copying them) never narrows the interval (docs/METHODOLOGY.md, "One shared
resample matrix"). Every task value must be present; how missing tasks are treated is the
caller's policy.

Interval rule:

1. Normally, the studentised (bootstrap-t) interval on the stratified resamples
   (``studentized.py``; the resamples are ``bootstrap.py``'s, so the board, which computes
   a whole cohort at once through the same function, gives the same interval for the same
   seed). Until 2026-12-03 it was their percentile interval, which covered 0.81-0.94 instead of
   0.95 on the shipped layouts (``benchmarks/bench_coverage.py``).
2. The bootstrap is *degenerate* exactly when every family is constant: then every resample
   equals the headline. Two cases:

   a. Every value is the same 0 or the same 1 (the headline sits on the boundary): the zero
      width only says no failure (or no success) was seen, so fall back to the Wilson interval
      of the pooled successes, e.g. 50/50 -> [0.9287, 1].
   b. Otherwise (families constant at different levels, or constant non-binary values): the
      interval is the point ``[h, h]``. Families are strata fixed by design, so their
      differences carry no sampling error, and Wilson of the pooled count would describe the
      pooled mean, not ``h`` (families [1,1,1,1] and [0,0]: h = 0.5, pooled 4/6, Wilson
      [0.30, 0.90]). A warning says the interval is a point.

The interval is clipped to [0, 1] and widened, if percentile rounding ever requires it, to
contain the value.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bench.core.rng import DEFAULT_SEED
from bench.core.score import Interval, Score

from .intervals import wilson
from .plainboot import PLAIN_DRAWS, plain_columns, plain_studentized

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

SMALL_FAMILY = 10


def small_family_note(family: str, n: int) -> str:
    """The note for a family of fewer than ``SMALL_FAMILY`` tasks (one wording for every surface).

    It says what the number means, not how the interval looks: a bootstrap over a handful of
    tasks cannot see how much such tasks really vary, so the family's interval may miss its
    true mean however wide it is printed.
    """
    tasks = "task" if n == 1 else "tasks"
    return (
        f"family {family} has {n} {tasks} (< {SMALL_FAMILY}): "
        "too few to trust its interval, whatever its width"
    )


@dataclass(frozen=True)
class HeadlineResult:
    """A stratified headline and what it rests on."""

    score: Score
    pooled: float
    """Plain mean over tasks (differs from the headline when family sizes differ)."""
    analytic_se: float
    """``(1/F) * sqrt(sum_f s_f^2 / n_f)`` with ddof 0 (what the bootstrap SE estimates)."""
    bootstrap_se: float
    """Standard deviation of the bootstrap headlines (ddof 1); 0 when degenerate."""
    family_means: dict[str, float]
    family_sizes: dict[str, int]
    warnings: tuple[str, ...]


def _unit_values(values: Sequence[float]) -> list[float]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        values = list(values)  # an array or any iterable of numbers
    if values and isinstance(values[0], Sequence):
        raise ValueError("values must be one value per task (1-D), got nested values")
    try:
        x = [float(v) for v in values]
    except TypeError:
        raise ValueError("values must be one value per task (1-D)") from None
    if not x:
        raise ValueError("no tasks: a headline needs at least one task value")
    if not all(math.isfinite(v) and 0.0 <= v <= 1.0 for v in x):
        raise ValueError("task values must be finite numbers in [0, 1]")
    return x


def _clip(x: float, lo: float = 0.0, hi: float = 1.0) -> float:
    return min(hi, max(lo, x))


def _mean(xs: Sequence[float]) -> float:
    """Correctly rounded mean, kept inside [min, max] (a constant family's mean is exact)."""
    return _clip(math.fsum(xs) / len(xs), min(xs), max(xs))


def _variance(xs: Sequence[float]) -> float:
    """Population variance (ddof 0), from correctly rounded sums."""
    mean = math.fsum(xs) / len(xs)
    return math.fsum((v - mean) * (v - mean) for v in xs) / len(xs)


def stratified_headline(
    values: Sequence[float],
    families: Sequence[str],
    *,
    B: int = 2000,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
    label: str = "headline",
) -> HeadlineResult:
    """Mean of family means over one value per task, with its interval (see module docstring).

    The bootstrap runs in plain Python when ``B`` times the number of tasks is at most
    ``PLAIN_DRAWS`` (a run of ordinary size: no numpy in its summary), and with numpy above
    that; both draw the same resamples, so they differ only in how the sums round (about
    1e-16, as the board's cohort-wide product does, docs/DECISIONS.md 46)."""
    x = _unit_values(values)
    if len(families) != len(x):
        raise ValueError(f"got {len(x)} task values but {len(families)} family labels")
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be in (0, 1), got {level}")
    B, seed = operator.index(B), operator.index(seed)
    if B < 1:
        raise ValueError(f"the number of resamples B must be at least 1, got {B}")
    return _headline(x, families, B, seed, level, label, None)


def _headline(
    x: list[float],
    families: Sequence[str],
    B: int,
    seed: int,
    level: float,
    label: str,
    bounds: tuple[float, float, float] | None,
    columns: dict[str, list[int]] | None = None,
) -> HeadlineResult:
    """The headline of checked values ``x``; ``bounds`` (lo, hi, bootstrap SE) when the
    caller already has this entrant's bootstrap-t bounds (``stratified_headlines``), else
    drawn here; ``columns``: ``plain_columns(families)``, when the caller has it."""
    if columns is None:
        columns = plain_columns(families)
    groups = {f: [x[t] for t in cols] for f, cols in columns.items()}
    family_means = {f: _mean(g) for f, g in groups.items()}
    family_sizes = {f: len(g) for f, g in groups.items()}
    n_families = len(groups)
    value = _mean(list(family_means.values()))
    pooled = _mean(x)
    analytic_se = math.sqrt(math.fsum(_variance(g) / len(g) for g in groups.values())) / n_families

    warnings = [small_family_note(f, n) for f, n in family_sizes.items() if n < SMALL_FAMILY]
    degenerate = all(max(g) == min(g) for g in groups.values())
    binary = all(v in (0.0, 1.0) for v in x)
    if degenerate and binary and max(x) == min(x):
        successes = sum(1 for v in x if v != 0.0)
        lo, hi = wilson(successes, len(x), level)
        method = f"Wilson score over {successes}/{len(x)} pooled tasks (bootstrap degenerate)"
        bootstrap_se = 0.0
    elif degenerate:
        lo = hi = value
        method = (
            f"stratified bootstrap over tasks, B={B}, seed={seed}: "
            "degenerate (every family constant), point interval"
        )
        bootstrap_se = 0.0
        warnings.append("every family is constant: the interval is a single point")
    else:
        if bounds is not None:
            t_lo, t_hi, bootstrap_se = bounds
        elif B * len(x) <= PLAIN_DRAWS:
            t_lo, t_hi, bootstrap_se = plain_studentized(x, columns, B, seed, level)
        else:
            t_lo, t_hi, bootstrap_se = _numpy_studentized(x, families, B, seed, level)
        lo, hi = _clip(t_lo), _clip(t_hi)
        method = f"stratified bootstrap over tasks, B={B}, seed={seed}, studentised (bootstrap-t)"
    interval = Interval(lo=min(lo, value), hi=max(hi, value), level=level, method=method)
    score = Score(value=value, n=len(x), label=label, interval=interval)
    return HeadlineResult(
        score=score,
        pooled=pooled,
        analytic_se=analytic_se,
        bootstrap_se=bootstrap_se,
        family_means=family_means,
        family_sizes=family_sizes,
        warnings=tuple(warnings),
    )


_LAST_MATRIX: list[tuple[tuple[tuple[str, ...], int, int], tuple[Any, Any]]] = []
"""The last ``W`` drawn here and ``W`` times the task weights: the same ``(families, B, seed)``
draws the same matrix, and a board loads many runs of one task set with one seed (the whole
BFCL suite: 0.1-0.2 s of CPU per run, and 58 MB, kept once)."""


def _numpy_studentized(
    x: list[float], families: Sequence[str], B: int, seed: int, level: float
) -> tuple[float, float, float]:
    """(lo, hi, bootstrap SE) of one entrant, with numpy (the board's own functions)."""
    import numpy as np

    from .bootstrap import resample_matrix, task_weights
    from .studentized import studentized_bounds

    values: npt.NDArray[np.float64] = np.asarray(x, dtype=np.float64)
    key = (tuple(families), B, seed)
    last = next(iter(_LAST_MATRIX), None)  # read once: another thread may replace it
    if last is not None and last[0] == key:
        W, weighted = last[1]
    else:
        W = resample_matrix(families, B, seed)
        weighted = W * task_weights(families)
        for matrix in (W, weighted):
            matrix.flags.writeable = False  # shared with the next entrant of these tasks
        _LAST_MATRIX[:] = [(key, (W, weighted))]
    M = weighted @ values[:, np.newaxis]
    t_lo, t_hi, _ = studentized_bounds(values[np.newaxis, :], families, W, M, level)
    bootstrap_se = float(np.std(M[:, 0], ddof=1)) if B > 1 else 0.0
    return float(t_lo[0]), float(t_hi[0]), bootstrap_se


def stratified_headlines(
    rows: Sequence[Sequence[float]],
    families: Sequence[str],
    *,
    B: int = 2000,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
    label: str = "headline",
) -> list[HeadlineResult]:
    """:func:`stratified_headline` of each row of task values, every row over tasks of the
    same ``families`` with the same ``seed`` (one BFCL category of many runs, on the board):
    one resample matrix and one matrix product for all rows, and the same rules after it.
    The resamples and the statistic are the one-row call's; the sums are taken in another
    order, so the bounds agree with it to about 1e-16, not to the bit (as the board's
    cohort-wide product and a run's summary do, docs/DECISIONS.md 46)."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be in (0, 1), got {level}")
    B, seed = operator.index(B), operator.index(seed)
    if B < 1:
        raise ValueError(f"the number of resamples B must be at least 1, got {B}")
    if not rows:
        return []
    import numpy as np

    try:  # checked at once (a board has 100 rows of 1,000 tasks): what _unit_values checks
        values = np.asarray(rows, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("rows must be one value per task, as many in every row") from None
    if values.ndim != 2 or values.shape[1] == 0:
        raise ValueError("rows must be one value per task (1-D each), at least one task")
    if values.shape[1] != len(families):
        raise ValueError(f"got {values.shape[1]} task values but {len(families)} family labels")
    if not (np.isfinite(values).all() and (values >= 0.0).all() and (values <= 1.0).all()):
        raise ValueError("task values must be finite numbers in [0, 1]")
    xs: list[list[float]] = values.tolist()
    bounds: list[tuple[float, float, float] | None] = [None] * len(xs)
    columns = plain_columns(families)
    # Rows whose every family is constant take the headline's degenerate rules: no bootstrap.
    constant = np.ones(len(xs), dtype=bool)
    for cols in columns.values():
        block = values[:, cols]
        constant &= block.max(axis=1) == block.min(axis=1)
    live = [i for i in range(len(xs)) if not constant[i]]
    if live:
        from .bootstrap import resample_matrix, task_weights
        from .studentized import studentized_bounds

        X = values[live]
        W = resample_matrix(families, B, seed)
        M = (W * task_weights(families)) @ X.T
        t_lo, t_hi, _ = studentized_bounds(X, families, W, M, level)
        spread = np.std(M, axis=0, ddof=1) if B > 1 else np.zeros(len(live))
        for k, i in enumerate(live):
            bounds[i] = (float(t_lo[k]), float(t_hi[k]), float(spread[k]))
    return [
        _headline(x, families, B, seed, level, label, b, columns)
        for x, b in zip(xs, bounds, strict=True)
    ]


__all__ = [
    "SMALL_FAMILY",
    "HeadlineResult",
    "small_family_note",
    "stratified_headline",
    "stratified_headlines",
]
