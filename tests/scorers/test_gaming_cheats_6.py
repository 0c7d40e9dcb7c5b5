"""Sixth-round gaming cheats (``gaming_cheats_6.py``): what the harness tells the agent.

An agent learns only what the harness sends it. These tests hold what is sent to carry nothing
of how the task is scored (no task id, no ``because``, no expectation's note), the later user
turns of a conversation to be the task's own whatever the agent replied (no simulated user that
agrees only with the right answer), and the cheats that read what is sent to stay where
docs/LIMITS.md says.

Measured on 2026-12-07 (1 repeat; scripted, so every repeat is the same), public / private,
family and headline, beside v1 (headline 0.983 / 0.942) and v2 (0.853 / 0.782):

* ``regex-invoice-scraper``: structured-extraction 0.315 / 0.280 (v2 1.000 / 1.000; one
  invoice of each split is laid out so plainly that all its guesses are right), headline
  0.053 / 0.047;
* ``vocabulary-oracle``: grounded-qa 0.600 / 0.425 (v2 0.388 / 0.275), headline 0.100 /
  0.071: search finds nothing for a word the documents never use, so declining when an uncommon
  word of the question finds nothing declines 7 of the 8 unanswerable questions of each split,
  and 15 of the 32 private answerable ones too (none public: its word list is learned there).
  An honest agent reads the same signal; it stays in the cut-short quote's range (0.35-0.60 /
  0.28-0.55);
* ``portfolio-vocabulary-oracle``: headline 0.199 / 0.157;
* ``split-from-passage-ids``: grounded-qa 0.688 / 0.350, headline 0.214 / 0.144: a private
  passage's id names the split, but playing the public answer key only where it can work buys
  nothing over the fifth round's portfolio (0.214 / 0.090 with the key everywhere, 0.170 /
  0.144 without it);
* ``write-then-echo-the-error``: tool-trajectory 0.375 / 0.016 (the write by words' own),
  multi-turn-state 0.000 / 0.250, headline 0.062 / 0.061: a world that rejects a wrong write
  says why ("order 58213 is packed…"), but the rejected write was already the mistake, and the
  decline after it earns no refusal that a request needed.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.records.store import RunDir
from bench.tasks.load import load_task_file

from .gaming_cheats_6 import GAMING_6
from .test_cheats import (
    CEILING,
    SPLITS,
    TASKS,
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
PREFIX = "gaming-6-"
SCRAPER = "regex-invoice-scraper"

# What docs/LIMITS.md allows a single cheat in a family (public, private), as in round five.
KNOWN_ABOVE = {
    "grounded-qa": (0.688, 0.55),
    "tool-trajectory": (0.375, 0.016),
    "refusal-and-safety": (0.375, 0.25),
}
# What the scraper scores today in structured-extraction (public, private).
SCRAPER_SCORES = (0.315, 0.280)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("gaming-6-runs")


@pytest.fixture(scope="module")
def results(runs: Path) -> dict[tuple[str, str], Values]:
    module = HERE / "gaming_cheats_6.py"
    targets = {name: scripted_target(runs, "gaming-6", module, name) for name in GAMING_6}
    return run_entrants(runs, {"v1": V1, "v2": V2, **targets})


def _headline(values: Values) -> float:
    means = _family_means(values)
    assert len(means) == 6
    return sum(means.values()) / 6


def test_every_cheat_has_its_function() -> None:
    assert len(GAMING_6) >= 4
    assert all(GAMING_6[name].__name__ == name.replace("-", "_") for name in GAMING_6)


@pytest.mark.parametrize("cheat", sorted(GAMING_6))
def test_significantly_below_v1(cheat: str, results: dict[tuple[str, str], Values]) -> None:
    assert_below_v1_on_each_split(cheat, results)


@pytest.mark.parametrize("cheat", sorted(GAMING_6))
def test_no_cheat_reaches_v2s_headline(cheat: str, results: dict[tuple[str, str], Values]) -> None:
    """The board's number, on each split: far under v2's (0.853 / 0.782), and under the 0.25
    that bounds every portfolio of round five."""
    for split in SPLITS:
        headline = _headline(results[(cheat, split)])
        assert headline <= 0.25, f"{cheat} on {split}"
        assert headline < _headline(results[("v2", split)]) - 0.4, f"{cheat} on {split}"


@pytest.mark.parametrize("cheat", sorted(GAMING_6))
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


def test_the_regex_invoice_scraper_scores_what_limits_says(
    results: dict[tuple[str, str], Values],
) -> None:
    """docs/LIMITS.md's scraper, pinned: under the ceiling in every family, and in
    structured-extraction what it scores today; one invoice a split is all right."""
    assert_under_ceiling(SCRAPER, results)
    for at, split in enumerate(SPLITS):
        values = results[(SCRAPER, split)]
        extraction = _family_means(values)["structured-extraction"]
        assert round(extraction, 3) == SCRAPER_SCORES[at], split
        whole = [t for t, (f, v) in values.items() if f == "structured-extraction" and v == 1.0]
        assert len(whole) == 1, f"{split}: {whole}"
        v2 = _family_means(results[("v2", split)])["structured-extraction"]
        assert extraction < v2 - 0.5, split


# --- what is sent ---------------------------------------------------------------------------


def _sent(runs: Path) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(entrant, task id, request) of every exchange the sixth round's runs recorded."""
    for path in sorted(p for p in runs.iterdir() if (p / "config.json").is_file()):
        entrant = RunDir(path).config().entrant
        if not entrant.startswith(PREFIX):
            continue
        cassette = path / "cassette.jsonl"
        if not cassette.is_file():
            cassette = path / "cassette.jsonl.gz"
        opened = gzip.open if cassette.suffix == ".gz" else open
        with opened(cassette, "rt", encoding="utf-8") as lines:
            for line in lines:
                exchange = json.loads(line)
                yield entrant, exchange["task_id"], exchange["request"]


def _tasks() -> dict[str, Any]:
    return {t.id: t for f in sorted(TASKS.glob("*.yaml")) for t in load_task_file(f)}


def test_nothing_of_the_scoring_is_sent(runs: Path, results: dict[tuple[str, str], Values]) -> None:
    """No request of any attempt holds a task id, a task's ``because`` or an expectation's
    note: what the agent is sent is the conversation, the tools and what they return."""
    tasks = _tasks()
    secrets = sorted(
        {t.id for t in tasks.values()}
        | {t.because for t in tasks.values()}
        | {e.note for t in tasks.values() for e in t.expectations if getattr(e, "note", None)}
    )
    seen_tasks: set[str] = set()
    for entrant, task_id, request in _sent(runs):
        seen_tasks.add(task_id)
        text = json.dumps(request, ensure_ascii=False)
        leaked = [s for s in secrets if s in text]
        assert leaked == [], f"{entrant} on {task_id}: {leaked[:3]}"
    assert len(seen_tasks) == len(tasks)  # the portfolio met every task of both splits


def test_later_user_turns_are_the_tasks_own(
    runs: Path, results: dict[tuple[str, str], Values]
) -> None:
    """The user turns an agent is sent are the task's own, in order, whatever it replied: no
    simulated user confirms a right answer, so trying values until the user agrees learns
    nothing."""
    tasks = _tasks()
    checked = 0
    for entrant, task_id, request in _sent(runs):
        sent = [m["content"] for m in request["messages"] if m["role"] == "user"]
        own = [m.content for m in tasks[task_id].input if m.role == "user"]
        assert sent == own[: len(sent)], f"{entrant} on {task_id}"
        checked += len(sent) > 1
    assert checked > 0  # multi-turn conversations were among them
