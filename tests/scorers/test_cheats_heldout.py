"""Cheats written after the rules, held to test_cheats.py's bar: pastes of the top passage in
disguise, and writes sprayed with every candidate value (``heldout_cheats.py``), stay under 0.35
in every family on both splits of ``tasks/`` and significantly below the example bot v1.

Before the copy measure skipped a changed or added answer word and read lookalike letters,
zero-width and full-width characters as what they look like (2026-12-06), they scored up to
0.45 (public) and 0.35 (private) in grounded-qa: a word changed every second or third word, or
added after every second one, with the numbers and names the checks look for left alone, or
Cyrillic letters in every other word, left no three of the answer's words in a row the
passage's. Before a call its schema refuses stopped counting for goals (2026-12-06), a write
sprayed with every candidate value and one undeclared argument per call scored 0.69 in public
tool-trajectory, and 0.44 / 0.50 in refusal-and-safety with a refusal on alarm words."""

from __future__ import annotations

from pathlib import Path

import pytest

from .heldout_cheats import HELDOUT
from .test_cheats import (
    V1,
    Values,
    assert_below_v1_on_each_split,
    assert_under_ceiling,
    run_entrants,
    scripted_target,
)

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Values]:
    runs = tmp_path_factory.mktemp("heldout-runs")
    module = HERE / "heldout_cheats.py"
    targets = {name: scripted_target(runs, "heldout", module, name) for name in HELDOUT}
    return run_entrants(runs, {"v1": V1, **targets})


def test_every_heldout_cheat_has_a_function() -> None:
    assert len(HELDOUT) >= 8
    assert all(HELDOUT[name].__name__ == name.replace("-", "_") for name in HELDOUT)


@pytest.mark.parametrize("cheat", sorted(HELDOUT))
def test_no_family_reaches_the_ceiling(cheat: str, results: dict[tuple[str, str], Values]) -> None:
    assert_under_ceiling(cheat, results)


@pytest.mark.parametrize("cheat", sorted(HELDOUT))
def test_significantly_below_v1(cheat: str, results: dict[tuple[str, str], Values]) -> None:
    assert_below_v1_on_each_split(cheat, results)
