"""The headline's interval: a studentised (bootstrap-t) interval on the shared stratified ``W``.

For every entrant (row of ``X``, one value per task) with headline ``h`` (mean of family means):

- ``se = (1/F) * sqrt(sum_f s_f^2 / n_f)`` with the unbiased (ddof 1) variance ``s_f^2`` of
  family ``f``; a one-task family has no variance to estimate and adds nothing.
- For every resample ``b`` (a row of ``W``) the same two numbers, ``M_b`` and ``se_b``, from the
  resampled tasks, and the pivot ``T_b = (M_b - h) / se_b``.
- The interval is ``[h - q_hi * se, h - q_lo * se]``, ``q_lo`` and ``q_hi`` the ``alpha/2`` and
  ``1 - alpha/2`` quantiles of ``T``.

Why not the percentile interval of ``M``: its spread is the ddof-0 spread of each family, a
factor ``sqrt((n_f - 1) / n_f)`` narrow (9 % for six tasks), its quantiles are normal ones where
a handful of tasks calls for Student's, and it is centred the wrong way on a skewed headline
near 0 or 1. Dividing by the resample's own SE fixes all three to second order (Hall 1988,
"Theoretical comparison of bootstrap confidence intervals"; Efron & Tibshirani 1993, ch. 12).
Measured coverage, old against new: ``benchmarks/bench_coverage.py`` and docs/METHODOLOGY.md.

The pivot is capped: ``|T| <= t(1 - alpha/2; 1 df) = cot(pi * alpha / 2)`` (12.706 at 95 %).
A resample in which every family came out constant has no SE of its own; uncapped, its ``T``
is infinite, and a run that failed one task of 86 got [0, 1] whenever more than 2.5 % of the
resamples dropped that task (36 % do). Capped, such a resample counts as if its variance rested
on one degree of freedom: that run gets ``h - 12.7 se``, near Wilson's 85/86. The cap binds
in near-degenerate runs only; in ``bench_coverage.py`` it moves coverage by at most 0.014
(almost null runs on the public split: 0.993 uncapped, 0.979 capped, mean width 0.555 and
0.130).

Numerics: deviations from each family's own mean are resampled (not raw values), so a family
that is constant, in the data or in a resample, has a variance of exactly 0 or a rounding
residue (then ``T`` is large and the cap takes it). The caller handles rows whose every family
is constant (``se = 0``): there the pivot is undefined and the headline's own rule applies
(this function returns ``[h, h]`` for them).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .bootstrap import family_columns
from .plainboot import GAP_TOLERANCE, pivot_cap

Floats = npt.NDArray[np.float64]

_CHUNK = 512
"""Entrants per block: bounds the B x chunk temporaries (41 MB at B = 10,000)."""


def studentized_bounds(
    X: npt.ArrayLike,
    families: Sequence[str],
    W: npt.ArrayLike,
    M: npt.ArrayLike,
    level: float,
) -> tuple[Floats, Floats, Floats]:
    """Bootstrap-t bounds ``(lo, hi, se)`` of the stratified headline of each row of ``X``.

    ``X`` is E x T (one value per task), ``W`` the B x T resample counts of
    :func:`~bench.stats.bootstrap.resample_matrix` and ``M`` the B x E bootstrap headlines
    ``(W * w) @ X.T`` (passed in because every caller already has it). Bounds are not
    clipped to [0, 1]; rows with ``se == 0`` get ``lo = hi = h``.
    """
    x = np.asarray(X, dtype=np.float64)
    m = np.asarray(M, dtype=np.float64)
    counts = np.asarray(W)
    if x.ndim != 2 or x.shape[1] != len(families):
        raise ValueError(f"X must be entrants x {len(families)} tasks, got shape {x.shape}")
    if counts.shape != (m.shape[0], x.shape[1]) or m.shape[1:] != (x.shape[0],):
        raise ValueError(f"W {counts.shape} and M {m.shape} do not fit X {x.shape}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be in (0, 1), got {level}")
    columns = list(family_columns(families).values())
    F = len(columns)
    a = (1.0 - level) / 2.0
    cap = pivot_cap(level)
    E = x.shape[0]
    # Each task's share of the headline's variance per squared deviation from its family's
    # mean: 1 / (n_f (n_f - 1) F^2); 0 for a one-task family, which has no variance to estimate.
    k = np.zeros(x.shape[1])
    for c in columns:
        if c.size >= 2:
            k[c] = 1.0 / (c.size * (c.size - 1) * F * F)
    weights = np.asarray(counts, dtype=np.float64)  # cast once; no copy if already floats
    # Per family (two or more tasks): its columns of W, and the scale that makes the square of
    # (W_f @ dev_f) * scale that family's (mean deviation)^2 term, (mean dev)^2 / ((n-1) F^2).
    blocks = [
        (np.ascontiguousarray(weights[:, c]), c, 1.0 / (c.size * F * math.sqrt(c.size - 1)))
        for c in columns
        if c.size >= 2
    ]
    h = np.empty(E)
    se = np.empty(E)
    lo = np.empty(E)
    hi = np.empty(E)
    for start in range(0, E, _CHUNK):
        rows = slice(start, min(start + _CHUNK, E))
        xs = x[rows]
        dev = np.empty_like(xs)
        means = np.empty((xs.shape[0], F))
        for j, c in enumerate(columns):
            means[:, j] = xs[:, c].mean(axis=1)
            dev[:, c] = xs[:, c] - means[:, j : j + 1]
        h[rows] = means.mean(axis=1)
        sq = dev * dev * k
        se[rows] = np.sqrt(sq.sum(axis=1))
        # Resampled variance of the headline: sum over families of
        # (mean of dev^2 - (mean of dev)^2) / ((n_f - 1) F^2), the first term for all at once.
        var_b = weights @ sq.T
        shift = np.empty_like(var_b)  # one buffer for every family: fresh pages cost more
        for wf, c, scale in blocks:
            np.matmul(wf, dev[:, c].T * scale, out=shift)
            np.square(shift, out=shift)
            var_b -= shift
        np.maximum(var_b, 0.0, out=var_b)
        se_b = np.sqrt(var_b, out=var_b)
        t = np.subtract(m[:, rows], h[rows], out=shift)
        t[np.abs(t) <= GAP_TOLERANCE] = 0.0  # rounding's sign is not the data's (plainboot)
        zero = se_b == 0.0
        np.divide(t, se_b, out=t, where=~zero)
        if zero.any():
            t[zero] = np.sign(t[zero]) * cap
        np.clip(t, -cap, cap, out=t)
        q = np.quantile(t, [a, 1.0 - a], axis=0)
        flat = se[rows] == 0.0
        lo[rows] = np.where(flat, h[rows], h[rows] - q[1] * se[rows])
        hi[rows] = np.where(flat, h[rows], h[rows] - q[0] * se[rows])
    return lo, hi, se


__all__ = ["pivot_cap", "studentized_bounds"]
