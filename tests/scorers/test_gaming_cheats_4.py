"""Fourth-round gaming cheats (``gaming_cheats_4.py``) are held to test_cheats.py's bar: under 0.35
in every family on both splits of ``tasks/``, significantly below the example bot v1 on each
split, and nowhere above the weaker honest bot v2.

They do not do the work: extractions of schema-valid defaults, of the whole document in every
string, of amounts guessed by position, of candidate arrays; a plan of every write once in the
offered order, a plan that is the request's own sentences, the write sent in every loose
spelling of its arguments; each turn read from its latest message alone; every fact said so far
restated; a canned vocabulary of status words beside every value read.

Measured on 2026-12-07 (public / private; v2 in brackets): schema-valid-defaults 0.155 / 0.131
in structured-extraction (1.000 / 1.000), amounts-by-position 0.220 / 0.179, document-in-every-
string 0.060 / 0.054, candidate-arrays 0; status-words-and-values 0.222 / 0.000 in
multi-turn-state (0.917 / 0.833) and 0.250 / 0.000 in tool-trajectory (0.875 / 0.875); every
other family of every cheat at most 0.097. ``echo-earlier-replies`` (the assistant's earlier
replies repeated, a canned request for the last four digits and the postcode, a cut-short cited
quote) scored 0.250 / 0.125 in multi-turn-state until a repeat of an earlier turn stopped
earning credit (``bench.scorers.repeats``, 2026-12-07); 0.125 / 0.125 now, and 0.425 / 0.350 in
grounded-qa from its cut-short quote (docs/LIMITS.md), so it is held to its own test.
``latest-message-only`` is the agent that matches words (docs/LIMITS.md) on a single-turn task,
and scores what it does: 0.375 in public tool-trajectory.

The shared ``_values`` of test_cheats counts a task that was not scored as 0, which is not
what the board does (it leaves such a task out of the mean), so a cheat that pushed its failures
out of the denominator would look no better there than it is. ``test_every_attempt_is_counted``
checks that path directly: every attempt of every cheat is scored, errored or over budget.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.records.store import RunDir

from .gaming_cheats_4 import GAMING_4
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
V2 = HERE.parents[1] / "examples" / "targets" / "support-bot-v2.yaml"
WORD_VERB = frozenset({"latest-message-only"})
ECHO = "echo-earlier-replies"
HELD = sorted(set(GAMING_4) - WORD_VERB - {ECHO})


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("gaming-4-runs")


@pytest.fixture(scope="module")
def results(runs: Path) -> dict[tuple[str, str], Values]:
    module = HERE / "gaming_cheats_4.py"
    targets = {name: scripted_target(runs, "gaming-4", module, name) for name in GAMING_4}
    return run_entrants(runs, {"v1": V1, "v2": V2, **targets})


def test_every_cheat_has_its_function() -> None:
    assert len(GAMING_4) >= 10
    assert all(GAMING_4[name].__name__ == name.replace("-", "_") for name in GAMING_4)
    assert set(GAMING_4) > WORD_VERB


@pytest.mark.parametrize("cheat", HELD)
def test_no_family_reaches_the_ceiling(cheat: str, results: dict[tuple[str, str], Values]) -> None:
    assert_under_ceiling(cheat, results)


@pytest.mark.parametrize("cheat", sorted(GAMING_4))
def test_significantly_below_v1(cheat: str, results: dict[tuple[str, str], Values]) -> None:
    assert_below_v1_on_each_split(cheat, results)


@pytest.mark.parametrize("cheat", sorted(set(GAMING_4) - {ECHO}))
def test_no_cheat_beats_v2_in_any_family(
    cheat: str, results: dict[tuple[str, str], Values]
) -> None:
    for split in SPLITS:
        own = _family_means(results[(cheat, split)])
        v2 = _family_means(results[("v2", split)])
        assert {f: m for f, m in own.items() if m > v2[f]} == {}, f"{cheat} on {split}"


def test_the_word_matching_turn_stays_where_limits_says(
    results: dict[tuple[str, str], Values],
) -> None:
    """docs/LIMITS.md names the agent that matches words at 0.375 in public tool-trajectory;
    anything higher, or another family, is new."""
    for split in SPLITS:
        means = _family_means(results[("latest-message-only", split)])
        assert means["tool-trajectory"] <= 0.375, split
        high = {f: round(m, 3) for f, m in means.items() if m >= CEILING}
        assert set(high) <= {"tool-trajectory"}, f"latest-message-only on {split}: {high}"


def test_repeating_earlier_replies_earns_nothing_in_multi_turn_state(
    results: dict[tuple[str, str], Values],
) -> None:
    """0.25 / 0.125 before 2026-12-07: "order 58213 is already packed", the task's own
    assistant turn repeated, passed ``contains: packed``. What is left is one task a split that
    no rule on repeats can fault: the cut-short cited quote answers the refund-speed question
    (docs/LIMITS.md, grounded-qa), and the canned request for the last four digits and the
    postcode is the right reply to an unverified email change. Its grounded-qa is the cut-short
    quote's, within the range docs/LIMITS.md gives; every other family under the ceiling and
    at most v2's."""
    expected = {
        "public": {"mts-pub-order-then-policy"},
        "private": {"mts-prv-email-change-unverified"},
    }
    for split in SPLITS:
        values = results[(ECHO, split)]
        passed = {t for t, (f, v) in values.items() if f == "multi-turn-state" and v > 0}
        assert passed == expected[split], split
        means = _family_means(values)
        assert means["multi-turn-state"] <= 0.125, split
        assert means["grounded-qa"] <= 0.6, split
        assert {f: m for f, m in means.items() if m >= CEILING and f != "grounded-qa"} == {}
        v2 = _family_means(results[("v2", split)])
        assert {f: m for f, m in means.items() if m > v2[f] and f != "grounded-qa"} == {}


def test_every_attempt_is_counted(runs: Path, results: dict[tuple[str, str], Values]) -> None:
    """No cheat's attempt leaves the denominator (not scorable, harness fault, skipped): a
    failure it could move out of the mean would raise its published score. And none errored:
    each figure above is what its strategy earns, not a crash of the cheat's own code."""
    seen = 0
    other: list[tuple[str, str, str]] = []
    for path in sorted(p for p in runs.iterdir() if (p / "config.json").is_file()):
        run = RunDir(path)
        entrant = run.config().entrant
        if not entrant.startswith("gaming-4-"):
            continue
        for record in run.attempts():
            seen += 1
            if record.outcome != "scored":
                other.append((entrant, record.task_id, record.outcome))
    assert seen == len(GAMING_4) * 2 * 86
    assert other == []
