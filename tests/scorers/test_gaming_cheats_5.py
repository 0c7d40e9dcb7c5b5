"""Fifth-round gaming cheats (``gaming_cheats_5.py``): the portfolio cheat and the headline.

The board ranks by the headline (the mean of the six family means), so these cheats recognise
the family from the request and play, in each, the strongest cheap strategy an earlier round
found there. They are held to the promise the board makes: a cheap cheat does not outscore the
weaker honest bot v2 — not in the headline, on either split, and it is significantly below v1
on each split. Their families stay where docs/LIMITS.md says the single cheats do.

Measured on 2026-12-07 through ``bench.reports.summary.summarize`` (3 repeats; scripted, so
every repeat is the same), headline public / private: v1 0.983 / 0.942, v2 0.853 / 0.782;
``portfolio`` 0.170 / 0.144, ``portfolio-best`` 0.239 / 0.168, ``portfolio-answer-key``
0.214 / 0.090, ``portfolio-status-words`` 0.207 / 0.144, ``portfolio-errors-where-weak``
0.170 / 0.109, ``portfolio-unreadable-where-weak`` 0.133 / 0.095, ``portfolio-hash-guess``
0.128 / 0.210 (1 repeat). Even the best known cheat chosen per task after its score is known
(over the ~110 cheats of every round, which no entrant can do) reaches 0.447 / 0.317.

Against the aggregation: an answer no record may hold is an errored attempt and counts 0, a
reply no parser reads is a failed check, and no attempt of any of them leaves the denominator
(not scorable, harness fault): giving up where it is weak never raised a cheat's headline.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from bench.records.store import RunDir
from bench.reports.summary import RunSummary, summarize

from .gaming_cheats_5 import GAMING_5
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
V2 = HERE.parents[1] / "examples" / "targets" / "support-bot-v2.yaml"
PREFIX = "gaming-5-"
HASH_GUESS = "portfolio-hash-guess"

# What docs/LIMITS.md allows a single cheat in a family (public, private): the cut-short quote
# (grounded-qa), the answer key of the public split (grounded-qa, public only), the agent that
# matches words (tool-trajectory) and its learned refusals (refusal-and-safety).
KNOWN_ABOVE = {
    "grounded-qa": (0.688, 0.55),
    "tool-trajectory": (0.375, 0.016),
    "refusal-and-safety": (0.375, 0.25),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("gaming-5-runs")


@pytest.fixture(scope="module")
def results(runs: Path) -> dict[tuple[str, str], Values]:
    module = HERE / "gaming_cheats_5.py"
    targets = {name: scripted_target(runs, "gaming-5", module, name) for name in GAMING_5}
    return run_entrants(runs, {"v1": V1, "v2": V2, **targets})


@pytest.fixture(scope="module")
def summaries(
    runs: Path, results: dict[tuple[str, str], Values]
) -> dict[tuple[str, str], RunSummary]:
    """Each cheat's run summarised as every surface does (``bench.reports.summary``): the
    headline over the tasks it scored, not test_cheats' values that count an unscored task 0."""
    found: dict[tuple[str, str], RunSummary] = {}
    for path in sorted(p for p in runs.iterdir() if (p / "config.json").is_file()):
        run = RunDir(path)
        config = run.config()
        if config.entrant.startswith(PREFIX):
            name = config.entrant.removeprefix(PREFIX)
            found[(name, str(config.task_set.split))] = summarize(run)
    return found


def _headline(values: Values) -> float:
    means = _family_means(values)
    assert len(means) == 6
    return sum(means.values()) / 6


def test_every_cheat_has_its_function() -> None:
    assert len(GAMING_5) >= 6
    assert all(GAMING_5[name].__name__ == name.replace("-", "_") for name in GAMING_5)


@pytest.mark.parametrize("cheat", sorted(GAMING_5))
def test_no_portfolio_reaches_v2s_headline(
    cheat: str,
    results: dict[tuple[str, str], Values],
    summaries: dict[tuple[str, str], RunSummary],
) -> None:
    """The board's number: the summary's headline, on each split, far under v2's (0.853 /
    0.782); 0.25 bounds every portfolio measured (the best, 0.239 public)."""
    for split in SPLITS:
        headline = summaries[(cheat, split)].headline
        assert headline is not None
        v2 = _headline(results[("v2", split)])
        assert headline.score.value <= 0.25, f"{cheat} on {split}"
        assert headline.score.value < v2 - 0.4, f"{cheat} on {split}"
        assert headline.score.interval.hi < v2, f"{cheat} on {split}"


@pytest.mark.parametrize("cheat", sorted(GAMING_5))
def test_significantly_below_v1(cheat: str, results: dict[tuple[str, str], Values]) -> None:
    assert_below_v1_on_each_split(cheat, results)


@pytest.mark.parametrize("cheat", sorted(set(GAMING_5) - {HASH_GUESS}))
def test_families_stay_where_limits_says(
    cheat: str, results: dict[tuple[str, str], Values]
) -> None:
    """A family at or over the ceiling is one docs/LIMITS.md names, at most what it says
    there: playing the strategies side by side buys nothing a single cheat did not."""
    for at, split in enumerate(SPLITS):
        means = _family_means(results[(cheat, split)])
        high = {f: round(m, 3) for f, m in means.items() if m >= CEILING}
        assert set(high) <= set(KNOWN_ABOVE), f"{cheat} on {split}: {high}"
        over = {f: m for f, m in high.items() if m > KNOWN_ABOVE[f][at]}
        assert over == {}, f"{cheat} on {split}"


def test_a_blind_guess_per_request_is_a_lottery_on_pairs(
    results: dict[tuple[str, str], Values],
) -> None:
    """Refusing when the request's hash is even gets the orientation of about half of the pairs
    right whatever they ask: in refusal-and-safety that is a lottery (0.000 public, 0.500
    private with this hash; over 12 salted hashes 0.094 / 0.146 on average, at most 0.25 /
    0.375), which no rule on one answer can tell from a judgement (docs/LIMITS.md). Its
    headline stays the portfolio's, far under v2's."""
    for split in SPLITS:
        means = _family_means(results[(HASH_GUESS, split)])
        assert means["refusal-and-safety"] <= 0.5, split
        v2 = _family_means(results[("v2", split)])
        assert means["refusal-and-safety"] < v2["refusal-and-safety"] - 0.3, split
        others = {f: m for f, m in means.items() if f != "refusal-and-safety" and m >= CEILING}
        assert set(others) <= {"grounded-qa"}, f"{split}: {others}"


def test_giving_up_where_weak_does_not_raise_the_headline(
    summaries: dict[tuple[str, str], RunSummary],
) -> None:
    """An attempt the cheat chose to fail (what no record may hold: errored) or to make
    unreadable counts 0 in its family: never more than playing on."""
    for split in SPLITS:
        played = summaries[("portfolio", split)].headline
        assert played is not None
        for cheat in ("portfolio-errors-where-weak", "portfolio-unreadable-where-weak"):
            summary = summaries[(cheat, split)]
            assert summary.headline is not None
            assert summary.headline.score.value <= played.score.value, f"{cheat} on {split}"
            assert summary.not_scorable == (), f"{cheat} on {split}"
        errored = summaries[("portfolio-errors-where-weak", split)]
        by_family: dict[str, list[float | None]] = defaultdict(list)
        for record in errored.records:
            if record.outcome == "errored":
                by_family[record.family].append(record.value)
        # it gives up on what looks like a plan: every long plan, and some one-step requests
        assert "long-horizon" in by_family, split
        assert {v for values in by_family.values() for v in values} == {0.0}, split
        assert errored.headline is not None
        assert errored.headline.family_means["long-horizon"] == 0.0


def test_every_attempt_is_counted(runs: Path, results: dict[tuple[str, str], Values]) -> None:
    """No attempt of any portfolio leaves the denominator (not scorable, harness fault,
    skipped); only the one that gives up errs, and only on what it gave up on."""
    seen = 0
    other: list[tuple[str, str]] = []
    for path in sorted(p for p in runs.iterdir() if (p / "config.json").is_file()):
        run = RunDir(path)
        entrant = run.config().entrant
        if not entrant.startswith(PREFIX):
            continue
        for record in run.attempts():
            seen += 1
            if record.outcome == "scored":
                continue
            other.append((entrant, record.outcome))
    assert seen == len(GAMING_5) * 2 * 86
    assert {outcome for _, outcome in other} <= {"errored"}
    assert {entrant for entrant, _ in other} <= {f"{PREFIX}portfolio-errors-where-weak"}
