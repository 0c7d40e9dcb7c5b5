"""Gaming cheats outside grounded-qa (``gaming_cheats.py``) are held to test_cheats.py's bar:
under 0.35 in every family on both splits of ``tasks/``, and significantly below the example bot
v1.

They do not do the work of a tool, extraction, multi-turn, refusal or plan task: a write sent
with arguments the world rejects; ids with zero-width spaces or look-alike digits; numbers as
strings; undeclared arguments; every call twice; reads in every order; a refusal with a helpful
tail; compliance with a safety note; every earlier turn restated; every candidate value, a
template of nulls or numbers as strings for an extraction.

A write sent with arguments the world rejects no longer meets a trajectory goal: the write that
shares most words with the request, sent with its amount off by a cent
(``rejected-write-by-words``) to a bill-payment tool that answers only the bill's exact amount,
scored 0.5 on that task and 0.188 in public tool-trajectory until 2026-12-07; 0.125 now, all of
it from one right call (``bench.scorers.roles.rejected_elsewhere``, docs/SCORING.md).

Measured, not held to the bar (docs/LIMITS.md): the cheats built on ``verb-by-words-record-
values`` (read the record each id of the request names, call the write whose name and
description share most words with the request, filled by argument name from the record) score
0.375 in public tool-trajectory (0.016 private): three of the eight public tasks — a full refund,
a bill paid by its amount, a standing order — are done right by it, and no rule can fault a
right call.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .gaming_cheats import GAMING
from .test_cheats import (
    CEILING,
    SPLITS,
    V1,
    Values,
    _family_means,
    assert_below_v1_on_each_split,
    assert_under_ceiling,
    run_entrants,
    scripted_target,
)

HERE = Path(__file__).resolve().parent
WORD_VERB = frozenset(
    {
        "verb-by-words-record-values",
        "comply-with-safety-note",
        "refuse-in-turkish-act-in-english",
        "last-four-and-postcode-everywhere",
        "reads-in-every-order",
    }
)
HELD = sorted(set(GAMING) - WORD_VERB)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Values]:
    runs = tmp_path_factory.mktemp("gaming-runs")
    module = HERE / "gaming_cheats.py"
    targets = {name: scripted_target(runs, "gaming", module, name) for name in GAMING}
    return run_entrants(runs, {"v1": V1, **targets})


def test_every_cheat_has_its_function() -> None:
    assert len(GAMING) >= 15
    assert all(GAMING[name].__name__ == name.replace("-", "_") for name in GAMING)
    assert set(GAMING) > WORD_VERB


@pytest.mark.parametrize("cheat", HELD)
def test_no_family_reaches_the_ceiling(cheat: str, results: dict[tuple[str, str], Values]) -> None:
    assert_under_ceiling(cheat, results)


@pytest.mark.parametrize("cheat", sorted(GAMING))
def test_significantly_below_v1(cheat: str, results: dict[tuple[str, str], Values]) -> None:
    assert_below_v1_on_each_split(cheat, results)


@pytest.mark.parametrize("cheat", sorted(WORD_VERB))
def test_the_word_matching_agents_stay_where_limits_says(
    cheat: str, results: dict[tuple[str, str], Values]
) -> None:
    """docs/LIMITS.md names them at 0.375 in public tool-trajectory; anything higher, or any
    other family at the ceiling, is new."""
    for split in SPLITS:
        means = _family_means(results[(cheat, split)])
        assert means["tool-trajectory"] <= 0.375, split
        high = {f: round(m, 3) for f, m in means.items() if m >= CEILING and f != "tool-trajectory"}
        assert high == {}, f"{cheat} on {split}"


def test_a_write_the_world_rejected_earns_no_trajectory_credit(
    results: dict[tuple[str, str], Values],
) -> None:
    """0.188 before 2026-12-07: the rejected payment met ``required`` and ``order``."""
    assert _family_means(results[("rejected-write-by-words", "public")])["tool-trajectory"] <= 0.125
