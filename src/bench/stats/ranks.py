"""Tie-aware ranks from the shared paired bootstrap (STATISTICS.md section (b)).

Rule, for a B x E matrix ``M`` of bootstrap headlines (one shared ``W``):

1. ``n_gt[i, j] = #{b : M[b, i] > M[b, j]}``; **i beats j** iff ``n_gt[i, j] > (1 - alpha/2) B``.
   Two identical entrants are tied.
2. Small-n guard: when the entrants share fewer than ``min_tasks`` (30) tasks and their task
   values ``X`` are given, i beats j iff the sign-flip test of the weighted task differences has
   ``p < alpha`` and the difference is positive (``paired.sign_flip_pvalue``).
3. ``rank_lo = 1 + #{j : j beats i}``, ``rank_hi = E - #{j : i beats j}``. Print ``rank_lo``;
   sort by ``(rank_lo, -headline, id)``; show ``rank_lo``-``rank_hi``.

"Indistinguishable" is not transitive, so ranks are intervals, not tie classes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from .paired import SMALL_N, sign_flip_pvalue


class TieRanks(NamedTuple):
    rank_lo: tuple[int, ...]
    rank_hi: tuple[int, ...]


def _matrix(M: npt.ArrayLike) -> npt.NDArray[np.float64]:
    m = np.asarray(M, dtype=np.float64)
    if m.ndim != 2 or m.shape[0] < 1 or m.shape[1] < 1:
        raise ValueError(f"M must be resamples x entrants (2-D, non-empty), got shape {m.shape}")
    if not np.all(np.isfinite(m)):
        raise ValueError("M must hold finite bootstrap headlines")
    return m


def beats_matrix(
    M: npt.ArrayLike,
    alpha: float = 0.05,
    *,
    X: npt.ArrayLike | None = None,
    weights: Sequence[float] | None = None,
    min_tasks: int = SMALL_N,
) -> npt.NDArray[np.bool_]:
    """E x E: ``beats[i, j]`` is True when entrant i beats entrant j (see module docstring)."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    m = _matrix(M)
    B, E = m.shape
    n_gt = np.stack([np.count_nonzero(m[:, [i]] > m, axis=0) for i in range(E)])
    beats: npt.NDArray[np.bool_] = n_gt > (1.0 - alpha / 2.0) * B
    if X is None:
        return beats
    x = np.asarray(X, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] != E:
        raise ValueError(f"X must be entrants x tasks with {E} rows, got shape {x.shape}")
    if x.shape[1] >= min_tasks:
        return beats
    w = np.full(x.shape[1], 1.0) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (x.shape[1],):
        raise ValueError(f"weights must have one entry per task ({x.shape[1]})")
    for i in range(E):
        for j in range(i + 1, E):
            d = w * (x[i] - x[j])
            significant = sign_flip_pvalue(d) < alpha
            total = float(d.sum())
            beats[i, j] = significant and total > 0.0
            beats[j, i] = significant and total < 0.0
    return beats


def ranks_from_beats(beats: npt.ArrayLike) -> TieRanks:
    b = np.asarray(beats, dtype=bool)
    E = b.shape[0]
    lo = tuple(int(1 + np.count_nonzero(b[:, i])) for i in range(E))
    hi = tuple(int(E - np.count_nonzero(b[i, :])) for i in range(E))
    return TieRanks(rank_lo=lo, rank_hi=hi)


def tie_ranks(
    M: npt.ArrayLike,
    alpha: float = 0.05,
    *,
    X: npt.ArrayLike | None = None,
    weights: Sequence[float] | None = None,
    min_tasks: int = SMALL_N,
) -> TieRanks:
    """``(rank_lo, rank_hi)`` of every entrant (column of ``M``)."""
    return ranks_from_beats(beats_matrix(M, alpha, X=X, weights=weights, min_tasks=min_tasks))


__all__ = ["TieRanks", "beats_matrix", "ranks_from_beats", "tie_ranks"]
