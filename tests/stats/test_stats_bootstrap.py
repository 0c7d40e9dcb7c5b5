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


def test_float_counts_give_the_bits_integer_counts_gave() -> None:
    # resample_matrix held int64 counts until 2026-12-06; the headline's interval is the same
    # to the last bit with the float64 ones (the product with the weights casts them anyway).
    import operator

    from bench.stats import headline, stratified_headline
    from bench.stats.bootstrap import family_columns

    def integer_counts(families: list[str], B: int, seed: int) -> np.ndarray:
        rng = np.random.default_rng(operator.index(seed))
        W = np.zeros((B, len(families)), dtype=np.int64)
        for cols in family_columns(families).values():
            W[:, cols] = rng.multinomial(cols.size, np.full(cols.size, 1.0 / cols.size), size=B)
        return W

    rng = np.random.default_rng(11)
    for trial in range(20):
        T = int(rng.integers(3, 200))
        families = [str(f) for f in rng.choice(list("abcd"), size=T)]
        values = [float(v) for v in rng.choice([0.0, 0.5, 1.0, 0.25], size=T)]
        now = stratified_headline(values, families, B=300, seed=trial)
        saved = headline.resample_matrix
        try:
            headline.resample_matrix = integer_counts  # type: ignore[assignment]
            before = stratified_headline(values, families, B=300, seed=trial)
        finally:
            headline.resample_matrix = saved
        assert now.score.interval == before.score.interval
        assert now.bootstrap_se.hex() == before.bootstrap_se.hex()
