"""What ``bench verify`` says of its replay: how many attempts and from what seed, in words
without parentheses inside parentheses; "not applicable" for an agent's bundle, not "replayed 0
attempt(s)" as if nothing had been checked."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from bench.verify import verify_bundle
from bench.verify.render import render_markdown, render_text

from .test_adversarial import build_world


def test_a_local_check_names_its_predictable_sample_in_plain_words(tmp_path: Path) -> None:
    bundle, options = build_world(tmp_path / "world")
    verdict = verify_bundle(bundle, dataclasses.replace(options, seed=None))
    assert verdict.valid, verdict.message
    text = render_text(verdict)
    assert text.endswith(
        "replayed 3 attempt(s), sample from manifest only, predictable: the bundle is not committed"
    ), text
    assert "((" not in text and "))" not in text
    assert "| sample from | `manifest only, predictable" in render_markdown(verdict)


def test_an_agent_bundle_says_replay_does_not_apply(tmp_path: Path) -> None:
    bundle, options = build_world(tmp_path / "world")
    verdict = dataclasses.replace(verify_bundle(bundle, options), replay_applies=False, replayed=())
    text = render_text(verdict)
    assert text.endswith(
        "; replay: not applicable (an agent's turns are all re-driven by the binding check)"
    ), text
    assert "replayed" not in text
    markdown = render_markdown(verdict)
    assert "| replay | not applicable" in markdown and "| replayed |" not in markdown
