"""The fast paths of ranks and frontiers decide exactly what the plain definitions decide.

References are the straightforward formulas of docs/METHODOLOGY.md (ranks, frontier), on random
matrices with many ties (values on a coarse grid, duplicated columns, signed zeros).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from bench.stats import frontier_probability, non_dominated, tie_ranks, weighted_quantile_rows
from bench.stats.ranks import beats_matrix, greater_counts


def ref_greater_counts(m: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    E = m.shape[1]
    return np.array([[int(np.sum(m[:, i] > m[:, j])) for j in range(E)] for i in range(E)])


def ref_dominated(o: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    E = o.shape[0]
    return np.array(
        [
            any(np.all(o[j] <= o[i]) and np.any(o[j] < o[i]) for j in range(E) if j != i)
            for i in range(E)
        ]
    )


def ref_weighted_quantile(
    v: list[float], g: list[int], W: npt.NDArray[np.int64], q: float
) -> npt.NDArray[np.float64]:
    out = []
    pct = round(q * 100)
    for row in W:
        pairs = sorted((x, int(row[k])) for x, k in zip(v, g, strict=True))
        total = sum(c for _, c in pairs)
        running = 0
        for x, c in pairs:
            running += c
            if running * 100 >= pct * total:
                out.append(x)
                break
    return np.array(out)


def tied_matrix(rng: np.random.Generator, B: int, E: int) -> npt.NDArray[np.float64]:
    m = rng.integers(0, 5, size=(B, E)) / 4.0
    if E > 2:
        m[:, 1] = m[:, 0]  # two identical entrants
        m[: B // 2, 2] = -0.0  # signed zeros compare equal to 0.0
    return m


@pytest.mark.parametrize(("B", "E"), [(1, 1), (5, 2), (9, 3), (300, 12), (2041, 7), (4097, 20)])
def test_greater_counts_match_the_definition(B: int, E: int) -> None:
    rng = np.random.default_rng(B * 100 + E)
    for m in (tied_matrix(rng, B, E), rng.normal(size=(B, E))):
        assert np.array_equal(greater_counts(m), ref_greater_counts(m))


def test_beats_and_ranks_match_the_definition() -> None:
    rng = np.random.default_rng(3)
    for _ in range(5):
        base = rng.normal(size=(1, 15)) * 0.05
        m = np.round(base + rng.normal(size=(400, 15)) * 0.02, 2)
        m[:, 3] = m[:, 4]
        n_gt = ref_greater_counts(m)
        expected = n_gt > (1.0 - 0.05 / 2.0) * 400
        assert np.array_equal(beats_matrix(m), expected)
        lo = [1 + int(expected[:, i].sum()) for i in range(15)]
        hi = [15 - int(expected[i, :].sum()) for i in range(15)]
        assert tie_ranks(m) == (tuple(lo), tuple(hi))


@pytest.mark.parametrize("E", [1, 2, 5, 30, 80])
def test_non_dominated_matches_the_definition(E: int) -> None:
    rng = np.random.default_rng(E)
    for k in (1, 2, 3):
        o = rng.integers(0, 4, size=(E, k)).astype(float)
        if E > 3:
            o[1] = o[0]  # duplicates: neither dominates the other
        o[0, 0] = -0.0
        expected = ~ref_dominated(np.column_stack([-o[:, 0], o[:, 1:]]))
        assert np.array_equal(non_dominated(o[:, 0], *o[:, 1:].T), expected)


@pytest.mark.parametrize("seed", range(6))
def test_the_frontier_sweep_matches_the_definition(seed: int) -> None:
    from bench.stats.pareto import _dominated_sweep

    rng = np.random.default_rng(seed)
    for _ in range(60):
        E, K = int(rng.integers(1, 45)), int(rng.integers(1, 4))
        o = rng.integers(0, int(rng.integers(1, 6)), size=(E, K)).astype(float)
        if E > 3:
            o[2] = o[1]  # duplicates: neither dominates the other
            o[3, 0] = -0.0 if o[3, 0] == 0.0 else o[3, 0]
        assert np.array_equal(_dominated_sweep(o), ref_dominated(o)), o


def test_frontier_probability_matches_per_resample_definition() -> None:
    rng = np.random.default_rng(5)
    B, E = 40, 25
    q, c, lat = (rng.integers(0, 5, size=(B, E)) / 4.0 for _ in range(3))
    q[:, 7], c[:, 7], lat[:, 7] = q[:, 6], c[:, 6], lat[:, 6]
    counts = np.zeros(E)
    for b in range(B):
        counts += ~ref_dominated(np.column_stack([-q[b], c[b], lat[b]]))
    prob, dom = frontier_probability(q, c, lat, level=0.9)
    assert np.array_equal(prob, counts / B)
    assert np.array_equal(dom, counts / B <= 1.0 - 0.9)


@pytest.mark.parametrize("q", [0.5, 0.9, 0.95, 0.99, 1.0])
@pytest.mark.parametrize(("n", "groups"), [(1, 1), (60, 9), (400, 40), (1500, 300)])
@pytest.mark.parametrize("degenerate", [False, True])
def test_weighted_quantile_matches_the_definition(
    q: float, n: int, groups: int, degenerate: bool
) -> None:
    rng = np.random.default_rng(int(q * 100) + n)
    v = rng.integers(0, 40, size=n).astype(float).tolist()  # tied latencies
    g = rng.integers(0, groups, size=n).tolist()
    W = rng.integers(1, 3, size=(60, groups))
    if degenerate:  # the full count: the top eighth does not settle every resample
        W[0] = 0  # an empty resample
        W[1, :] = 0
        W[1, g[int(np.argmin(v))]] = 5  # only the fastest task's group drawn
    got = weighted_quantile_rows(v, g, W, q)
    assert np.array_equal(got, ref_weighted_quantile(v, g, W, q))


def test_weighted_quantile_takes_the_short_count_when_it_settles() -> None:
    rng = np.random.default_rng(9)
    v = rng.exponential(2.0, size=1500)
    g = np.repeat(np.arange(300), 5)
    W = rng.integers(0, 3, size=(200, 300))
    calls: list[tuple[int, ...]] = []
    real = np.cumsum

    def spy(a: npt.NDArray[np.int64], *args: object, **kw: object) -> object:
        calls.append(a.shape)
        return real(a, *args, **kw)  # type: ignore[call-overload]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(np, "cumsum", spy)
        got = weighted_quantile_rows(v.tolist(), g.tolist(), W, 0.95)
    assert calls == [(1500 // 8, 200)]
    assert np.array_equal(got, ref_weighted_quantile(v.tolist(), g.tolist(), W, 0.95))
