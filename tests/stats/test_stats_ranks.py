"""Tie-aware ranks and the paired difference: known answers (docs/METHODOLOGY.md, "Ranks")."""

from __future__ import annotations

import numpy as np
import pytest

from bench.stats import headline_bootstrap, paired_difference, sign_flip_pvalue, tie_ranks


def _pair(wins: int, n: int = 8) -> np.ndarray:
    """Two entrants on n binary tasks whose difference (first - second) is +1 x wins, -1 x rest."""
    return np.array([[1.0] * wins + [0.0] * (n - wins), [0.0] * wins + [1.0] * (n - wins)])


def test_sign_flip_known_answers() -> None:
    assert sign_flip_pvalue([1.0] * 7 + [-1.0]) == pytest.approx(0.0703125)
    assert sign_flip_pvalue([1.0] * 8) == pytest.approx(0.0078125)
    assert sign_flip_pvalue([0.0, 0.0]) == 1.0
    # zeros change nothing
    assert sign_flip_pvalue([1.0] * 8 + [0.0] * 5) == pytest.approx(0.0078125)
    # n > 20 uses seeded random flips and is reproducible
    d = [1.0] * 18 + [-1.0] * 7
    assert sign_flip_pvalue(d, seed=3) == sign_flip_pvalue(d, seed=3)
    assert 0.03 < sign_flip_pvalue(d) < 0.08  # exact two-sided binomial p = 0.0433


def test_six_of_eight_is_tied() -> None:
    x = _pair(6)
    result = paired_difference(x[1], x[0], ["f"] * 8, B=10_000, seed=0)
    assert result.difference == pytest.approx(0.5)
    assert (result.lo, result.hi) == (pytest.approx(-0.25), pytest.approx(1.0))
    assert not result.significant
    M = headline_bootstrap(x, ["f"] * 8, 10_000, 0)
    assert tie_ranks(M, X=x) == ((1, 1), (2, 2))


def test_seven_of_eight_is_tied_by_the_small_n_guard() -> None:
    x = _pair(7)
    M = headline_bootstrap(x, ["f"] * 8, 2000, 0)
    lo, hi = np.quantile(M[:, 0] - M[:, 1], [0.025, 0.975])
    assert (lo, hi) == (pytest.approx(0.25), pytest.approx(1.0))
    assert tie_ranks(M) == ((1, 2), (1, 2))  # the bootstrap alone would call it
    assert tie_ranks(M, X=x) == ((1, 1), (2, 2))  # the guard makes it a tie
    result = paired_difference(x[1], x[0], ["f"] * 8, B=2000, seed=0)
    assert result.p_value == pytest.approx(0.0703125)
    assert not result.significant


def test_eight_of_eight_beats() -> None:
    x = _pair(8)
    M = headline_bootstrap(x, ["f"] * 8, 2000, 0)
    assert tie_ranks(M, X=x) == ((1, 2), (1, 2))
    result = paired_difference(x[1], x[0], ["f"] * 8, B=2000, seed=0)
    assert result.p_value == pytest.approx(0.0078125)
    assert result.significant and result.difference == 1.0


def test_identical_entrants_are_tied() -> None:
    x = np.array([[1.0, 0.0, 1.0, 1.0] * 10] * 3)
    M = headline_bootstrap(x, ["f"] * 40, 2000, 1)
    assert tie_ranks(M) == ((1, 1, 1), (3, 3, 3))
    assert tie_ranks(M, X=x, min_tasks=100) == ((1, 1, 1), (3, 3, 3))


def _triple() -> np.ndarray:
    x = np.zeros((3, 100))
    x[0, [*range(0, 10), *range(14, 24), *range(28, 64)]] = 1.0
    x[1, [*range(10, 14), *range(14, 24), *range(28, 64)]] = 1.0
    x[2, [*range(10, 14), *range(24, 28), *range(28, 64)]] = 1.0
    return x


@pytest.mark.parametrize(("B", "seed"), [(2000, 0), (10_000, 0), (10_000, 20261202)])
def test_non_transitive_triple(B: int, seed: int) -> None:
    x = _triple()
    M = headline_bootstrap(x, ["f"] * 100, B, seed)
    ab = np.quantile(M[:, 0] - M[:, 1], [0.025, 0.975])
    ac = np.quantile(M[:, 0] - M[:, 2], [0.025, 0.975])
    assert ab[0] < 0 < ab[1] and ac[0] > 0
    assert ac == pytest.approx([0.02, 0.22], abs=0.006)
    assert tie_ranks(M, X=x) == ((1, 1, 2), (2, 3, 3))


def test_permuting_entrants_changes_no_rank() -> None:
    x = _triple()
    for order in ([2, 0, 1], [1, 2, 0], [2, 1, 0]):
        M = headline_bootstrap(x[order], ["f"] * 100, 2000, 0)
        lo, hi = tie_ranks(M)
        assert [lo[order.index(i)] for i in range(3)] == [1, 1, 2]
        assert [hi[order.index(i)] for i in range(3)] == [2, 3, 3]


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="resamples x entrants"):
        tie_ranks(np.zeros(3))
    with pytest.raises(ValueError, match="alpha"):
        tie_ranks(np.zeros((2, 2)), alpha=1.5)
