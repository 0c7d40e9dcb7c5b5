"""pass@k, pass^k, expected max/min of k and flakiness (docs/SCORING.md, "pass@k ...")."""

from __future__ import annotations

import itertools

import pytest

from bench.stats import (
    expected_max_of_k,
    expected_min_of_k,
    pairwise_disagreement,
    pass_at_k,
    pass_hat_k,
)


@pytest.mark.parametrize(
    ("n", "c", "k", "at_k", "hat_k"),
    [(5, 2, 3, 0.9, 0.0), (5, 4, 2, 1.0, 0.6), (10, 3, 5, 0.9167, 0.0)],
)
def test_known_answers(n: int, c: int, k: int, at_k: float, hat_k: float) -> None:
    assert round(pass_at_k(n, c, k), 4) == at_k
    assert round(pass_hat_k(n, c, k), 4) == hat_k


def test_partial_credit_known_answers() -> None:
    scores = [0.2, 0.9, 0.5, 0.5, 1.0]
    assert round(expected_max_of_k(scores, 3), 4) == 0.92
    assert round(expected_min_of_k(scores, 3), 4) == 0.32


def test_partial_credit_matches_enumeration() -> None:
    scores = [0.2, 0.9, 0.5, 0.5, 1.0, 0.0, 0.3]
    for k in range(1, len(scores) + 1):
        subsets = list(itertools.combinations(scores, k))
        assert expected_max_of_k(scores, k) == pytest.approx(
            sum(max(s) for s in subsets) / len(subsets)
        )
        assert expected_min_of_k(scores, k) == pytest.approx(
            sum(min(s) for s in subsets) / len(subsets)
        )


def test_binary_partial_credit_is_pass_at_k_and_pass_hat_k() -> None:
    for n in range(1, 9):
        for c in range(n + 1):
            scores = [1.0] * c + [0.0] * (n - c)
            for k in range(1, n + 1):
                assert expected_max_of_k(scores, k) == pytest.approx(pass_at_k(n, c, k))
                assert expected_min_of_k(scores, k) == pytest.approx(pass_hat_k(n, c, k))


def test_k_equal_one_is_the_pass_rate() -> None:
    assert pass_at_k(8, 3, 1) == pass_hat_k(8, 3, 1) == 3 / 8


def test_large_n_stays_exact_and_finite() -> None:
    # C(2000, 500) has ~490 digits: floats of factorials would overflow.
    assert pass_at_k(2000, 1000, 500) == 1.0
    tiny = pass_hat_k(2000, 1000, 500)
    assert 0.0 < tiny < 0.5**500
    assert pass_hat_k(2000, 1999, 1) == pytest.approx(1999 / 2000)


@pytest.mark.parametrize(("n", "c", "k"), [(5, 2, 6), (5, 2, 0), (5, 2, -1), (5, 6, 2), (0, 0, 1)])
def test_refuses_bad_n_c_k(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)
    with pytest.raises(ValueError):
        pass_hat_k(n, c, k)


def test_partial_credit_validation() -> None:
    with pytest.raises(ValueError):
        expected_max_of_k([0.5, 0.5], 3)
    with pytest.raises(ValueError):
        expected_min_of_k([0.5, 0.5], 0)
    with pytest.raises(ValueError):
        expected_max_of_k([], 1)
    with pytest.raises(ValueError):
        expected_max_of_k([0.5, float("inf")], 1)


def test_pairwise_disagreement() -> None:
    assert pairwise_disagreement([True, False, True, True, False]) == pytest.approx(0.6)
    assert pairwise_disagreement([True, True, True]) == 0.0
    assert pairwise_disagreement([True, False]) == 1.0
    assert pairwise_disagreement([True]) is None
    assert pairwise_disagreement([]) is None
    with pytest.raises(ValueError):
        pairwise_disagreement(["yes", "no"])  # type: ignore[list-item]


def test_all_attempts_drawn_is_the_exact_formula_to_the_bit() -> None:
    """k = n (every repeat drawn; all of k = 1 at one repeat) takes a shortcut: the same bits
    as the exact formulas, -0.0 included (a Fraction has no negative zero)."""
    from fractions import Fraction
    from math import comb

    for n in range(1, 6):
        for c in range(n + 1):
            assert pass_at_k(n, c, n) == float(1 - Fraction(comb(n - c, n), comb(n, n)))
            assert pass_hat_k(n, c, n) == float(Fraction(comb(c, n), comb(n, n)))
    for scores in ([0.3], [-0.0], [0.0, -0.0], [1.0, 0.25, 0.1 + 0.2], [0.7, 0.7, 0.2]):
        n = len(scores)
        s = sorted(Fraction(v) for v in scores)
        high = float(sum((v * comb(i - 1, n - 1) for i, v in enumerate(s, 1)), Fraction(0)))
        low = float(sum((v * comb(n - i, n - 1) for i, v in enumerate(s, 1)), Fraction(0)))
        assert repr(expected_max_of_k(scores, n)) == repr(high)
        assert repr(expected_min_of_k(scores, n)) == repr(low)
