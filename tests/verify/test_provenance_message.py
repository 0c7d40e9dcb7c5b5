"""``DUPLICATE_BUNDLE`` says which rule matched, with that rule's counts, and what to do when the
bundle is the user's own agent: a copy of an extractive agent (one quoting the top passage) has
no attempt with words of its own, and the message read "0 of its 0 attempts in its own words"."""

from __future__ import annotations

from pathlib import Path

from bench.verify import verify_bundle
from bench.verify.provenance import Overlap

from .test_adversarial import build_world


def test_the_everything_rule_is_named_with_its_counts() -> None:
    said = Overlap(own_shared=0, own_compared=0, all_shared=9, all_compared=10).describe("X")
    assert "0 of its 0" not in said
    assert said.startswith("9 of its 10 attempts with an answer or a tool call")
    assert "the everything rule: 90% or more of at least 3" in said
    assert "baseline-quote-top-passage" in said and "own words" in said
    assert "under the earlier one's entrant" in said


def test_the_own_words_rule_is_named_with_its_counts() -> None:
    said = Overlap(own_shared=3, own_compared=4, all_shared=3, all_compared=8).describe("X")
    assert said.startswith("3 of its 4 attempts with words of their own")
    assert "the own-words rule: 50% or more of at least 3" in said
    assert "3 of its 8" not in said and "quote" not in said
    assert "under the earlier one's entrant" in said


def test_a_copied_extractive_bundle_is_told_which_rule_matched(tmp_path: Path) -> None:
    bundle, options = build_world(tmp_path / "world", "stolen_results_fail")
    verdict = verify_bundle(bundle, options)
    assert verdict.code is not None and verdict.code.value == "DUPLICATE_BUNDLE"
    assert "0 of its 0" not in verdict.message
    assert verdict.message.startswith(
        "3 of its 3 attempts with an answer or a tool call, on tasks both attempted, are near "
        "copies of those in results/mini-good/20260101T000000Z-000a11, which came first "
        "(the everything rule"
    ), verdict.message
