"""pass@k, pass^k, expected best/worst of k, and flakiness, in exact integer arithmetic.

pass@k is Chen et al. 2021's unbiased estimator ``1 - C(n-c, k)/C(n, k)``; pass^k is
tau-bench's ``C(c, k)/C(n, k)`` (all k draws without replacement succeed). For partial credit,
the expected maximum (minimum) of k scores drawn without replacement from the n observed.
Ratios of binomial coefficients are formed as exact fractions, never as floats of factorials.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from fractions import Fraction


def _check_nck(n: int, c: int, k: int) -> tuple[int, int, int]:
    n, c, k = operator.index(n), operator.index(c), operator.index(k)
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    if not 0 <= c <= n:
        raise ValueError(f"c must be between 0 and n={n}, got {c}")
    if not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and n={n}, got {k}")
    return n, c, k


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of k attempts (drawn from n with c passes) passes."""
    n, c, k = _check_nck(n, c, k)
    if k == n:  # every attempt drawn: C(n-c, n) is 1 when none passed, else 0 (exactly)
        return 1.0 if c else 0.0
    return float(1 - Fraction(math.comb(n - c, k), math.comb(n, k)))


def pass_hat_k(n: int, c: int, k: int) -> float:
    """tau-bench pass^k: probability that all k attempts (drawn from n with c passes) pass."""
    n, c, k = _check_nck(n, c, k)
    if k == n:  # every attempt drawn: C(c, n) is 1 when all passed, else 0 (exactly)
        return 1.0 if c == n else 0.0
    return float(Fraction(math.comb(c, k), math.comb(n, k)))


def _sorted_values(scores: Sequence[float], k: int) -> tuple[list[float], int]:
    k = operator.index(k)
    values = [float(s) for s in scores]
    if not values:
        raise ValueError("no scores")
    if not all(math.isfinite(v) for v in values):
        raise ValueError("scores must be finite numbers")
    if not 1 <= k <= len(values):
        raise ValueError(f"k must be between 1 and n={len(values)}, got {k}")
    return sorted(values), k


def expected_max_of_k(scores: Sequence[float], k: int) -> float:
    """E[max of k scores drawn without replacement] = sum_i s_(i) C(i-1, k-1) / C(n, k)."""
    values, k = _sorted_values(scores, k)
    n = len(values)
    if k == n:  # all of them: the largest, exactly (+ 0.0: a Fraction has no -0.0)
        return values[-1] + 0.0
    s = [Fraction(v) for v in values]
    total = sum((v * math.comb(i - 1, k - 1) for i, v in enumerate(s, start=1)), Fraction(0))
    return float(total / math.comb(n, k))


def expected_min_of_k(scores: Sequence[float], k: int) -> float:
    """E[min of k scores drawn without replacement] = sum_i s_(i) C(n-i, k-1) / C(n, k)."""
    values, k = _sorted_values(scores, k)
    n = len(values)
    if k == n:  # all of them: the smallest, exactly
        return values[0] + 0.0
    s = [Fraction(v) for v in values]
    total = sum((v * math.comb(n - i, k - 1) for i, v in enumerate(s, start=1)), Fraction(0))
    return float(total / math.comb(n, k))


def pairwise_disagreement(outcomes: Sequence[bool]) -> float | None:
    """Share of pairs of repeats that disagree (one passes, one fails): ``2c(n-c) / (n(n-1))``.

    Its expectation does not depend on n (it estimates ``2p(1-p)``); None below 2 repeats.
    """
    flags = list(outcomes)
    for o in flags:
        if o not in (True, False):  # 0 and 1 compare equal to False and True
            raise ValueError(f"outcomes must be booleans, got {o!r}")
    n = len(flags)
    if n < 2:
        return None
    c = sum(1 for o in flags if o)
    return float(Fraction(2 * c * (n - c), n * (n - 1)))


__all__ = [
    "expected_max_of_k",
    "expected_min_of_k",
    "pairwise_disagreement",
    "pass_at_k",
    "pass_hat_k",
]
