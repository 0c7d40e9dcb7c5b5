"""Cohen's kappa between two raters (e.g. an LLM judge and a person), with p_o, p_e and PABAK.

``kappa = (p_o - p_e) / (1 - p_e)``. It is undefined only when ``p_e == 1`` (both raters give
one and the same label to every item): reported as None, never as 1. A constant rater against a
varying one gives exactly 0. High agreement on a skewed label set can still give a low or
negative kappa (the kappa paradox), so p_o and PABAK are reported beside it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class KappaResult:
    kappa: float | None
    """None when undefined (p_e == 1)."""
    p_o: float
    """Observed agreement."""
    p_e: float
    """Agreement expected by chance from the two raters' label frequencies."""
    pabak: float
    """Prevalence- and bias-adjusted kappa, ``(q p_o - 1)/(q - 1)``; ``2 p_o - 1`` for q = 2."""
    n: int


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> KappaResult:
    """Cohen's kappa of two equally long label sequences (labels compared with ``==``).

    PABAK uses q = the number of distinct labels seen, at least 2 (binary labels: ``2 p_o - 1``).
    """
    if len(a) != len(b):
        raise ValueError(f"raters labelled different numbers of items: {len(a)} and {len(b)}")
    n = len(a)
    if n == 0:
        raise ValueError("no items: kappa needs at least one pair of labels")
    p_o = Fraction(sum(1 for x, y in zip(a, b, strict=True) if x == y), n)
    count_a, count_b = Counter(a), Counter(b)
    p_e = Fraction(sum(count_a[label] * count_b[label] for label in count_a), n * n)
    kappa = None if p_e == 1 else float((p_o - p_e) / (1 - p_e))
    q = max(2, len(set(count_a) | set(count_b)))
    pabak = (q * p_o - 1) / (q - 1)
    return KappaResult(kappa=kappa, p_o=float(p_o), p_e=float(p_e), pabak=float(pabak), n=n)


__all__ = ["KappaResult", "cohen_kappa"]
