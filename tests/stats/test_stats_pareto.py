"""Pareto known answers (docs/METHODOLOGY.md): staircase, hull, duplicates, 3-D, membership."""

from __future__ import annotations

import numpy as np
import pytest

from bench.stats import (
    frontier_probability,
    non_dominated,
    resample_matrix,
    staircase,
    upper_hull,
    weighted_quantile_rows,
)

COST = [1.0, 2.0, 3.0, 4.0]
ACC = [0.5, 0.6, 0.55, 0.9]


def test_staircase_known_answer() -> None:
    assert staircase(COST, ACC) == [0, 1, 3]


def test_hull_known_answer() -> None:
    assert upper_hull(COST, ACC) == [0, 3]


def test_duplicates_both_on_the_frontier() -> None:
    cost, acc = [1.0, 1.0, 1.0, 2.0], [0.5, 0.5, 0.4, 0.5]
    assert non_dominated(acc, cost).tolist() == [True, True, False, False]
    assert staircase(cost, acc) == [0, 1]


def test_three_d_and_two_d_views() -> None:
    q = [0.5, 0.6, 0.55, 0.9, 0.6]
    cost = [1.0, 2.0, 3.0, 4.0, 2.5]
    p95 = [10.0, 30.0, 5.0, 60.0, 40.0]
    assert np.flatnonzero(non_dominated(q, cost, p95)).tolist() == [0, 1, 2, 3]
    assert np.flatnonzero(non_dominated(q, cost)).tolist() == [0, 1, 3]
    assert np.flatnonzero(non_dominated(q, p95)).tolist() == [1, 2, 3]


def test_unmeasured_cost_is_refused_not_zero() -> None:
    with pytest.raises(ValueError, match="unmeasured"):
        non_dominated([0.5, 0.6], [1.0, float("nan")])


def test_frontier_probability_counts_resamples() -> None:
    q = np.array([[0.5, 0.6], [0.7, 0.6], [0.5, 0.6], [0.5, 0.6]])
    c = np.array([[1.0, 1.0]] * 4)
    probability, dominated = frontier_probability(q, c)
    assert probability.tolist() == [0.25, 0.75]
    assert dominated.tolist() == [False, False]
    probability, dominated = frontier_probability(q[[0, 2, 3]], c[:3])
    assert probability.tolist() == [0.0, 1.0]
    assert dominated.tolist() == [True, False]


def test_weighted_quantile_matches_numpy_inverted_cdf() -> None:
    rng = np.random.default_rng(3)
    values = rng.exponential(size=40)
    groups = np.repeat(np.arange(20), 2)
    W = resample_matrix(["a"] * 10 + ["b"] * 10, 50, seed=7)
    got = weighted_quantile_rows(values.tolist(), groups.tolist(), W)
    for b in range(W.shape[0]):
        expanded = np.repeat(values, W[b, groups].astype(np.int64))
        want = np.percentile(expanded, 95, method="inverted_cdf")
        assert got[b] == want
