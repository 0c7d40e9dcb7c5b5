"""The test ``bench verify --live`` decides with (docs/LIVE-VERIFY.md, "The test").

The same sampled tasks are run twice — once in the bundle (claimed), once live — with the same
number of repeats. Under "the endpoint still behaves as claimed", a task's claimed and live
attempts are draws from one distribution, so swapping the two sides is as likely as not: the
task's difference (live passes − claimed passes) is as likely to carry either sign. The exact
two-sided sign-flip test of their sum follows (with one repeat it is the exact McNemar test on
the discordant tasks), the unit is the task (docs/METHODOLOGY.md), and no pass rate has to
be assumed known: a claimed rate of 0 or 1 needs no special case.

The distribution is counted exactly, in integers: differences of equal size ``v`` and count
``k`` contribute ``v * (2j - k)`` with ``C(k, j)`` sign patterns, and the groups are convolved.
Known answers (as in ``bench.stats.paired``): 7 wins and 1 loss of equal size → 0.0703125; 8 / 0 →
0.0078125. It agrees with ``bench.stats.sign_flip_pvalue`` (which ``verify`` may not import).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from math import comb

TEST_NAME = "exact two-sided sign-flip test on paired task differences"


def sign_flip_pvalue(differences: Sequence[int]) -> float:
    """P(|S| >= |observed sum|) when every non-zero difference takes a random sign."""
    sizes = [abs(d) for d in differences if d]
    if not sizes:
        return 1.0
    observed = abs(sum(differences))
    counts: dict[int, int] = {0: 1}
    for size, k in Counter(sizes).items():
        step = {size * (2 * j - k): comb(k, j) for j in range(k + 1)}
        merged: defaultdict[int, int] = defaultdict(int)
        for total, ways in counts.items():
            for shift, more in step.items():
                merged[total + shift] += ways * more
        counts = merged
    hits = sum(ways for total, ways in counts.items() if abs(total) >= observed)
    return hits / (1 << len(sizes))


def smallest_rejectable(alpha: float) -> int:
    """How many tasks must all move the same way before any p-value can fall below ``alpha``:
    the smallest m with ``2 * 2**-m < alpha`` (8 for 0.01)."""
    m = 1
    while 2.0 * 0.5**m >= alpha:
        m += 1
    return m


__all__ = ["TEST_NAME", "sign_flip_pvalue", "smallest_rejectable"]
