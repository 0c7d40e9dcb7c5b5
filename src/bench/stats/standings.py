"""Tie-aware ranks on one stratum: a family of the task set, or a category of an imported
suite (BFCL's ``simple_python``), for the board's "rank by" view (docs/METHODOLOGY.md,
"Ranks by family or category").

The rule is :mod:`.ranks`'s, applied to the stratum's tasks alone:

1. ``X`` (E x n) holds each entrant's value on the stratum's n tasks (repeats averaged) and
   ``W`` (B x n) resample counts whose every row sums to n: the stratum's columns of a
   stratified ``W`` (its rows count exactly ``n_f`` picks of the family), or
   ``resample_matrix([name] * n, B, seed)``. ``M = (W * (1/n)) @ X.T`` is every entrant's
   bootstrap mean on the stratum, paired across entrants; i beats j when it is ahead in more
   than ``(1 - alpha/2) B`` of them (nothing is decided below ``ranks.min_resamples``).
2. Below ``min_tasks`` (30) tasks the exact sign-flip test of the task differences decides
   instead (``paired.sign_flip_pvalue``: the weights are equal, so they change no p-value).
   Each distinct set of differences is tested once; when every non-zero difference has the
   same size (binary tasks, one repeat) the p-value is the binomial count of the sign
   patterns, exact at any number of differences (``sign_flip_pvalue`` is exact up to 20 and
   a 100,000-draw estimate above). On up to 20 non-zero differences the two are the same test.
3. ``rank_lo = 1 + #{j beats i}``, ``rank_hi = E - #{i beats j}`` (:func:`.ranks.ranks_from_beats`).

A rank on one stratum answers one question. With many strata, some entrant will look ahead or
behind on one of them by chance: nothing here corrects for the number of strata, and the ranks
of different strata are not a joint statement (docs/METHODOLOGY.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from .paired import SMALL_N, sign_flip_pvalue
from .ranks import TieRanks, beats_matrix, ranks_from_beats


def _equal_size_pvalue(m: int, excess: int) -> float:
    """Two-sided sign-flip p-value of ``m`` differences of one size whose signs sum to
    ``excess`` (wins - losses): the share of the ``2^m`` patterns with ``|sum| >= |excess|``."""
    if m == 0:
        return 1.0
    need = abs(excess)
    hits = sum(math.comb(m, k) for k in range(m + 1) if abs(2 * k - m) >= need)
    return hits / 2.0**m


def _binary_beats(x: npt.NDArray[np.float64], alpha: float) -> npt.NDArray[np.bool_]:
    """Sign-flip decisions for task values that are all 0 or 1: every difference is +-1."""
    wins = x @ (1.0 - x).T  # wins[i, j]: tasks i solved and j did not
    wins_i = np.rint(wins).astype(np.int64)
    m = wins_i + wins_i.T
    excess = wins_i - wins_i.T
    pvalue: dict[tuple[int, int], float] = {}
    E = x.shape[0]
    beats = np.zeros((E, E), dtype=bool)
    for i in range(E):
        for j in range(E):
            if i == j or excess[i, j] <= 0:
                continue
            key = (int(m[i, j]), int(excess[i, j]))
            p = pvalue.get(key)
            if p is None:
                p = pvalue[key] = _equal_size_pvalue(*key)
            beats[i, j] = p < alpha
    return beats


def _general_beats(
    x: npt.NDArray[np.float64], alpha: float, pvalue_of: Callable[[npt.NDArray[np.float64]], float]
) -> npt.NDArray[np.bool_]:
    """Sign-flip decisions for any task values: each distinct (sorted) set of non-zero
    differences is tested once (a permutation of the tasks changes no exact p-value)."""
    E = x.shape[0]
    beats = np.zeros((E, E), dtype=bool)
    seen: dict[bytes, float] = {}
    for i in range(E):
        for j in range(i + 1, E):
            d = x[i] - x[j]
            d = np.sort(d[d != 0.0])
            if d.size == 0:
                continue
            total = float(d.sum())
            magnitudes = np.abs(d)
            if np.all(magnitudes == magnitudes[0]):
                wins = int(np.count_nonzero(d > 0.0))
                p = _equal_size_pvalue(int(d.size), 2 * wins - int(d.size))
            else:
                key = d.tobytes()
                if key not in seen:
                    seen[key] = pvalue_of(d)
                p = seen[key]
            significant = p < alpha
            beats[i, j] = significant and total > 0.0
            beats[j, i] = significant and total < 0.0
    return beats


def stratum_ranks(
    X: npt.ArrayLike,
    W: npt.ArrayLike,
    alpha: float = 0.05,
    *,
    min_tasks: int = SMALL_N,
) -> TieRanks:
    """``(rank_lo, rank_hi)`` of every entrant (row of ``X``) on one stratum's tasks; ``W``:
    B x n resample counts, each row summing to n (see the module docstring)."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    x = np.asarray(X, dtype=np.float64)
    w = np.asarray(W, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 1 or x.shape[1] < 1:
        raise ValueError(f"X must be entrants x tasks (2-D, non-empty), got shape {x.shape}")
    if w.ndim != 2 or w.shape[1] != x.shape[1]:
        raise ValueError(f"W must be resamples x {x.shape[1]} tasks, got shape {w.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("X must hold finite task values")
    n = x.shape[1]
    if n >= min_tasks:
        M = (w * (1.0 / n)) @ x.T
        return ranks_from_beats(beats_matrix(M, alpha))
    if np.all((x == 0.0) | (x == 1.0)):
        return ranks_from_beats(_binary_beats(x, alpha))
    return ranks_from_beats(_general_beats(x, alpha, sign_flip_pvalue))


__all__ = ["stratum_ranks"]
