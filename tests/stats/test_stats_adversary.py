"""The statistics against a submitter who games them (docs/METHODOLOGY.md, "Ranks" and "Cost,
latency and the Pareto frontier"): too few resamples must decide nothing, and other entrants
must not change a pair's decision."""

from __future__ import annotations

import numpy as np
import pytest

from bench.stats import headline_bootstrap, paired_difference, tie_ranks
from bench.stats.ranks import beats_matrix, min_resamples


def _apart(n: int) -> np.ndarray:
    """Two entrants on n binary tasks: the first passes all, the second every other one."""
    return np.array([[1.0] * n, [float(i % 2) for i in range(n)]])


def test_the_floor_is_five_resamples_in_the_tail() -> None:
    assert min_resamples(0.025) == 200  # a rank at alpha 0.05
    assert min_resamples(0.05) == 100  # "dominated with 95 % confidence"
    with pytest.raises(ValueError, match="tail"):
        min_resamples(0.0)


@pytest.mark.parametrize("B", [1, 2, 39, 199])
def test_too_few_resamples_rank_nobody_ahead(B: int) -> None:
    """Before: one resample (B = 1) in which A was ahead made A 'certainly' better."""
    M = np.array([[0.6, 0.4]] * B)
    assert tie_ranks(M) == ((1, 1), (2, 2))  # rank_lo (1, 1), rank_hi (2, 2): tied
    assert not beats_matrix(M).any()


def test_enough_resamples_still_decide() -> None:
    M = np.array([[0.6, 0.4]] * 200)
    assert tie_ranks(M) == ((1, 2), (1, 2))  # rank_lo (1, 2), rank_hi (1, 2): decided


def test_the_small_n_sign_flip_test_does_not_need_resamples() -> None:
    x = np.array([[1.0] * 8, [0.0] * 8])  # 8 of 8: exact p = 0.0078
    M = headline_bootstrap(x, ["f"] * 8, 1, 0)
    assert tie_ranks(M, X=x) == ((1, 2), (1, 2))


def test_a_paired_difference_on_ten_resamples_decides_nothing() -> None:
    x = _apart(60)
    result = paired_difference(x[1], x[0], ["f"] * 60, B=10, seed=0)
    assert not result.significant
    assert "too few" in result.decided_by
    assert paired_difference(x[1], x[0], ["f"] * 60, B=200, seed=0).significant


def test_clones_change_no_decision_between_the_others() -> None:
    """Crowding: the decision for a pair rests on its two columns of the shared resamples and
    its own task differences, whoever else entered."""
    rng = np.random.default_rng(4)
    fams = [f"f{t % 3}" for t in range(45)]
    X = (rng.random((4, 45)) < np.array([[0.3], [0.5], [0.55], [0.8]])).astype(float)
    crowded = np.vstack([X, np.repeat(X[3:4], 6, axis=0), np.repeat(X[0:1], 6, axis=0)])
    beats = beats_matrix(headline_bootstrap(X, fams, 2000, 1))
    more = beats_matrix(headline_bootstrap(crowded, fams, 2000, 1))
    assert np.array_equal(more[:4, :4], beats)
    # what the rank does depend on: every row that certainly beats it (rows, not entrants)
    lo = tie_ranks(headline_bootstrap(crowded, fams, 2000, 1)).rank_lo
    for i in range(4):
        assert lo[i] == 1 + int(more[:, i].sum())
