"""Forgeries of what the board and the transcript page show beside a row, each re-signed by the
bundle's own registered key and kept consistent everywhere else (fingerprints, cassette), so
that only the check under test can catch it (``bench.verify.timing``, ``bench.verify.display``,
``bench.verify.records``):

* a lower latency than the attempt's own model calls took (the board's p95 latency);
* attempt and status times after the bundle was made, an end before its start, a time
  without a zone (the transcript page prints them);
* a model name, a setting or a claimed judge with a bidirectional control (the card prints
  them character for character: "mini\\u202e5-tpg" is drawn as "mini" then "gpt-5");
* a seed bench run never records (a negative one stopped the board's build with a traceback:
  the row's headline interval is drawn with it, and the draws take no negative seed).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fixture_bundles import OWNER, REGEN, base_world

from bench.records.run import RunConfig
from bench.verify import BundleVerdict, VerifyOptions, verify_bundle

BUNDLES = Path(__file__).resolve().parents[1] / "fixtures" / "bundles"
BASE = BUNDLES / "_base"

Records = list[dict[str, Any]]


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


def _cassette_of(records: Records) -> list[dict[str, Any]]:
    """The cassette ``bench bundle`` writes for these attempts: each model call, in order."""
    return [
        {"task_id": r["task_id"], "repeat": r["repeat"], **exchange}
        for r in records
        for exchange in r["trace"]["exchanges"]
    ]


def _forge(
    world: Any,
    *,
    config: Callable[[dict[str, Any]], None] | None = None,
    status: Callable[[dict[str, Any]], None] | None = None,
    attempts: Callable[[Records], None] | None = None,
) -> None:
    """Edit the records, keep every copy and fingerprint consistent, re-list and re-sign."""
    bundle = world.bundle
    config_value = json.loads((bundle / "config.json").read_bytes())
    status_value = json.loads((bundle / "status.json").read_bytes())
    records = REGEN._attempts(bundle)
    if config is not None:
        config(config_value)
    fingerprint = RunConfig.model_validate(config_value).fingerprint()
    status_value["config_fingerprint"] = fingerprint
    for record in records:
        record["config_fingerprint"] = fingerprint
    if status is not None:
        status(status_value)
    if attempts is not None:
        attempts(records)
    files = {
        "config.json": REGEN._pretty(config_value),
        "target.json": REGEN._pretty(config_value["target"]),
        "status.json": REGEN._pretty(status_value),
        "attempts.jsonl.gz": REGEN._attempts_bytes(records),
        "cassette.jsonl": REGEN._cassette_bytes(_cassette_of(records)),
    }
    manifest = REGEN._read_manifest(bundle)
    for name, data in files.items():
        (bundle / name).write_bytes(data)
        for entry in manifest["files"]:
            if entry["path"] == name:
                entry.update(sha256=hashlib.sha256(data).hexdigest(), size=len(data))
    manifest["config_fingerprint"] = fingerprint
    REGEN._relist(bundle, manifest, OWNER)


def _code(verdict: BundleVerdict) -> str:
    return verdict.code.value if verdict.code else "valid"


def test_the_forge_itself_changes_no_verdict(world: Any) -> None:
    """Re-written and re-signed with nothing changed, the bundle is still valid: every refusal
    below is the edit's, not the forge's."""
    _forge(world)
    assert _code(_verify(world)) == "valid"


# -- latency ----------------------------------------------------------------------------------


def _calls_take(seconds: float, total: float) -> Callable[[Records], None]:
    def edit(records: Records) -> None:
        for record in records:
            for exchange in record["trace"]["exchanges"]:
                exchange["latency_s"] = seconds
            record["trace"]["latency_s"] = total

    return edit


def test_a_latency_below_its_own_model_calls_is_refused(world: Any) -> None:
    """Every model call recorded at 2.5 s (in the attempt and the cassette alike), the attempt
    claims 0.01 s: the board's p95 latency would be 0.01 s, against 5 s the recording shows."""
    _forge(world, attempts=_calls_take(2.5, 0.01))
    verdict = _verify(world)
    assert _code(verdict) == "RECORD_INCONSISTENT", verdict.message
    assert verdict.path is not None and verdict.path.endswith("attempts.jsonl.gz")
    assert verdict.field == "qa-0001#0.trace.latency_s"
    assert "less than its own model calls took" in verdict.message


def test_a_latency_that_covers_its_model_calls_is_valid(world: Any) -> None:
    """The calls take 2.5 s each and the attempt 10 s (more: tools and the loop run between
    calls): consistent, so valid. So is every figure lowered alike, down to zero: a recording
    timed by hand (docs/LIMITS.md, "Latency and tokens are the entrant's own measurements")."""
    _forge(world, attempts=_calls_take(2.5, 10.0))
    assert _code(_verify(world)) == "valid"
    _forge(world, attempts=_calls_take(0.0, 0.0))
    assert _code(_verify(world)) == "valid"


# -- clock times ------------------------------------------------------------------------------


def _first_attempt(**changes: str) -> Callable[[Records], None]:
    def edit(records: Records) -> None:
        records[0].update(changes)

    return edit


@pytest.mark.parametrize(
    ("changes", "code", "field"),
    [
        (
            {"started_at": "2030-01-01T00:00:00Z", "finished_at": "2030-01-01T00:00:00Z"},
            "CREATED_IN_FUTURE",
            "qa-0001#0.finished_at",
        ),
        ({"started_at": "2026-01-01T00:00:09Z"}, "RECORD_INCONSISTENT", "qa-0001#0.finished_at"),
        ({"started_at": "2026-01-01T00:00:00"}, "RECORD_INVALID", "qa-0001#0.started_at"),
        ({"finished_at": "2026-01-01T01:00:00+01:00"}, "RECORD_INVALID", "qa-0001#0.finished_at"),
    ],
    ids=["after-the-bundle", "ends-before-it-starts", "no-zone", "not-utc"],
)
def test_an_attempts_clock_times_are_bound(
    world: Any, changes: dict[str, str], code: str, field: str
) -> None:
    _forge(world, attempts=_first_attempt(**changes))
    verdict = _verify(world)
    assert (_code(verdict), verdict.field) == (code, field), verdict.message
    assert verdict.path is not None and verdict.path.endswith("attempts.jsonl.gz")


def test_an_attempt_within_the_clock_skew_of_the_bundle_is_valid(world: Any) -> None:
    """Four minutes after the bundle's time: within the five minutes verify allows a clock."""
    _forge(world, attempts=_first_attempt(finished_at="2026-01-01T00:04:00Z"))
    assert _code(_verify(world)) == "valid"


@pytest.mark.parametrize(
    ("field", "value", "code"),
    [
        ("updated_at", "2030-01-01T00:00:00Z", "CREATED_IN_FUTURE"),
        ("finished_at", "2026-01-01T00:00:00", "RECORD_INVALID"),
    ],
)
def test_the_status_times_are_bound(world: Any, field: str, value: str, code: str) -> None:
    def edit(status: dict[str, Any]) -> None:
        status[field] = value

    _forge(world, status=edit)
    verdict = _verify(world)
    assert (_code(verdict), verdict.field) == (code, field), verdict.message
    assert verdict.path is not None and verdict.path.endswith("status.json")


# -- the settings the card shows --------------------------------------------------------------


def _rename_model(name: str) -> Callable[[dict[str, Any]], None]:
    def edit(config: dict[str, Any]) -> None:
        config["target"]["model"] = config["comparable"]["model"] = name

    return edit


@pytest.mark.parametrize("name", ["mini\u202e5-tpg", "mini\u2067good", "mini\u200bgood"])
def test_a_model_name_with_a_bidi_or_format_character_is_refused(world: Any, name: str) -> None:
    """Checked with the records, before the re-drive: the requests need not be rewritten."""
    _forge(world, config=_rename_model(name))
    verdict = _verify(world)
    assert (_code(verdict), verdict.field) == ("TEXT_INVALID", "comparable.model"), verdict
    assert verdict.path is not None and verdict.path.endswith("config.json")


def test_a_setting_with_a_bidi_control_is_refused(world: Any) -> None:
    def edit(config: dict[str, Any]) -> None:
        prompt = "Answer in English.\u202e Ignore the shop's refund policy."
        config["target"]["system_prompt"] = config["comparable"]["system_prompt"] = prompt

    _forge(world, config=edit)
    verdict = _verify(world)
    assert (_code(verdict), verdict.field) == ("TEXT_INVALID", "comparable.system_prompt")


# -- the seed ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [-1, 2**53])
def test_a_seed_bench_run_never_records_is_refused(world: Any, seed: int) -> None:
    """bench run takes a seed from 0 to 2**53 - 1 (SEED_INVALID); a negative one stopped the
    board's build with a traceback (the headline's draws take none)."""

    def edit(config: dict[str, Any]) -> None:
        config["seed"] = seed

    _forge(world, config=edit)
    verdict = _verify(world)
    assert (_code(verdict), verdict.field) == ("RECORD_INVALID", "seed"), verdict.message
    assert verdict.path is not None and verdict.path.endswith("config.json")


def test_any_other_seed_is_the_submitters_word(world: Any) -> None:
    """docs/LIMITS.md, "Seeds, dates and budgets are the submitter's word"."""

    def edit(config: dict[str, Any]) -> None:
        config["seed"] = 2**53 - 1

    _forge(world, config=edit)
    assert _code(_verify(world)) == "valid"


def test_a_claimed_judge_with_a_bidi_control_is_refused(world: Any) -> None:
    """The card shows the judge's fingerprint beside the settings; a run claims one at will
    (docs/LIMITS.md), but not one drawn as other words."""

    def edit(config: dict[str, Any]) -> None:
        config["judge"] = {
            "model": "judge\u202eledom",
            "temperature": 0,
            "fingerprint": "0f1e2d3c4b5a6978",
            "trusted": False,
            "trust_note": "no calibration on file for this judge",
            "calibration": None,
        }

    _forge(world, config=edit)
    verdict = _verify(world)
    assert (_code(verdict), verdict.field) == ("TEXT_INVALID", "judge.model")
