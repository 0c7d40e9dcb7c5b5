"""N-gram leak known answers (docs/TASKSET.md), and the lint over the committed set."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from bench.cli.task_cmd import task as task_group
from bench.stats.leaks import CONTAMINATED, find_leaks, normalise, overlap

WORDS = [f"w{i}" for i in range(1, 31)]
TEXT = " ".join(WORDS)
REPO = Path(__file__).resolve().parents[2]


def test_recased_and_punctuated_text_shares_every_13_gram() -> None:
    variant = ", ".join(word.upper() for word in WORDS) + "!"
    assert normalise(variant) == WORDS
    assert overlap(TEXT, variant, 13) == (18, 18)


def test_word_15_replaced_is_flagged_but_not_contaminated() -> None:
    changed = list(WORDS)
    changed[14] = "other"
    variant = " ".join(changed)
    assert overlap(variant, TEXT, 13) == (5, 18)
    shared, total = overlap(variant, TEXT, 8)
    assert (shared, total) == (15, 23)
    assert round(shared / total, 3) == 0.652 and shared / total < CONTAMINATED
    findings = find_leaks([("a", "public", TEXT), ("b", "private", variant)], template=["x"])
    assert [f.kind for f in findings] == ["leak"]
    assert "below the 70% line" in findings[0].detail


def test_short_texts_need_an_exact_normalised_match() -> None:
    found = find_leaks([("a", "public", "Cancel my order!"), ("b", "public", "cancel my ORDER")])
    assert [(f.kind, f.detail) for f in found] == [("duplicate", "exact normalised match")]
    assert find_leaks([("a", "public", "Cancel my order"), ("b", "public", "Pause my plan")]) == []


def test_committed_set_lints_clean() -> None:
    result = CliRunner().invoke(task_group, ["lint", str(REPO / "tasks")])
    assert result.exit_code == 0, result.output
    assert "no near-duplicates or leaks" in result.output
    assert result.stdout.startswith("ok: 172 task(s), all distinct; ")
    assert "no plan copies or shared passages, no 'bench check' findings" in result.stdout
    assert "no task passed by 4 baseline(s)" in result.stdout
