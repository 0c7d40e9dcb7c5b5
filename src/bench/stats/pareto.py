"""Cost / quality / latency Pareto frontiers (docs/METHODOLOGY.md).

Quality is maximised; cost (dollars per run) and latency (p95 seconds) are minimised.
``j`` dominates ``i`` when it is at least as good on every objective and strictly better on one,
so two identical entries never dominate each other (both stay on the frontier).

- :func:`non_dominated` is the frontier in any number of objectives (2-D views and the 3-D one);
- :func:`staircase` gives the points of a 2-D frontier in drawing order;
- :func:`upper_hull` is the convex frontier, valid only for mean cost vs mean quality;
- :func:`frontier_probability` is the share of resamples in which each entry is non-dominated,
  from per-resample objective matrices computed with the same shared ``W``.

Entries whose cost is *not measured* are the caller's to list apart: nothing here reads a
missing cost as $0 (NaN inputs are refused).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float64]
Mask = npt.NDArray[np.bool_]


def _objectives(quality: npt.ArrayLike, *minimised: npt.ArrayLike) -> Matrix:
    """E x K matrix, every column oriented so that smaller is better."""
    q = np.asarray(quality, dtype=np.float64)
    if q.ndim != 1 or q.size == 0:
        raise ValueError(f"quality must be one value per entry (1-D, non-empty), got {q.shape}")
    columns = [-q]
    for axis in minimised:
        a = np.asarray(axis, dtype=np.float64)
        if a.shape != q.shape:
            raise ValueError(f"every objective needs {q.size} values, got shape {a.shape}")
        columns.append(a)
    objectives = np.stack(columns, axis=1)
    if not np.all(np.isfinite(objectives)):
        raise ValueError("objectives must be finite (list entries with unmeasured cost apart)")
    return objectives


def _multiplicity(objectives: Matrix) -> npt.NDArray[np.int64]:
    """How many entries (itself included) have exactly the same objectives as each entry."""
    E = objectives.shape[0]
    order = np.lexsort(objectives.T[::-1])
    ordered = objectives[order]
    starts = np.ones(E, dtype=bool)
    starts[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    group = np.cumsum(starts) - 1
    counts = np.bincount(group)
    result = np.empty(E, dtype=np.int64)
    result[order] = counts[group]
    return result


def _dominated(objectives: Matrix, buffers: tuple[Mask, Mask] | None = None) -> Mask:
    """``dominated[i]``: some j is <= i on every objective and < on one (smaller is better).

    j <= i on every objective and not equal on all of them, so i is dominated exactly when more
    entries are <= it everywhere than are equal to it (both counts include i itself).
    """
    E = objectives.shape[0]
    le, part = buffers if buffers is not None else (np.empty((E, E), bool), np.empty((E, E), bool))
    np.less_equal.outer(objectives[:, 0], objectives[:, 0], out=le)  # [j, i]: j <= i
    for k in range(1, objectives.shape[1]):
        np.less_equal.outer(objectives[:, k], objectives[:, k], out=part)
        le &= part
    result: Mask = np.count_nonzero(le, axis=0) > _multiplicity(objectives)
    return result


def _dominated_sweep(objectives: Matrix) -> Mask:
    """The same mask as :func:`_dominated`, in O(E F K) for a frontier of F entries.

    In lexicographic order (smaller is better) a dominator always comes before what it
    dominates, so an entry not yet marked when its turn comes is non-dominated (had some j
    dominated it, j or the frontier entry that dominates j came earlier and marked it); it
    then marks every later entry it dominates. Exact, with ties: identical entries never mark
    each other.
    """
    E = objectives.shape[0]
    order = np.lexsort(objectives.T[::-1])
    ordered = objectives[order]
    marked = np.zeros(E, dtype=bool)
    position = 0  # always an unmarked entry: one loop turn per frontier entry
    while True:
        later = ordered[position + 1 :]
        if not later.size:
            break
        beaten = np.all(later >= ordered[position], axis=1)
        beaten &= np.any(later > ordered[position], axis=1)
        rest = marked[position + 1 :]
        rest |= beaten
        step = int(np.argmin(rest))  # the next unmarked entry, if any
        if rest[step]:
            break
        position += 1 + step
    result = np.empty(E, dtype=bool)
    result[order] = marked
    return result


def non_dominated(quality: npt.ArrayLike, *minimised: npt.ArrayLike) -> Mask:
    """Boolean mask of entries no other entry dominates (quality up, every other axis down)."""
    return ~_dominated(_objectives(quality, *minimised))


def staircase(cost: npt.ArrayLike, quality: npt.ArrayLike) -> list[int]:
    """Indices of the 2-D frontier sorted by cost (then quality down): the staircase to draw."""
    c = np.asarray(cost, dtype=np.float64)
    q = np.asarray(quality, dtype=np.float64)
    members = np.flatnonzero(non_dominated(q, c))
    return sorted((int(i) for i in members), key=lambda i: (c[i], -q[i], i))


def upper_hull(cost: npt.ArrayLike, quality: npt.ArrayLike) -> list[int]:
    """Frontier vertices of the convex hull (mixing two entries at random reaches its edges).

    Valid for mean cost against mean quality only, never for a quantile such as p95 latency.
    """
    c = np.asarray(cost, dtype=np.float64)
    q = np.asarray(quality, dtype=np.float64)
    hull: list[int] = []
    for i in staircase(c, q):
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            cross = (c[b] - c[a]) * (q[i] - q[a]) - (q[b] - q[a]) * (c[i] - c[a])
            if cross < 0.0:  # b lies on or above the chord a-i: it stays
                break
            hull.pop()
        if hull and c[hull[-1]] == c[i] and q[hull[-1]] == q[i]:
            continue  # duplicates share one vertex
        hull.append(i)
    return hull


def frontier_probability(
    quality: npt.ArrayLike, *minimised: npt.ArrayLike, level: float = 0.95
) -> tuple[Matrix, Mask]:
    """Per entry, the share of resamples in which it is non-dominated, and whether it is
    *dominated with confidence* ``level`` (non-dominated in at most ``1 - level`` of them).

    Every argument is B x E: row b holds each entry's objective under resample b of the shared
    ``W``. Cost: O(B E F K) for frontiers of F entries (callers may pass the first rows of
    ``W`` only). The board marks nothing dominated below ``ranks.min_resamples(1 - level)``
    resamples (100 at 95 %): "in at most 5 % of them" would be a handful (at B = 1, one).
    """
    q = np.asarray(quality, dtype=np.float64)
    if q.ndim != 2:
        raise ValueError(f"quality must be resamples x entries (2-D), got shape {q.shape}")
    others = [np.asarray(m, dtype=np.float64) for m in minimised]
    E = q.shape[1]
    counts = np.zeros(E, dtype=np.int64)
    for b in range(q.shape[0]):
        counts += ~_dominated_sweep(_objectives(q[b], *(m[b] for m in others)))
    probability: Matrix = counts / q.shape[0]
    dominated: Mask = probability <= 1.0 - level
    return probability, dominated


def weighted_quantile_rows(
    values: Sequence[float], groups: Sequence[int], W: npt.ArrayLike, q: float = 0.95
) -> Matrix:
    """Per resample (row of ``W``, counts per group), the ``inverted_cdf`` quantile of ``values``
    where value k is repeated ``W[b, groups[k]]`` times. Used for p95 latency per resample.
    """
    v = np.asarray(values, dtype=np.float64)
    g = np.asarray(groups, dtype=np.intp)
    w = np.asarray(W, dtype=np.int64)
    order = np.argsort(v, kind="stable")
    wt = np.ascontiguousarray(w.T)  # one row per group: running sums are row additions
    total = np.bincount(g, minlength=wt.shape[0]) @ wt
    # smallest x with F(x) >= q: the first sorted position whose running weight times 100
    # reaches Q * total (Q a whole percent); in integers, the answer's position is the number
    # of positions whose running weight is below ceil(Q * total / 100)
    threshold = -((-int(np.rint(q * 100)) * total) // 100)
    n = v.size
    # The weight strictly above a position is below total - threshold exactly when the
    # position is at or past the answer. Sum from the top first: when the top eighth of the
    # values already carries more than that weight, every position below it is before the answer
    # in every resample, and only the top eighth needs counting.
    m = max(1, n // 8)
    above = wt[g[order[::-1][:m]]]
    np.cumsum(above, axis=0, out=above)
    limit = total - threshold
    if m < n and np.all(above[-1] > limit):
        # position n-1-r has above[r-1] above it (nothing for r = 0, and 0 > limit never holds)
        below = (n - m) + np.count_nonzero(above[:-1] > limit, axis=0)
    else:
        running = wt[g[order]]
        np.cumsum(running, axis=0, out=running)
        below = np.count_nonzero(running < threshold, axis=0)
    result: Matrix = v[order][below]
    return result


__all__ = [
    "frontier_probability",
    "non_dominated",
    "staircase",
    "upper_hull",
    "weighted_quantile_rows",
]
