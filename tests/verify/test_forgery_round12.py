"""The forger, twelfth round: what a row's card shows of the server a run was made on, and
the settings that make a row's key.

``server`` in config.json is what the inference server behind an ``openai`` or ``anthropic``
target declared when the run started (``bench.targets.probe``). The board shows it on the
row's card as the engine ("vllm 0.9.2, context window 131072, quantisation FP8") and verbatim
in the card's config block, and it is in the config fingerprint; nothing re-derived it. So a
submitter could edit it, fix the fingerprints, sign with their own key, and the bundle
verified: a scripted agent shown as served by vLLM, an engine no probe names ("OpenAI GPT-5
(official API, verified)"), free text of its own in the card ("reproduced_by": "the
maintainers"), a bidirectional override that draws the block as other words. Now a run
records a server only for a kind the harness probes, in exactly the probe's shape, engine and
text (``bench.verify.server``).

And ``comparable`` (the row's settings, in its fingerprint) had to be its target's own only
up to an unset setting: a copy without ``"system_prompt": null`` verified, with another
fingerprint, so one entrant's one configuration stood as two ranked rows side by side. Now it
is the target's own, key for key. Real runs (the mock server, the scripted mini entrant), real
bundles signed with real keys."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bench.board.build import BuildOptions, build
from bench.records.run import RunConfig
from bench.records.store import RunDir
from bench.runner import RunRequest, start_run
from bench.signing.bundle import build_bundle
from bench.targets import declared
from bench.targets.declared import Answered
from bench.testing.mock_server import MockServer
from bench.verify import BundleVerdict, VerifyOptions, verify_bundle

from .conftest import MINI, signing_keys

ENTRANT = "mini-good"
Server = dict[str, Any]
Edit = Callable[[dict[str, Any]], None]

FORGED = {"engine": "vllm", "version": "0.9.2", "context_window": 131072, "quantisation": "FP8"}


@dataclass(frozen=True)
class Runs:
    mini: Path
    openai: RunDir
    scripted: RunDir


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    """One honest run of the mini public split over ``openai`` (the loopback mock server) and
    one of the scripted ``good`` entrant, made once for the module; each test forges a copy."""
    base = tmp_path_factory.mktemp("round12")
    mini = base / "mini"
    shutil.copytree(MINI, mini, ignore=shutil.ignore_patterns("__pycache__"))
    with MockServer(max_seconds=120) as server:
        target = mini / "targets" / "openai.yaml"
        target.write_text(
            f"format_version: 1\nkind: openai\nentrant: {ENTRANT}\ndisplay_name: mini over "
            f"openai\nmodel: bench-mock\nbase_url: {server.url}/v1\nretry: {{max_attempts: 1}}\n"
        )
        made = {}
        for name, file in (("openai", target), ("scripted", mini / "targets" / "good.yaml")):
            run, status = start_run(
                RunRequest(
                    tasks=mini / "tasks", target_file=file, runs_dir=base / name, split="public"
                )
            )
            assert status.status == "complete"
            made[name] = run
    yield Runs(mini, made["openai"], made["scripted"])


def _forged(run: RunDir, root: Path, server: Server | None, edit: Edit | None = None) -> Path:
    """A copy of ``run`` whose config.json's ``server`` is ``server`` (left as recorded when
    None) or that ``edit`` changed, its fingerprints made consistent again, bundled and signed
    with the entrant's own registered key under ``root/results``: what a submitter can do."""
    keys = signing_keys(root, (ENTRANT,))
    copy = root / "runs" / run.run_id
    shutil.copytree(run.path, copy)
    if server is not None or edit is not None:
        config = json.loads((copy / "config.json").read_text(encoding="utf-8"))
        if server is not None:
            config["server"] = server
        if edit is not None:
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


def _refused(verdict: BundleVerdict, code: str, field: str) -> None:
    assert verdict.code is not None, "the forged server verified"
    assert (verdict.code.value, verdict.field) == (code, field), verdict.message
    assert verdict.path is not None and verdict.path.endswith("config.json")


def test_an_honest_openai_run_records_its_server_and_verifies(runs: Runs, tmp_path: Path) -> None:
    assert runs.openai.config().server == {
        "engine": "bench-mock",
        "version": "1",
        "context_window": None,
        "quantisation": None,
    }
    bundle = _forged(runs.openai, tmp_path, None)
    verdict = _verify(bundle, tmp_path, runs)
    assert verdict.valid, verdict.message


def test_a_scripted_run_that_names_a_server_is_refused_and_its_row_unverified(
    runs: Runs, tmp_path: Path
) -> None:
    """A scripted agent is never probed: its card named vLLM, FP8 and a context window, and
    a claim of the submitter's own in the config block. The board builds only verified rows
    in --strict: verify is where it stops."""
    assert runs.scripted.config().server is None
    bundle = _forged(runs.scripted, tmp_path, {**FORGED, "reproduced_by": "the maintainers"})
    _refused(_verify(bundle, tmp_path, runs), "RECORD_INCONSISTENT", "server")
    board = build(
        BuildOptions(
            runs=None,
            results=tmp_path / "results",
            out=tmp_path / "site",
            submissions=None,
            allowed_signers=tmp_path / "submissions" / "allowed_signers",
            tasks=runs.mini / "tasks",
            resamples=50,
            frontier_resamples=50,
        )
    ).board
    rows = [row for cohort in board.cohorts for row in cohort.entries]
    assert [row.verified for row in rows] == [False]


@pytest.mark.parametrize(
    ("server", "code", "field"),
    [
        ({**FORGED, "reproduced_by": "the maintainers"}, "RECORD_INVALID", "server.reproduced_by"),
        ({**FORGED, "engine": "OpenAI GPT-5 (official API)"}, "RECORD_INVALID", "server.engine"),
        ({**FORGED, "version": "1 \u202e(deifirev ton)\u202c"}, "TEXT_INVALID", "server.version"),
        ({**FORGED, "quantisation": "FP8\u2066 x"}, "TEXT_INVALID", "server.quantisation"),
        ({**FORGED, "context_window": "131072"}, "RECORD_INVALID", "server.context_window"),
        ({**FORGED, "context_window": -1}, "RECORD_INVALID", "server.context_window"),
        ({**FORGED, "version": "9" * 81}, "RECORD_INVALID", "server.version"),
        ({**FORGED, "version": " 0.9"}, "RECORD_INVALID", "server.version"),
        ({k: v for k, v in FORGED.items() if k != "quantisation"}, "RECORD_INVALID", "server"),
    ],
    ids=[
        "a key of its own",
        "an engine no probe names",
        "a bidi override",
        "a bidi isolate",
        "a number as text",
        "a negative window",
        "longer than the probe keeps",
        "not stripped",
        "a field left out",
    ],
)
def test_a_server_the_probe_never_records_is_refused(
    runs: Runs, tmp_path: Path, server: Any, code: str, field: str
) -> None:
    bundle = _forged(runs.openai, tmp_path, server)
    _refused(_verify(bundle, tmp_path, runs), code, field)


def test_another_engine_the_probe_names_is_still_the_endpoints_word(
    runs: Runs, tmp_path: Path
) -> None:
    """What a probed server declared is its endpoint's word, and the endpoint is the
    entrant's (docs/LIMITS.md): a declaration of the probe's own shape verifies."""
    bundle = _forged(runs.openai, tmp_path, FORGED)
    verdict = _verify(bundle, tmp_path, runs)
    assert verdict.valid, verdict.message


def test_the_probe_keeps_only_text_the_board_can_draw() -> None:
    """So an honest run is never refused for what its server said: a declared version or
    quantisation is kept without controls or format characters, stripped, at most 80
    characters (a number as its digits)."""
    found = {"/version": Answered(200, {}, json.dumps({"version": " 1.2\u202e3 "}).encode())}
    assert declared.version(found, lambda _: None) == "1.23"
    long = {"/version": Answered(200, {}, json.dumps({"version": "a" * 79 + " b"}).encode())}
    assert declared.version(long, lambda _: None) == "a" * 79
    number = {"/version": Answered(200, {}, json.dumps({"version": 10**100}).encode())}
    assert declared.version(number, lambda _: None) == "1" + "0" * 79
    bidi = {"/v1/models": Answered(200, {}, b'{"data": [{"id": "m", "quantization": "\\u2067"}]}')}
    assert declared.quantisation(bidi, "m") is None


def test_a_second_row_of_the_same_settings_is_refused(runs: Runs, tmp_path: Path) -> None:
    """The same scripted run twice (an entrant's own runs are never duplicates of each
    other), the second with its unset system prompt left out of ``comparable``: the same
    settings under another fingerprint, so a second ranked row beside the first."""
    assert runs.scripted.config().comparable["system_prompt"] is None

    def drop(config: dict[str, Any]) -> None:
        del config["comparable"]["system_prompt"]

    bundle = _forged(runs.scripted, tmp_path, None, drop)
    _refused(_verify(bundle, tmp_path, runs), "RECORD_INCONSISTENT", "comparable")
