"""Tie-aware ranks from the shared paired bootstrap (docs/METHODOLOGY.md, "Ranks").

Rule, for a B x E matrix ``M`` of bootstrap headlines (one shared ``W``):

1. ``n_gt[i, j] = #{b : M[b, i] > M[b, j]}``; **i beats j** iff ``n_gt[i, j] > (1 - alpha/2) B``.
   Two identical entrants are tied.
2. Small-n guard: when the entrants share fewer than ``min_tasks`` (30) tasks and their task
   values ``X`` are given, i beats j iff the sign-flip test of the weighted task differences has
   ``p < alpha`` and the difference is positive (``paired.sign_flip_pvalue``).
3. ``rank_lo = 1 + #{j : j beats i}``, ``rank_hi = E - #{j : i beats j}``. Print ``rank_lo``;
   sort by ``bench.reports.order.order_key`` (rank_lo, the headline as shown, entrant id, run
   id); show ``rank_lo``-``rank_hi``.

"Indistinguishable" is not transitive, so ranks are intervals, not tie classes.

Too few resamples decide nothing: the bootstrap rule needs at least ``MIN_TAIL`` resamples in
the tail it tests (``min_resamples(alpha / 2)``: 200 at alpha 0.05). Below that, "ahead in
more than 97.5 % of them" is a handful of resamples (at B = 1, one), so no pair is decided by
the bootstrap; the small-n sign-flip test, which does not use ``M``, still decides.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from .paired import SMALL_N, sign_flip_pvalue

MIN_TAIL = 5
"""Resamples a bootstrap decision needs in the tail it tests (a rank's ``alpha / 2``, the
frontier's "dominated" ``1 - level``) before it may decide anything."""


def min_resamples(tail: float) -> int:
    """The fewest resamples ``B`` with ``MIN_TAIL`` of them in a tail of share ``tail``:
    200 for a rank at alpha 0.05 (tail 0.025), 100 for "dominated with 95 % confidence"."""
    if not 0.0 < tail < 1.0:
        raise ValueError(f"tail must be in (0, 1), got {tail}")
    return math.ceil(MIN_TAIL / tail - 1e-9)


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


_BLOCK = 2040  # resamples per pass: a multiple of 8, and at most 255 words of 8 bytes per lane


def dense_row_ranks(m: npt.NDArray[np.float64]) -> npt.NDArray[np.signedinteger]:
    """Per row, each value's rank among the row's distinct values (0, 1, ...): order-preserving
    and tie-preserving, so ``r[b, i] > r[b, j]`` exactly when ``m[b, i] > m[b, j]``."""
    B, E = m.shape
    dtype = np.int16 if np.iinfo(np.int16).max >= E else np.int32
    order = np.argsort(m, axis=1, kind="stable")
    ordered = np.take_along_axis(m, order, axis=1)
    step = np.zeros((B, E), dtype=dtype)
    np.not_equal(ordered[:, 1:], ordered[:, :-1], out=step[:, 1:], casting="unsafe")
    np.cumsum(step, axis=1, out=step)
    ranks = np.empty((B, E), dtype=dtype)
    np.put_along_axis(ranks, order, step, axis=1)
    return ranks


def greater_counts(m: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """``n_gt[i, j] = #{b : m[b, i] > m[b, j]}`` for a B x E matrix of finite values.

    Compares small-integer row ranks (same decisions as the floats) one block of resamples at a
    time, entrant by entrant, into a reused boolean buffer; counts the booleans eight bytes at
    a time (at most 255 per byte lane, so no lane overflows)."""
    B, E = m.shape
    ranks_t = np.ascontiguousarray(dense_row_ranks(m).T)  # E x B: one entrant per row
    n_gt = np.zeros((E, E), dtype=np.int64)
    buffer = np.empty((E, _BLOCK), dtype=bool)
    for start in range(0, B, _BLOCK):
        part = ranks_t[:, start : start + _BLOCK]
        width = -(-part.shape[1] // 8) * 8
        if width != part.shape[1]:  # pad with one shared value: the padding is never greater
            pad = np.zeros((E, width - part.shape[1]), dtype=part.dtype)
            part = np.concatenate([part, pad], axis=1)
        else:
            part = np.ascontiguousarray(part)
        flags = buffer[:, :width]
        lanes = np.empty(E, dtype=np.uint64)
        for i in range(E):
            np.greater(part[i], part, out=flags)
            np.add.reduce(flags.view(np.uint64), axis=1, dtype=np.uint64, out=lanes)
            n_gt[i] += lanes.view(np.uint8).reshape(E, 8).sum(axis=1, dtype=np.int64)
    return n_gt


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
    beats: npt.NDArray[np.bool_]
    if min_resamples(alpha / 2.0) > B:  # too few resamples to decide: every pair tied
        beats = np.zeros((E, E), dtype=bool)
    else:
        beats = greater_counts(m) > (1.0 - alpha / 2.0) * B
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


__all__ = [
    "MIN_TAIL",
    "TieRanks",
    "beats_matrix",
    "dense_row_ranks",
    "greater_counts",
    "min_resamples",
    "ranks_from_beats",
    "tie_ranks",
]
