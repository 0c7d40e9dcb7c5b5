"""A family whose task values are all alike adds the same to every resample whatever its picks:
``plain_studentized`` skips its sums (and its draws after the last family whose picks matter)
and gives, to the bit, what drawing and summing every pick gives."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.stats.draws import Draws
from bench.stats.plainboot import (
    GAP_TOLERANCE,
    pivot_cap,
    plain_columns,
    plain_studentized,
    quantile,
)


def every_pick(
    x: list[float], columns: dict[str, list[int]], B: int, seed: int, level: float
) -> tuple[float, float, float]:
    """The statistic with every family's picks drawn and summed (the loop as it was)."""
    cols = list(columns.values())
    F = len(cols)
    means = [math.fsum(x[t] for t in c) / len(c) for c in cols]
    h = math.fsum(means) / F
    alpha, cap, draws = (1.0 - level) / 2.0, pivot_cap(level), Draws(seed)
    resampled, variance, total_sq = [0.0] * B, [0.0] * B, 0.0
    for c, mean in zip(cols, means, strict=True):
        n, values = len(c), [x[t] for t in c]
        weight = 1.0 / (F * n)
        if n < 2:
            for b in range(B):
                resampled[b] += values[0] * weight
            continue
        dev = [v - mean for v in values]
        share = 1.0 / (n * (n - 1) * F * F)
        squares = [d * d * share for d in dev]
        total_sq += math.fsum(squares)
        scale = 1.0 / (n * F * math.sqrt(n - 1))
        picks_all = draws.integers(n, B * n)
        for b in range(B):
            picks = picks_all[b * n : b * n + n]
            resampled[b] += sum(map(values.__getitem__, picks)) * weight
            shift = sum(map(dev.__getitem__, picks)) * scale
            variance[b] += sum(map(squares.__getitem__, picks)) - shift * shift
    se = math.sqrt(total_sq)
    pivots = []
    for m, v in zip(resampled, variance, strict=True):
        spread = math.sqrt(max(v, 0.0))
        gap = 0.0 if abs(m - h) <= GAP_TOLERANCE else m - h
        if spread != 0.0:
            pivots.append(min(cap, max(-cap, gap / spread)))
        else:
            pivots.append(0.0 if gap == 0.0 else math.copysign(cap, gap))
    pivots.sort()
    lo = hi = h
    if se != 0.0:
        lo, hi = h - quantile(pivots, 1.0 - alpha) * se, h - quantile(pivots, alpha) * se
    centre = math.fsum(resampled) / B
    boot = math.sqrt(math.fsum((m - centre) ** 2 for m in resampled) / (B - 1)) if B > 1 else 0.0
    return lo, hi, boot


ALIKE = st.sampled_from([0.0, 1.0, 2 / 3, 0.1, 1 / 3])
MIXED = st.sampled_from([0.0, 1.0, 0.5, 1 / 3, 0.7, 0.125])


@st.composite
def families(draw: st.DrawFn) -> tuple[list[float], list[str]]:
    values: list[float] = []
    names: list[str] = []
    for f in range(draw(st.integers(1, 6))):
        n = draw(st.integers(1, 14))
        if draw(st.booleans()):
            values += [draw(ALIKE)] * n
        else:
            values += draw(st.lists(MIXED, min_size=n, max_size=n))
        names += [f"family-{f}"] * n
    return values, names


@settings(max_examples=120, deadline=None)
@given(tasks=families(), B=st.sampled_from([1, 2, 57, 400]), seed=st.integers(0, 2**40))
def test_alike_families_give_what_every_pick_gives_to_the_bit(
    tasks: tuple[list[float], list[str]], B: int, seed: int
) -> None:
    values, names = tasks
    columns = plain_columns(names)
    got = plain_studentized(values, columns, B, seed, 0.95)
    want = every_pick(values, columns, B, seed, 0.95)
    assert [v.hex() for v in got] == [v.hex() for v in want]


def test_no_picks_are_drawn_after_the_last_family_whose_picks_matter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    drawn: list[int] = []
    real = Draws.integers

    def counted(self: Draws, n: int, count: int) -> list[int]:
        drawn.append(n)
        return real(self, n, count)

    monkeypatch.setattr(Draws, "integers", counted)
    # sorted: a (alike, before the mixed one: drawn to keep the stream), b (mixed), c and d
    # (alike, after it: not drawn)
    names = ["a"] * 5 + ["b"] * 4 + ["c"] * 6 + ["d"] * 3
    values = [0.0] * 5 + [0.0, 1.0, 0.5, 1.0] + [1.0] * 6 + [0.0] * 3
    columns = plain_columns(names)
    got = plain_studentized(values, columns, 300, 11, 0.95)
    assert drawn == [5, 4]
    assert [v.hex() for v in got] == [v.hex() for v in every_pick(values, columns, 300, 11, 0.95)]
    drawn.clear()
    assert plain_studentized([0.0] * 18, columns, 300, 11, 0.95)[:2] == (0.0, 0.0)
    assert drawn == []  # every family alike: nothing to draw
