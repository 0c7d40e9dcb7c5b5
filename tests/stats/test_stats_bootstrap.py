"""The shared stratified resample matrix (docs/METHODOLOGY.md, "One shared resample matrix")."""

from __future__ import annotations

import numpy as np
import pytest

from bench.stats import headline_bootstrap, resample_matrix, task_weights

FAMILIES = ["b", "a", "b", "c", "a", "b", "b", "c", "a"]


def test_rows_of_each_family_sum_to_its_size() -> None:
    W = resample_matrix(FAMILIES, B=500, seed=7)
    assert W.shape == (500, len(FAMILIES))
    # whole numbers held as float64 (every use multiplies them by floats)
    assert W.dtype == np.float64
    assert np.array_equal(np.rint(W), W)
    assert W.min() >= 0
    labels = np.array(FAMILIES)
    for family in set(FAMILIES):
        cols = labels == family
        assert np.all(W[:, cols].sum(axis=1) == cols.sum())


def test_counts_are_uniform_within_a_family() -> None:
    W = resample_matrix(["f"] * 4, B=20_000, seed=1)
    # Each column of multinomial(4, 1/4) has mean 1 and variance 3/4.
    assert np.allclose(W.mean(axis=0), 1.0, atol=0.03)
    assert np.allclose(W.var(axis=0), 0.75, atol=0.05)


def test_same_seed_same_matrix_other_seed_other_matrix() -> None:
    a = resample_matrix(FAMILIES, B=200, seed=42)
    b = resample_matrix(FAMILIES, B=200, seed=42)
    c = resample_matrix(FAMILIES, B=200, seed=43)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
    X = np.linspace(0.0, 1.0, 2 * len(FAMILIES)).reshape(2, -1)
    assert np.array_equal(
        headline_bootstrap(X, FAMILIES, 200, 42), headline_bootstrap(X, FAMILIES, 200, 42)
    )
    assert not np.array_equal(
        headline_bootstrap(X, FAMILIES, 200, 42), headline_bootstrap(X, FAMILIES, 200, 43)
    )


def test_task_weights() -> None:
    w = task_weights(["a", "a", "a", "a", "b", "b"])
    assert np.allclose(w, [1 / 8] * 4 + [1 / 4] * 2)
    assert w.sum() == pytest.approx(1.0)


def test_headline_bootstrap_is_one_product_shared_by_entrants() -> None:
    rng = np.random.default_rng(0)
    X = rng.random((3, len(FAMILIES)))
    M = headline_bootstrap(X, FAMILIES, 300, 5)
    assert M.shape == (300, 3)
    W = resample_matrix(FAMILIES, 300, 5)
    assert np.allclose(M, (W * task_weights(FAMILIES)) @ X.T)
    # Every entrant sees the same resamples: a column equals that entrant bootstrapped alone.
    alone = headline_bootstrap(X[1:2], FAMILIES, 300, 5)[:, 0]
    assert np.allclose(M[:, 1], alone, rtol=0.0, atol=1e-12)  # BLAS may round differently
    # Resampling weights are unbiased: the bootstrap mean is close to the headline.
    headline = task_weights(FAMILIES) @ X.T
    assert np.allclose(M.mean(axis=0), headline, atol=0.02)


def test_constant_families_give_equal_resamples() -> None:
    X = np.array([[1.0, 1.0, 1.0, 1.0, 0.0, 0.0]])
    M = headline_bootstrap(X, ["a"] * 4 + ["b"] * 2, 100, 3)
    assert np.ptp(M) == 0.0
    assert M[0, 0] == 0.5


def test_validation() -> None:
    with pytest.raises(ValueError):
        resample_matrix([], 10, 0)
    with pytest.raises(ValueError):
        resample_matrix(["a"], 0, 0)
    with pytest.raises(ValueError):
        resample_matrix(["a", 3], 10, 0)  # type: ignore[list-item]
    with pytest.raises(ValueError):
        headline_bootstrap(np.zeros(3), ["a"] * 3, 10, 0)
    with pytest.raises(ValueError):
        headline_bootstrap(np.zeros((1, 3)), ["a"] * 4, 10, 0)
    with pytest.raises(ValueError):
        headline_bootstrap(np.array([[0.5, np.nan]]), ["a"] * 2, 10, 0)


def test_each_row_counts_the_picks_plain_python_draws() -> None:
    # W is numpy's generator; bench.stats.draws replays it without numpy: the two must give the
    # same counts, family by family in sorted order, row by row (what the run summary relies on).
    from collections import Counter

    from bench.stats.draws import Draws

    families = ["b", "a", "b", "c", "a", "b", "b", "c", "a", "d"]
    for seed in (0, 7, 20261202):
        W = resample_matrix(families, B=300, seed=seed)
        draws = Draws(seed)
        for family in sorted(set(families)):
            cols = [t for t, f in enumerate(families) if f == family]
            for b in range(300):
                picks = Counter(draws.integers(len(cols), len(cols)))
                assert [W[b, t] for t in cols] == [picks[j] for j in range(len(cols))]
