"""Stage 2a: the statistics of one cohort, all on one shared seeded stratified ``W``.

Input: the cohort's ranked entries and the tasks every one of them scored (sorted ids). Output:
plain values per entry (headline, family scores, ranks, pass^k, flakiness, resampled cost and
latency, frontier membership). The known answers are in tests/board (docs/METHODOLOGY.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .entries import EntryInput, p95_point
from .model import Estimate, FamilyScore

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class CohortStats:
    headline: list[Estimate]
    analytic_se: list[float]
    pooled: list[float]
    families: list[list[FamilyScore]]
    rank_lo: list[int]
    rank_hi: list[int]
    pass_hat: list[Estimate | None]
    flakiness: list[Estimate | None]
    probability: list[float | None]
    dominated: list[bool]
    on_frontier: list[bool]


def _estimate(value: float, lo: float, hi: float, method: str) -> Estimate:
    """The percentile interval ``[lo, hi]`` clipped to [0, 1] and made to hold the value."""
    return Estimate(
        value=value, lo=min(max(lo, 0.0), value), hi=max(min(hi, 1.0), value), method=method
    )


def _constant(value: float, values: Floats, level: float) -> Estimate:
    """Degenerate resamples: Wilson when every value is the same 0 or 1, else a point."""
    from bench.stats import wilson

    if value in (0.0, 1.0):
        lo, hi = wilson(int(round(value * values.size)), int(values.size), level)
        return Estimate(value=value, lo=lo, hi=hi, method="Wilson (bootstrap degenerate)")
    return Estimate(value=value, lo=value, hi=value, method="point (every family constant)")


def _linear(
    X: Floats,
    Ww: Floats,
    w: Floats,
    level: float,
    families_const: Sequence[bool],
    M: Floats | None = None,
) -> list[Estimate]:
    """Estimates of ``X @ w`` with percentile intervals from ``M = Ww @ X.T`` (computed here
    unless given); the quantiles of every column in one call (the same numbers as one by one)."""
    import numpy as np

    if M is None:
        M = Ww @ X.T
    a = (1.0 - level) / 2.0
    varying = [i for i in range(X.shape[0]) if not families_const[i]]
    bounds = np.quantile(M[:, varying], [a, 1.0 - a], axis=0) if varying else None
    column = {i: k for k, i in enumerate(varying)}
    out = []
    for i in range(X.shape[0]):
        value = float(X[i] @ w)
        if families_const[i]:
            out.append(_constant(value, X[i], level))
        else:
            assert bounds is not None
            lo, hi = (float(x) for x in bounds[:, column[i]])
            out.append(_estimate(value, lo, hi, "stratified bootstrap percentile"))
    return out


HEADLINE_METHOD = "stratified bootstrap-t (studentised)"


def _headline(
    X: Floats,
    W: npt.NDArray[np.float64],
    fams: Sequence[str],
    w: Floats,
    M: Floats,
    level: float,
    families_const: Sequence[bool],
) -> list[Estimate]:
    """The headline of every entry with the studentised interval of ``bench.stats`` (the
    function the one-run summary uses, on the same ``W`` and ``M``), every entry at once."""
    from bench.stats import studentized_bounds

    varying = [i for i in range(X.shape[0]) if not families_const[i]]
    column = {i: k for k, i in enumerate(varying)}
    if len(varying) == X.shape[0]:  # the usual case: no copy of M
        lo, hi, _ = studentized_bounds(X, fams, W, M, level)
    elif varying:
        lo, hi, _ = studentized_bounds(X[varying], fams, W, M[:, varying], level)
    out = []
    for i in range(X.shape[0]):
        value = float(X[i] @ w)
        if families_const[i]:
            out.append(_constant(value, X[i], level))
        else:
            k = column[i]
            out.append(_estimate(value, float(lo[k]), float(hi[k]), HEADLINE_METHOD))
    return out


def cohort_stats(
    entries: Sequence[EntryInput],
    tasks: Sequence[str],
    *,
    B: int,
    seed: int,
    frontier_B: int,
    level: float,
) -> CohortStats:
    import numpy as np

    from bench.stats import (
        family_columns,
        frontier_probability,
        non_dominated,
        resample_matrix,
        task_weights,
        tie_ranks,
        weighted_quantile_rows,
    )
    from bench.stats.ranks import min_resamples

    fams = [entries[0].families[t] for t in tasks]
    X = np.array([[e.values[t] for t in tasks] for e in entries], dtype=np.float64)
    W = resample_matrix(fams, B, seed)
    w = task_weights(fams)
    Ww = W * w
    columns = family_columns(fams)
    const = [all(np.ptp(X[i, c]) == 0.0 for c in columns.values()) for i in range(len(entries))]
    M = Ww @ X.T
    headline = _headline(X, W, fams, w, M, level, const)
    F = len(columns)
    analytic = [
        float(np.sqrt(sum(np.var(X[i, c]) / c.size for c in columns.values())) / F)
        for i in range(len(entries))
    ]
    families: list[list[FamilyScore]] = [[] for _ in entries]
    for f, c in columns.items():
        wf = np.full(c.size, 1.0 / c.size)
        fconst = [bool(np.ptp(X[i, c]) == 0.0) for i in range(len(entries))]
        for i, est in enumerate(_linear(X[:, c], W[:, c] * wf, wf, level, fconst)):
            families[i].append(FamilyScore(family=f, n=int(c.size), score=est))
    ranks = tie_ranks(M, 1.0 - level, X=X, weights=w.tolist())

    def optional(table: Sequence[Mapping[str, float]]) -> list[Estimate | None]:
        chosen = [
            i
            for i, (e, values) in enumerate(zip(entries, table, strict=True))
            if e.repeats >= 2 and all(t in values for t in tasks)
        ]
        out: list[Estimate | None] = [None] * len(entries)
        if not chosen:
            return out
        rows = np.array([[table[i][t] for t in tasks] for i in chosen], dtype=np.float64)
        const = [bool(np.ptp(r) == 0.0) for r in rows]
        # One matrix product for all entries, as for the headline (docs/DECISIONS.md: an
        # interval end may differ from a one-entry computation in the last bit, ~1e-16).
        for i, est in zip(chosen, _linear(rows, Ww, w, level, const), strict=True):
            out[i] = est
        return out

    pass_hat = optional([e.pass_hat for e in entries])
    flaky = optional([e.flaky for e in entries])

    # Frontier membership: quality, cost per run and p95 latency recomputed per resample
    # on the first frontier_B rows of the same W. Unmeasured cost keeps an entry out.
    Wf = W[: min(frontier_B, B)]
    # Transposed once, in the integer type weighted_quantile_rows reads: it then copies nothing.
    WfT = np.ascontiguousarray(Wf.T, dtype=np.int64)
    index = {t: k for k, t in enumerate(tasks)}
    measured = [i for i, e in enumerate(entries) if e.costs is not None and e.latencies]
    probability: list[float | None] = [None] * len(entries)
    dominated = [False] * len(entries)
    on_frontier = [False] * len(entries)
    if measured:
        q = M[: Wf.shape[0], measured]
        cost_cols, lat_cols, q_point, c_point, l_point = [], [], [], [], []
        for i in measured:
            e = entries[i]
            assert e.costs is not None
            c = np.array([e.costs.get(t, 0.0) for t in tasks])
            full = sum(e.costs.values())
            cost_cols.append(Wf @ c + (full - float(c.sum())))
            lat = [(index[t], s) for t, s in e.latencies if t in index]
            lat_cols.append(
                weighted_quantile_rows([s for _, s in lat], [k for k, _ in lat], WfT.T)
                if lat
                else np.zeros(Wf.shape[0])
            )
            q_point.append(headline[i].value)
            c_point.append(full)
            l_point.append(p95_point(e))
        prob, dom = frontier_probability(
            q, np.stack(cost_cols, axis=1), np.stack(lat_cols, axis=1), level=level
        )
        if Wf.shape[0] < min_resamples(1.0 - level):  # a handful of resamples marks nothing
            dom = np.zeros_like(dom)
        front = non_dominated(q_point, c_point, l_point)
        for k, i in enumerate(measured):
            probability[i] = float(prob[k])
            dominated[i] = bool(dom[k])
            on_frontier[i] = bool(front[k])
    return CohortStats(
        headline=headline,
        analytic_se=analytic,
        pooled=[float(X[i].mean()) for i in range(len(entries))],
        families=families,
        rank_lo=list(ranks.rank_lo),
        rank_hi=list(ranks.rank_hi),
        pass_hat=pass_hat,
        flakiness=flaky,
        probability=probability,
        dominated=dominated,
        on_frontier=on_frontier,
    )


__all__ = ["CohortStats", "cohort_stats"]
