"""Ranks on one stratum (a family, a suite category): the headline's rule on its tasks alone
(bench.stats.standings; docs/METHODOLOGY.md, "Ranks by family or category")."""

from __future__ import annotations

import numpy as np
import pytest

from bench.stats import headline_bootstrap, resample_matrix, sign_flip_pvalue, tie_ranks
from bench.stats.standings import _equal_size_pvalue, stratum_ranks


def _triple() -> np.ndarray:
    """STATISTICS.md (b): A beats C; A ~ B and B ~ C on 100 binary tasks."""
    x = np.zeros((3, 100))
    x[0, [*range(0, 10), *range(14, 24), *range(28, 64)]] = 1.0
    x[1, [*range(10, 14), *range(14, 24), *range(28, 64)]] = 1.0
    x[2, [*range(10, 14), *range(24, 28), *range(28, 64)]] = 1.0
    return x


def test_the_non_transitive_triple_on_one_stratum() -> None:
    x = _triple()
    W = resample_matrix(["c"] * 100, 2000, 7)
    ranks = stratum_ranks(x, W)
    assert ranks == ((1, 1, 2), (2, 3, 3))
    # the headline's own ranks on the same resamples (one family: the same M)
    assert ranks == tie_ranks(headline_bootstrap(x, ["c"] * 100, 2000, 7))


def test_a_familys_columns_of_a_stratified_w_rank_as_the_family_alone() -> None:
    """A family's columns of the cohort's W count exactly n_f picks per resample: its ranks
    there are the ranks of a bootstrap of that family alone."""
    rng = np.random.default_rng(3)
    fams = ["a"] * 40 + ["b"] * 35
    x = (rng.random((6, 75)) < np.linspace(0.3, 0.8, 6)[:, None]).astype(float)
    W = resample_matrix(fams, 1000, 5)
    cols = np.arange(40)
    got = stratum_ranks(x[:, cols], W[:, cols])
    M = (W[:, cols] * (1.0 / 40)) @ x[:, cols].T
    assert got == tie_ranks(M)
    assert np.all(W[:, cols].sum(axis=1) == 40)


@pytest.mark.parametrize(("wins", "n", "tied"), [(6, 8, True), (7, 8, True), (8, 8, False)])
def test_the_small_n_guard_decides_below_30_tasks(wins: int, n: int, tied: bool) -> None:
    x = np.array([[1.0] * wins + [0.0] * (n - wins), [0.0] * wins + [1.0] * (n - wins)])
    W = resample_matrix(["c"] * n, 2000, 0)
    got = stratum_ranks(x, W)
    assert got == (((1, 1), (2, 2)) if tied else ((1, 2), (1, 2)))
    assert got == tie_ranks(headline_bootstrap(x, ["c"] * n, 2000, 0), X=x)


def test_equal_size_differences_take_the_exact_binomial_count() -> None:
    for m in range(0, 21):
        for wins in range(m + 1):
            d = [1.0] * wins + [-1.0] * (m - wins)
            assert _equal_size_pvalue(m, 2 * wins - m) == pytest.approx(
                sign_flip_pvalue(d), abs=1e-12
            ), (m, wins)
    # above 20 differences sign_flip_pvalue estimates (100,000 draws); this is exact
    assert _equal_size_pvalue(25, 18 - 7) == pytest.approx(0.04329, abs=1e-5)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_small_strata_decide_as_the_headlines_ranks(seed: int) -> None:
    """Up to 20 tasks the sign-flip test is enumerated, so the shortcuts (one test per
    distinct set of differences, the binomial count) decide exactly as ``tie_ranks``."""
    rng = np.random.default_rng(seed)
    skill = np.linspace(0.1, 0.95, 12)[:, None]
    binary = (rng.random((12, 20)) < skill).astype(float)
    partial = np.round(rng.random((12, 14)) * skill * 4) / 4  # repeats averaged: 0, .25, ...
    for x in (binary, partial):
        n = x.shape[1]
        W = resample_matrix(["c"] * n, 500, seed)
        expected = tie_ranks(headline_bootstrap(x, ["c"] * n, 500, seed), X=x)
        assert stratum_ranks(x, W) == expected
    assert len(set(stratum_ranks(binary, resample_matrix(["c"] * 20, 500, 0)).rank_lo)) > 1


def test_bad_shapes_are_refused() -> None:
    with pytest.raises(ValueError, match="W must be"):
        stratum_ranks(np.zeros((2, 3)), np.zeros((10, 4)))
    with pytest.raises(ValueError, match="alpha"):
        stratum_ranks(np.zeros((2, 3)), np.zeros((10, 3)), alpha=1.0)
