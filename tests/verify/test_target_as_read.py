"""config.json's target and every attempt hold their values in the kinds their models write.

The re-drive and the replay build the target's model (``TargetSpec``) from config.json, and
pydantic converts a price given as text (``"2.0"``) to the number it names, so the recorded
costs still add up; but the board prints the declared prices beside a row's cost from the
target as written, and prints ``?`` for a price that is not a number. A bundle re-signed with
its prices as text verified and hid, on the board, the prices its cost was computed at (the
one check LIMITS.md offers a reader against a cheap row's claim). Likewise an attempt's flags:
the transcript page reads attempts.jsonl.gz as written, and a check recorded as failed with
``"passed": "false"`` (which pydantic reads as False, so its score still matches) was drawn
"pass" by the page (the text "false" is true in a browser). Each forgery here is re-signed by
the bundle's own key and changes nothing the fingerprint hashes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fixture_bundles import REGEN, base_world

from bench.board.entries import _with_prices
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


def _prices_as_text(config: dict[str, Any]) -> None:
    pricing = config["target"]["pricing"]
    pricing["prompt_per_mtok"] = str(pricing["prompt_per_mtok"])
    pricing["completion_per_mtok"] = str(pricing["completion_per_mtok"])


def _deadline_as_text(config: dict[str, Any]) -> None:
    config["target"]["timeouts"]["deadline_s"] = "300"


def _flag_as_text(config: dict[str, Any]) -> None:
    config["target"]["stream"] = "false"


def _flag_as_number(config: dict[str, Any]) -> None:
    config["target"]["pricing"]["prompt_per_mtok"] = True


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (_prices_as_text, "target.pricing.completion_per_mtok"),
        (_deadline_as_text, "target.timeouts.deadline_s"),
        (_flag_as_text, "target.stream"),
        (_flag_as_number, "target.pricing.prompt_per_mtok"),
    ],
)
def test_a_target_value_in_another_type_than_its_model_reads_is_refused(
    world: Any, edit: Callable[[dict[str, Any]], None], field: str
) -> None:
    REGEN._config_edit(edit)(world)
    verdict = _verify(world)
    assert (verdict.code, verdict.field) == ("RECORD_INVALID", field), verdict
    assert str(verdict.path).endswith("config.json")


def _verdict_as_text(record: dict[str, Any]) -> None:
    verdict = record["verdicts"][0]
    verdict["passed"] = "false" if verdict["passed"] is False else "true"


def _value_as_text(record: dict[str, Any]) -> None:
    record["value"] = str(record["value"])


def _measured_as_number(record: dict[str, Any]) -> None:
    record["trace"]["usage_measured"] = int(record["trace"]["usage_measured"])


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (_verdict_as_text, "verdicts[0].passed"),
        (_value_as_text, "value"),
        (_measured_as_number, "trace.usage_measured"),
    ],
)
def test_an_attempt_value_in_another_kind_than_its_model_writes_is_refused(
    world: Any, edit: Callable[[dict[str, Any]], None], field: str
) -> None:
    REGEN._attempt_edit(edit)(world)
    verdict = _verify(world)
    assert (verdict.code, verdict.field) == ("RECORD_INVALID", field), verdict
    assert str(verdict.path).endswith("attempts.jsonl.gz:1")


def test_prices_as_text_would_hide_the_prices_on_the_board() -> None:
    """What the forgery bought: the card's cost note names no price (the board is not
    changed; verify refuses such a bundle)."""
    shown = _with_prices("$0.01", {"prompt_per_mtok": "1.0", "completion_per_mtok": "2.0"}, True)
    assert "$1" not in shown and "? prompt" in shown


def test_a_whole_number_for_a_price_and_a_target_as_bench_run_wrote_it_verify(world: Any) -> None:
    assert _verify(world).valid  # the base bundle: every value as its model writes it

    def whole(config: dict[str, Any]) -> None:
        config["target"]["pricing"]["prompt_per_mtok"] = 1  # the model's 1.0, by value

    REGEN._config_edit(whole)(world)
    assert _verify(world).valid
