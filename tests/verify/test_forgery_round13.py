"""The forger, thirteenth round: what today's surfaces let a recording carry (a call's provider
state, a target's gateway headers) and what the card's engine comes from.

- A recorded target could set a field its kind never uses: ``bench run`` refuses a target file
  of a ``scripted`` agent that names gateway ``headers``, ``stream`` or a ``base_url``
  (``TARGET_INVALID``), but verify took any valid ``TargetSpec``, so a scripted row's config
  could carry gateway headers it never sent. Now each such field is at
  its default (``bench.verify.targetfields``); a replay keeps its original's target.
- A server whose model entry declares its context window as "²" (``str.isdigit`` is true of
  it, ``int`` refuses it), or as more digits than ``int`` converts, ended ``bench probe`` and
  ``bench run`` in a traceback; one past 2**53 - 1 was recorded in config.json, which verify
  reads no integer past, so the honest run's bundle was unverifiable.
- A call's provider state is held to the recorded response body like the rest of the answer
  (``RECORDING_MISMATCH``; a pin, not a fix).

Real runs (the scripted mini entrant; the loopback mock server over ``anthropic`` with
thinking on), real bundles signed with real keys."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bench.records.run import RunConfig
from bench.records.store import RunDir
from bench.runner import RunRequest, start_run
from bench.signing.bundle import build_bundle
from bench.targets import declared
from bench.targets.base import ModelRequest
from bench.targets.declared import Answered
from bench.testing.mock_server import MockServer
from bench.verify import BundleVerdict, VerifyOptions, verify_bundle

from .conftest import MINI, signing_keys

ENTRANT = "mini-good"
Edit = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Runs:
    mini: Path
    scripted: RunDir
    thinking: RunDir


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    """One honest run of the scripted ``good`` entrant (the public split) and one of a tool
    task over ``anthropic`` with thinking on (the mock server signs its thinking, so every
    tool call carries provider state); each test forges a copy."""
    base = tmp_path_factory.mktemp("round13")
    mini = base / "mini"
    shutil.copytree(MINI, mini, ignore=shutil.ignore_patterns("__pycache__"))
    made = {}
    run, status = start_run(
        RunRequest(
            tasks=mini / "tasks",
            target_file=mini / "targets" / "good.yaml",
            runs_dir=base / "scripted",
            split="public",
        )
    )
    assert status.status == "complete"
    made["scripted"] = run
    with MockServer(max_seconds=120) as server:
        target = mini / "targets" / "thinking.yaml"
        target.write_text(
            f"format_version: 1\nkind: anthropic\nentrant: {ENTRANT}\ndisplay_name: mini "
            f"thinking\nmodel: bench-mock\nbase_url: {server.url}\nretry: {{max_attempts: 1}}\n"
            "params: {max_tokens: 2048, thinking: {type: enabled, budget_tokens: 1024}}\n"
        )
        run, status = start_run(
            RunRequest(
                tasks=mini / "tasks",
                target_file=target,
                runs_dir=base / "thinking",
                task_ids=("tool-0001",),
            )
        )
        assert status.status == "complete"
        made["thinking"] = run
    yield Runs(mini, made["scripted"], made["thinking"])


def _edit_config(copy: Path, edit: Edit) -> None:
    config = json.loads((copy / "config.json").read_text(encoding="utf-8"))
    edit(config)
    fingerprint = RunConfig.model_validate(config).fingerprint()
    (copy / "config.json").write_text(json.dumps(config))
    status = json.loads((copy / "status.json").read_text(encoding="utf-8"))
    status["config_fingerprint"] = fingerprint
    (copy / "status.json").write_text(json.dumps(status))
    for path in (copy / "attempts").iterdir():
        record = json.loads(path.read_text(encoding="utf-8"))
        record["config_fingerprint"] = fingerprint
        path.write_text(json.dumps(record))


def _forged(
    run: RunDir,
    root: Path,
    config: Edit | None = None,
    attempts: Callable[[dict[str, Any]], None] | None = None,
) -> Path:
    """A copy of ``run`` that ``config`` and ``attempts`` changed (the fingerprints and the
    cassette made consistent again), bundled and signed with the entrant's own registered key
    under ``root/results``: what a submitter can do."""
    keys = signing_keys(root, (ENTRANT,))
    copy = root / "runs" / run.run_id
    shutil.copytree(run.path, copy)
    if config is not None:
        _edit_config(copy, config)
    if attempts is not None:
        lines = []
        for path in sorted((copy / "attempts").iterdir()):
            record = json.loads(path.read_text(encoding="utf-8"))
            attempts(record)
            path.write_text(json.dumps(record))
            lines += [
                {"task_id": record["task_id"], "repeat": record["repeat"], **exchange}
                for exchange in record["trace"]["exchanges"]
            ]
        cassette = copy / "cassette.jsonl"
        if cassette.exists():
            cassette.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return build_bundle(
        RunDir(copy),
        entrant=ENTRANT,
        key_file=keys[ENTRANT],
        out_root=root / "results",
        allowed_signers=root / "submissions" / "allowed_signers",
    )


def _verify(bundle: Path, root: Path, runs: Runs) -> BundleVerdict:
    return verify_bundle(
        bundle,
        VerifyOptions(
            results_root=root / "results",
            allowed_signers=root / "submissions" / "allowed_signers",
            tasks=runs.mini / "tasks",
            check_duplicates=False,
            replay_sample=1,
        ),
    )


def _set_target(**fields: Any) -> Edit:
    def edit(config: dict[str, Any]) -> None:
        config["target"].update(fields)

    return edit


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"headers": {"x-portkey-provider": "openai"}}, "target.headers"),
        ({"stream": True}, "target.stream"),
        ({"max_tokens_param": "max_completion_tokens"}, "target.max_tokens_param"),
    ],
    ids=["gateway headers", "a stream flag", "a token cap's name"],
)
def test_a_scripted_target_with_a_setting_its_kind_never_uses_is_refused(
    runs: Runs, tmp_path: Path, fields: dict[str, Any], field: str
) -> None:
    """Not in the fingerprint and not on the card, but no run of a scripted agent records
    them: ``bench run`` refuses such a target file."""
    bundle = _forged(runs.scripted, tmp_path, _set_target(**fields))
    verdict = _verify(bundle, tmp_path, runs)
    assert verdict.code is not None, "the forged target verified"
    assert (verdict.code.value, verdict.field) == ("RECORD_INCONSISTENT", field), verdict.message
    assert verdict.path is not None and verdict.path.endswith("config.json")


def test_honest_runs_and_their_own_settings_verify(runs: Runs, tmp_path: Path) -> None:
    """An anthropic run's own HTTP settings (its headers among them) are its kind's own."""
    bundle = _forged(runs.thinking, tmp_path, _set_target(headers={"x-portkey-provider": "a"}))
    verdict = _verify(bundle, tmp_path, runs)
    assert verdict.valid, verdict.message


def _exchanges(record: dict[str, Any]) -> list[dict[str, Any]]:
    exchanges: list[dict[str, Any]] = record["trace"]["exchanges"]
    return exchanges


def test_a_calls_provider_state_is_held_to_its_response_body(runs: Runs, tmp_path: Path) -> None:
    """The thinking sent back with a call is what the recorded body says came before it:
    a state rewritten in the parsed answer (and everywhere it went back, so the re-drive
    agrees) beside the body the server sent is refused by the wire check."""
    states = [
        call["provider_state"]
        for record in map(
            json.loads, (p.read_text() for p in runs.thinking.path.glob("attempts/*"))
        )
        for exchange in _exchanges(record)
        for call in exchange["response"].get("tool_calls", [])
    ]
    assert states and all(s["blocks"][0]["signature"] == "mock" for s in states), states

    def rewrite(record: dict[str, Any]) -> None:
        # Everywhere the state went (the parsed answers, the later requests and their bodies,
        # the messages), but not the response bodies the server sent; the hashes made again.
        forged = json.loads(json.dumps(record).replace('"signature": "mock"', '"signature": "x"'))
        for mine, theirs in zip(_exchanges(forged), _exchanges(record), strict=True):
            mine["response"]["raw"]["response"] = theirs["response"]["raw"]["response"]
            mine["request_hash"] = ModelRequest.model_validate(mine["request"]).request_hash()
        record.update(forged)

    bundle = _forged(runs.thinking, tmp_path, attempts=rewrite)
    verdict = _verify(bundle, tmp_path, runs)
    assert verdict.code is not None, "the rewritten provider state verified"
    assert verdict.code.value == "RECORDING_MISMATCH", verdict.message
    assert "raw.response" in verdict.message, verdict.message


@pytest.mark.parametrize(
    "declared_window",
    ["²", "1" * 5000, 2**60, str(2**60)],
    ids=["a superscript digit", "past int's digits", "past 2**53", "past 2**53 as text"],
)
def test_a_context_window_no_record_holds_is_not_declared(declared_window: Any) -> None:
    """Was a ValueError out of ``bench probe`` and ``bench run`` (the first two), or a window
    config.json holds past what verify reads (the last two)."""
    entry = {"data": [{"id": "m", "max_model_len": declared_window}]}
    found = {"/v1/models": Answered(200, {}, json.dumps(entry).encode())}
    assert declared.context_window(found, "m") is None
    fine = {"data": [{"id": "m", "max_model_len": "131072"}]}
    assert (
        declared.context_window({"/v1/models": Answered(200, {}, json.dumps(fine).encode())}, "m")
        == 131072
    )
