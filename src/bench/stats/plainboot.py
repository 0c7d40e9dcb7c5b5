"""The studentised (bootstrap-t) interval of one entrant's stratified headline in plain Python:
the same resamples as ``bootstrap.resample_matrix`` (``draws.Draws`` is numpy's generator draw
for draw) and the same statistic as ``studentized.studentized_bounds``, without numpy.

A run's summary has one entrant and, for a task set of ordinary size, few enough draws
(``PLAIN_DRAWS``) that looping over them costs about what importing numpy does, and numpy is
15 MiB of a run's memory (docs/PERFORMANCE.md, issue 19). Sums are taken in another order than
numpy's matrix products, so results agree with the numpy path to about 1e-16, not to the bit
(``tests/stats/test_stats_plainboot.py``); the board already accepts that between one entrant
and a whole cohort (docs/DECISIONS.md 46).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .draws import Draws

PLAIN_DRAWS = 600_000
"""Largest ``B x tasks`` bootstrapped in plain Python (300 tasks at B = 2,000, about 0.2 s of
CPU); larger task sets use numpy."""


ROW_DRAWS = 32_768
"""About how many picks a family draws at a time: whole resamples, enough for
``draws.Draws``' block path (``FAST_COUNT``), few enough that the picks held stay small."""


GAP_TOLERANCE = 1e-12
"""A resample's headline within this of the headline is the headline: sums of task values in
[0, 1] taken in another order differ by about 1e-16 per term, and a resample with no spread
(every family's picks alike) and a gap of 0 gets pivot 0 where one of rounding's sign gets
the cap. Without it, the plain and numpy paths gave one run of 10 tasks at B = 2,000 an upper
bound of 0.730 and 0.766: the pivot of such resamples was rounding noise, not the data."""


def pivot_cap(level: float) -> float:
    """The largest ``|T|`` used: Student's t quantile at ``1 - alpha/2`` with one degree of
    freedom (the Cauchy quantile ``cot(pi * alpha / 2)``, 12.706 at 95 %)."""
    return 1.0 / math.tan(math.pi * (1.0 - level) / 2.0)


def plain_columns(families: Sequence[str]) -> dict[str, list[int]]:
    """Task indices of each family, families in sorted order: the order the resample matrix's
    draws are made in (``bootstrap.family_columns`` is this, as numpy arrays)."""
    if len(families) == 0:
        raise ValueError("no tasks: families is empty")
    columns: dict[str, list[int]] = {}
    for t, family in enumerate(families):
        if not isinstance(family, str):
            raise ValueError(f"family of task {t} must be a string, got {family!r}")
        columns.setdefault(family, []).append(t)
    return {f: columns[f] for f in sorted(columns)}


def quantile(ordered: Sequence[float], q: float) -> float:
    """numpy's default (``linear``) quantile of already sorted values, its interpolation
    formula included (``a + (b - a) * g``, or ``b - (b - a) * (1 - g)`` when ``g >= 0.5``)."""
    n = len(ordered)
    index = (n - 1) * q
    if index >= n - 1:
        return ordered[-1]
    if index < 0:
        return ordered[0]
    below = math.floor(index)
    gamma = index - below
    a, b = ordered[below], ordered[below + 1]
    diff = b - a
    if gamma >= 0.5:
        return b - diff * (1 - gamma)
    return a + diff * gamma


def plain_studentized(
    x: Sequence[float],
    columns: dict[str, list[int]],
    B: int,
    seed: int,
    level: float,
) -> tuple[float, float, float]:
    """``(lo, hi, bootstrap SE)`` for task values ``x`` grouped by ``plain_columns``: the bounds
    ``studentized_bounds`` gives one entrant (not clipped; ``lo = hi = h`` when its SE is 0)
    and the standard deviation (ddof 1) of its ``B`` bootstrap headlines."""
    cols = list(columns.values())
    F = len(cols)
    means = [math.fsum(x[t] for t in c) / len(c) for c in cols]
    h = math.fsum(means) / F
    alpha = (1.0 - level) / 2.0
    cap = pivot_cap(level)
    draws = Draws(seed)
    resampled = [0.0] * B  # each resample's headline
    variance = [0.0] * B  # each resample's estimated variance of it
    total_sq = 0.0
    # A family whose task values are all equal adds the same to every resample whatever its
    # picks (n equal terms summed in one order), so its picks are only drawn to keep the stream
    # where numpy's is for the families after it, and not at all after the last family whose
    # picks matter.
    alike = [len({x[t] for t in c}) == 1 for c in cols]
    matter = [len(c) >= 2 and not same for c, same in zip(cols, alike, strict=True)]
    last_drawn = max((f for f, m in enumerate(matter) if m), default=-1)
    for f, (c, mean) in enumerate(zip(cols, means, strict=True)):
        n = len(c)
        values = [x[t] for t in c]
        weight = 1.0 / (F * n)
        if n < 2:  # one task: no variance to estimate, and it is its own mean (no draws)
            for b in range(B):
                resampled[b] += values[0] * weight
            continue
        dev = [v - mean for v in values]
        # share of the headline's variance per squared deviation: 1 / (n (n - 1) F^2)
        share = 1.0 / (n * (n - 1) * F * F)
        squares = [d * d * share for d in dev]
        total_sq += math.fsum(squares)
        scale = 1.0 / (n * F * math.sqrt(n - 1))
        rows = max(1, ROW_DRAWS // n)  # picks drawn this many resamples at a time
        if alike[f]:
            if f < last_drawn:
                for first in range(0, B, rows):
                    draws.integers(n, min(rows, B - first) * n)
            added = sum(values) * weight
            shift = sum(dev) * scale
            spread_part = sum(squares) - shift * shift
            for b in range(B):
                resampled[b] += added
                variance[b] += spread_part
            continue
        for first in range(0, B, rows):
            # row b is picks b*n .. b*n+n-1, as numpy's; successive calls continue the stream
            # as one call would, and hold a few rows' picks at a time, not B rows'
            chunk = draws.integers(n, min(rows, B - first) * n)
            for b, at in zip(range(first, B), range(0, len(chunk), n), strict=False):
                picks = chunk[at : at + n]
                resampled[b] += sum(map(values.__getitem__, picks)) * weight
                shift = sum(map(dev.__getitem__, picks)) * scale
                variance[b] += sum(map(squares.__getitem__, picks)) - shift * shift
    se = math.sqrt(total_sq)
    pivots = []
    for m, v in zip(resampled, variance, strict=True):
        spread = math.sqrt(max(v, 0.0))
        gap = m - h
        if abs(gap) <= GAP_TOLERANCE:
            gap = 0.0
        if spread != 0.0:
            pivots.append(min(cap, max(-cap, gap / spread)))
        else:  # no spread: the pivot's sign at the cap, or 0 where the resample is the point
            pivots.append(0.0 if gap == 0.0 else math.copysign(cap, gap))
    pivots.sort()
    if se == 0.0:
        lo = hi = h
    else:
        lo = h - quantile(pivots, 1.0 - alpha) * se
        hi = h - quantile(pivots, alpha) * se
    if B > 1:
        centre = math.fsum(resampled) / B
        bootstrap_se = math.sqrt(math.fsum((m - centre) ** 2 for m in resampled) / (B - 1))
    else:
        bootstrap_se = 0.0
    return lo, hi, bootstrap_se


__all__ = [
    "GAP_TOLERANCE",
    "PLAIN_DRAWS",
    "pivot_cap",
    "plain_columns",
    "plain_studentized",
    "quantile",
]
