"""Paired comparisons of two entrants on the same tasks (docs/METHODOLOGY.md, "Ranks").

* :func:`sign_flip_pvalue` is the exact two-sided sign-flip (permutation) test of a sum of task
  differences: under "no difference" every task difference is as likely to carry either sign.
  The p-value is the share of the ``2^n`` sign patterns whose ``|sum|`` reaches the observed one
  (zero differences are dropped: flipping them changes nothing). Enumerated when ``n <= 20``;
  above that, ``100,000`` seeded random sign patterns with the ``(1 + hits) / (1 + draws)`` rule.
  Known answers: 7 wins / 1 loss of equal size -> 0.0703; 8 / 0 -> 0.0078.
* :func:`paired_difference` is the difference of two stratified headlines with the percentile
  interval of the paired bootstrap ``M[:, 1] - M[:, 0]`` from one shared, seeded ``W``. When fewer
  than ``min_tasks`` (30) tasks are shared, the decision is the sign-flip test instead; with
  fewer than ``ranks.min_resamples(alpha / 2)`` resamples (200) the interval decides nothing.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .bootstrap import headline_bootstrap, task_weights

ENUMERATE_MAX = 20
RANDOM_FLIPS = 100_000
SMALL_N = 30


def sign_flip_pvalue(differences: npt.ArrayLike, seed: int = 0) -> float:
    """Exact (n <= 20) or Monte-Carlo two-sided sign-flip p-value of ``sum(differences)``."""
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim != 1 or not np.all(np.isfinite(d)):
        raise ValueError("differences must be a one-dimensional array of finite numbers")
    d = d[d != 0.0]
    if d.size == 0:
        return 1.0
    observed = abs(float(d.sum()))
    tol = 1e-9 * max(1.0, float(np.abs(d).sum()))
    if d.size <= ENUMERATE_MAX:
        sums = np.zeros(1, dtype=np.float64)
        for value in d:
            sums = np.concatenate((sums + value, sums - value))
        return float(np.count_nonzero(np.abs(sums) >= observed - tol)) / sums.size
    rng = np.random.default_rng(operator.index(seed))
    hits = 0
    for _ in range(RANDOM_FLIPS // 10_000):
        signs = rng.integers(0, 2, size=(10_000, d.size)) * 2 - 1
        hits += int(np.count_nonzero(np.abs(signs @ d) >= observed - tol))
    return (1 + hits) / (1 + RANDOM_FLIPS)


@dataclass(frozen=True)
class PairedDifference:
    """``second - first`` on the shared tasks, its interval and the decision."""

    difference: float
    lo: float
    hi: float
    level: float
    n: int
    """Number of shared tasks the difference rests on."""
    p_value: float | None
    """Sign-flip p-value; set only when the small-n guard decided (n < min_tasks)."""
    significant: bool
    method: str
    decided_by: str = ""
    """Which test gave ``significant``, and its outcome, in one clause a report can print."""


def paired_difference(
    first: Sequence[float],
    second: Sequence[float],
    families: Sequence[str],
    *,
    B: int = 2000,
    seed: int = 0,
    level: float = 0.95,
    min_tasks: int = SMALL_N,
) -> PairedDifference:
    """Difference of stratified headlines ``second - first`` over the same tasks."""
    x = np.asarray([first, second], dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != len(families):
        raise ValueError(f"first and second need one value per family label ({len(families)})")
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be in (0, 1), got {level}")
    alpha = 1.0 - level
    w = task_weights(families)
    diffs = w * (x[1] - x[0])
    value = math.fsum(diffs.tolist())
    boot = headline_bootstrap(x, families, B, seed)
    q_lo, q_hi = np.quantile(boot[:, 1] - boot[:, 0], [alpha / 2.0, 1.0 - alpha / 2.0])
    lo, hi = min(float(q_lo), value), max(float(q_hi), value)
    n = int(x.shape[1])
    if n < min_tasks:
        p = sign_flip_pvalue(diffs, seed)
        kind = "exact" if np.count_nonzero(diffs) <= ENUMERATE_MAX else "random"
        # The interval is still computed and shown, so a reader needs to be told it did not decide.
        decided_by = (
            f"{kind} sign-flip test, p = {p:.4f} {'<' if p < alpha else '≥'} {alpha:.2g}; "
            f"below {min_tasks} shared tasks the interval does not decide"
        )
        return PairedDifference(
            difference=value,
            lo=lo,
            hi=hi,
            level=level,
            n=n,
            p_value=p,
            significant=p < alpha and value != 0.0,
            method=f"{n} shared tasks (< {min_tasks}): {kind} sign-flip test, p = {p:.4f}; "
            f"paired stratified bootstrap interval, B={B}, seed={seed}",
            decided_by=decided_by,
        )
    from .ranks import min_resamples

    floor = min_resamples(alpha / 2.0)
    method = f"paired stratified bootstrap over {n} shared tasks, B={B}, seed={seed}, percentile"
    if floor > B:  # the interval's ends rest on a handful of resamples: it decides nothing
        significant = False
        method += f"; fewer than {floor} resamples: not decided"
        decided = f"nothing: B={B} resamples are too few to decide (at least {floor})"
    else:
        significant = lo > 0.0 or hi < 0.0
        decided = f"the {level:.0%} bootstrap interval " + (
            "excludes 0" if significant else "contains 0"
        )
    return PairedDifference(
        difference=value,
        lo=lo,
        hi=hi,
        level=level,
        n=n,
        p_value=None,
        significant=significant,
        method=method,
        decided_by=decided,
    )


__all__ = ["SMALL_N", "PairedDifference", "paired_difference", "sign_flip_pvalue"]
