"""``bench verify`` refuses a run display name that could pass for another whatever its
letters (``bench.core.lookalike.name_problem``): before, such a bundle verified on its PR and
only the board build refused the name. Each forgery is the base bundle's display name
rewritten and re-signed by its own key; the adversarial case is
tests/fixtures/bundles/display_name_mixed_scripts_fail."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fixture_bundles import REGEN, base_world

from bench.verify import BundleVerdict, VerifyOptions, verify_bundle


@pytest.fixture
def world(tmp_path: Path) -> Any:
    return base_world(tmp_path)


def _verify(world: Any) -> BundleVerdict:
    return verify_bundle(
        world.bundle,
        VerifyOptions(
            results_root=world.root / "results",
            allowed_signers=world.signers,
            tasks=world.root / "mini" / "tasks",
            replay_sample=3,
            seed=7,
        ),
    )


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("b\u043eb's agent", "U+043E CYRILLIC SMALL LETTER O (Cyrillic) among Latin letters"),
        ("\u13aaBC Agent", "U+13AA CHEROKEE LETTER GO (Cherokee) among Latin letters"),
        ("mini\u3164good", "U+3164 HANGUL FILLER, which draws nothing"),
        ("mini \u0363gent", "U+0363 COMBINING LATIN SMALL LETTER A, a letter drawn over"),
    ],
)
def test_a_run_name_that_could_pass_for_another_is_refused(
    world: Any, name: str, said: str
) -> None:
    REGEN._display_name(name)(world)
    verdict = _verify(world)
    assert (verdict.code, verdict.field, verdict.exit_code) == ("NAME_LOOKALIKE", "display_name", 1)
    assert str(verdict.path).endswith("config.json")
    assert said in verdict.message and ascii(name) in verdict.message
    assert "re-run under another display name" in verdict.message


@pytest.mark.parametrize("name", ["Яндекс агент", "通义千问 Qwen agent", "Émile's agent ☀️"])
def test_a_name_in_one_script_verifies(world: Any, name: str) -> None:
    REGEN._display_name(name)(world)
    verdict = _verify(world)
    assert verdict.code is None, verdict


def test_a_format_character_is_still_text_invalid(world: Any) -> None:
    """A zero-width joiner also draws nothing; the text rule that came first still names it."""
    REGEN._display_name("mini\u200dgood")(world)
    verdict = _verify(world)
    assert (verdict.code, verdict.field) == ("TEXT_INVALID", "display_name"), verdict
