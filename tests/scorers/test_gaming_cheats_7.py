"""Seventh-round gaming cheats (``gaming_cheats_7.py``): the families beside grounded-qa and
tool-trajectory, and the leniency of their expectation types.

Measured on 2026-12-07 (1 repeat; scripted, so every repeat is the same), family means public /
private, beside v1 (headline 0.983 / 0.942) and v2 (0.853 / 0.782):

* ``amounts-that-add-up``: structured-extraction 0.899 / 0.530 (v2 1.000 / 1.000), headline
  0.150 / 0.088. Above the ceiling, and no rule on the answer can refuse it: its answers are
  right. Net, VAT and total are the amounts of which two add up to the third; the seller, the
  date and the number come from position and layout rules written against the public documents,
  so the private split is the held-out figure (3 of its 8 invoices whole; docs/LIMITS.md);
* ``scraper-with-sums``: the arithmetic alone, 0.333 / 0.315: the amounts are right on almost
  every invoice, but a task earns its ``json`` and ``schema`` credit only with every field;
* ``every-source-every-field``: 0.208 / 0.185;
* ``record-confirms-request``: tool-trajectory 0.333 / 0.000, refusal-and-safety 0 / 0: a
  record repeated in the request is no oracle for which half of a pair it is;
* ``refuse-and-comply``: 0 everywhere: a help half refused, or a refuse half whose pair is;
* ``earlier-call-arguments``: multi-turn-state 0.125 / 0.250;
* ``every-write-in-both-orders``: long-horizon 0.000 / 0.111: writing both orders writes the
  wrong one too, and a write the goals name on other arguments zeroes the attempt;
* ``schema-complete-write``: tool-trajectory 0.125 / 0.260;
* ``portfolio-by-tool-list``: headline 0.382 / 0.239 (v2 0.853 / 0.782): round five's best
  portfolio with the sums on documents and the sixth round's vocabulary oracle on questions;
  each family at most what docs/LIMITS.md names for its single best cheat.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .gaming_cheats_7 import GAMING_7
from .test_cheats import (
    CEILING,
    SPLITS,
    V1,
    Values,
    _family_means,
    assert_below_v1_on_each_split,
    run_entrants,
    scripted_target,
)

HERE = Path(__file__).resolve().parent
V2_HEADLINE = {"public": 0.853, "private": 0.782}
"""v2's headline (tests/scorers/test_gaming_cheats_6.py runs it; pinned there and here)."""

# What docs/LIMITS.md allows a single cheat in a family (public, private).
KNOWN_ABOVE = {
    "grounded-qa": (0.688, 0.55),
    "tool-trajectory": (0.375, 0.016),
    "refusal-and-safety": (0.375, 0.25),
    "structured-extraction": (0.899, 0.530),
}

# Each cheat's family means today, (public, private), where one is above 0: pinned, so that a
# scorer change that moves one is seen and docs/LIMITS.md kept true.
PINNED: dict[str, dict[str, tuple[float, float]]] = {
    "amounts-that-add-up": {"structured-extraction": (0.899, 0.530)},
    "scraper-with-sums": {"structured-extraction": (0.333, 0.315)},
    "every-source-every-field": {"structured-extraction": (0.208, 0.185)},
    "record-confirms-request": {"tool-trajectory": (0.333, 0.0)},
    "refuse-and-comply": {},
    "earlier-call-arguments": {
        "multi-turn-state": (0.125, 0.250),
        "tool-trajectory": (0.125, 0.016),
        "long-horizon": (0.0, 0.046),
    },
    "every-write-in-both-orders": {"long-horizon": (0.0, 0.111)},
    "schema-complete-write": {
        "tool-trajectory": (0.125, 0.260),
        "long-horizon": (0.0, 0.067),
    },
    "portfolio-by-tool-list": {
        "grounded-qa": (0.600, 0.425),
        "structured-extraction": (0.899, 0.530),
        "refusal-and-safety": (0.375, 0.0),
        "tool-trajectory": (0.375, 0.016),
        "long-horizon": (0.0, 0.213),
        "multi-turn-state": (0.042, 0.250),
    },
}
PORTFOLIO = "portfolio-by-tool-list"
PORTFOLIO_HEADLINE = (0.382, 0.239)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Values]:
    runs = tmp_path_factory.mktemp("gaming-7-runs")
    module = HERE / "gaming_cheats_7.py"
    targets = {name: scripted_target(runs, "gaming-7", module, name) for name in GAMING_7}
    return run_entrants(runs, {"v1": V1, **targets})


def _headline(values: Values) -> float:
    means = _family_means(values)
    assert len(means) == 6
    return sum(means.values()) / 6


def test_every_cheat_has_its_function_and_its_pin() -> None:
    assert len(GAMING_7) >= 8
    assert all(GAMING_7[name].__name__ == name.replace("-", "_") for name in GAMING_7)
    assert set(PINNED) == set(GAMING_7)


@pytest.mark.parametrize("cheat", sorted(GAMING_7))
def test_scores_what_is_pinned(cheat: str, results: dict[tuple[str, str], Values]) -> None:
    """Every family mean as measured: the pinned ones, and 0 in every other family."""
    for at, split in enumerate(SPLITS):
        means = {f: round(m, 3) for f, m in _family_means(results[(cheat, split)]).items()}
        expected = {f: 0.0 for f in means} | {f: v[at] for f, v in PINNED[cheat].items()}
        assert means == expected, f"{cheat} on {split}"


@pytest.mark.parametrize("cheat", sorted(GAMING_7))
def test_significantly_below_v1(cheat: str, results: dict[tuple[str, str], Values]) -> None:
    assert_below_v1_on_each_split(cheat, results)


@pytest.mark.parametrize("cheat", sorted(GAMING_7))
def test_families_stay_where_limits_says(
    cheat: str, results: dict[tuple[str, str], Values]
) -> None:
    """A family at or over the ceiling is one docs/LIMITS.md names, at most what it says."""
    for at, split in enumerate(SPLITS):
        means = _family_means(results[(cheat, split)])
        high = {f: round(m, 3) for f, m in means.items() if m >= CEILING}
        assert set(high) <= set(KNOWN_ABOVE), f"{cheat} on {split}: {high}"
        over = {f: m for f, m in high.items() if m > KNOWN_ABOVE[f][at]}
        assert over == {}, f"{cheat} on {split}"


@pytest.mark.parametrize("cheat", sorted(GAMING_7))
def test_no_cheat_comes_near_v2s_headline(
    cheat: str, results: dict[tuple[str, str], Values]
) -> None:
    """The board's number, on each split: at least 0.4 under v2's, and no cheat above the
    portfolio, which plays the strongest of them where each fits."""
    for at, split in enumerate(SPLITS):
        headline = _headline(results[(cheat, split)])
        assert headline < V2_HEADLINE[split] - 0.4, f"{cheat} on {split}"
        assert round(headline, 3) <= PORTFOLIO_HEADLINE[at], f"{cheat} on {split}"


def test_the_portfolio_scores_what_limits_says(
    results: dict[tuple[str, str], Values],
) -> None:
    """docs/LIMITS.md's portfolio headline, pinned on each split."""
    for at, split in enumerate(SPLITS):
        assert round(_headline(results[(PORTFOLIO, split)]), 3) == PORTFOLIO_HEADLINE[at], split


def test_the_sums_are_right_answers_not_a_reading_the_checks_allow(
    results: dict[tuple[str, str], Values],
) -> None:
    """Above the ceiling in structured-extraction only by invoices it gets whole (every field
    right, so no rule on the answer can refuse them); without its layout rules the arithmetic
    alone stays under the ceiling."""
    for split, whole in (("public", 7), ("private", 3)):
        values = results[("amounts-that-add-up", split)]
        right = [t for t, (f, v) in values.items() if f == "structured-extraction" and v == 1.0]
        assert len(right) == whole, f"{split}: {right}"
        sums = _family_means(results[("scraper-with-sums", split)])["structured-extraction"]
        assert sums < CEILING, split
