"""An attempt's ``reason`` is bound to its recording (bench.verify.binding, scores): the board
prints it beside a failed task ("errored: ..."), so a submitter must not be able to write
there what the run did not end with (e.g. blame the harness for the entrant's failures).
Real runs of the mini entrants, real bundles signed with real keys."""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import rfc8785
from cryptography.hazmat.primitives import serialization

from bench.runner import RunRequest, start_run
from bench.signing import sign
from bench.signing.bundle import build_bundle, deterministic_gzip
from bench.testing.agent_server import AgentServer
from bench.verify import VerifyOptions, verify_bundle
from bench.verify.binding import same_reason

from .conftest import MINI, signing_keys

ENTRANTS = ("mini-crashes-on-refunds", "mini-agent", "mini-slow")
BLAME = "HARNESS_EXCEPTION: the benchmark's mock world crashed (not the agent)"


@pytest.fixture
def mini(tmp_path: Path) -> Path:
    import shutil

    root = tmp_path / "mini"
    shutil.copytree(MINI, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Path]:
    return signing_keys(tmp_path, ENTRANTS)


@pytest.fixture
def agent() -> Iterator[AgentServer]:
    with AgentServer() as server:
        yield server


def _bundle(root: Path, mini: Path, target: Path, entrant: str, keys: dict[str, Path],
            **request: object) -> Path:  # fmt: skip
    run, status = start_run(
        RunRequest(tasks=mini / "tasks", target_file=target, runs_dir=root / "runs",
                   split="public", **request)  # type: ignore[arg-type]
    )  # fmt: skip
    assert status.status == "complete"
    return build_bundle(
        run,
        entrant=entrant,
        key_file=keys[entrant],
        out_root=root / "results",
        allowed_signers=root / "submissions" / "allowed_signers",
    )


def _options(root: Path, mini: Path) -> VerifyOptions:
    return VerifyOptions(
        results_root=root / "results",
        allowed_signers=root / "submissions" / "allowed_signers",
        tasks=mini / "tasks",
    )


def _attempts(bundle: Path) -> list[dict[str, object]]:
    raw = gzip.decompress((bundle / "attempts.jsonl.gz").read_bytes())
    return [json.loads(line) for line in raw.splitlines() if line.strip()]


def _resign_attempts(bundle: Path, key_file: Path, records: list[dict[str, object]]) -> None:
    """The attempts replaced by ``records``, listed honestly and re-signed by the owner."""
    data = deterministic_gzip(b"".join(json.dumps(r).encode() + b"\n" for r in records))
    (bundle / "attempts.jsonl.gz").write_bytes(data)
    manifest = json.loads((bundle / "manifest.json").read_bytes())
    for entry in manifest["files"]:
        if entry["path"] == "attempts.jsonl.gz":
            entry.update(sha256=hashlib.sha256(data).hexdigest(), size=len(data))
    raw = rfc8785.dumps(manifest)
    (bundle / "manifest.json").write_bytes(raw)
    key = serialization.load_ssh_private_key(key_file.read_bytes(), password=None)
    (bundle / "manifest.json.sig").write_text(sign(raw, key))  # type: ignore[arg-type]


def _reworded(bundle: Path, key_file: Path, outcome: str, reason: str | None) -> str:
    """Every attempt of ``outcome`` given ``reason``; returns the first one's ``task#repeat``."""
    records = _attempts(bundle)
    chosen = [r for r in records if r["outcome"] == outcome]
    assert chosen, f"the run has no {outcome} attempt"
    for record in chosen:
        record["reason"] = reason
    _resign_attempts(bundle, key_file, records)
    return f"{chosen[0]['task_id']}#{chosen[0]['repeat']}"


def test_an_errored_attempts_reason_is_the_one_its_recording_ends_with(
    tmp_path: Path, mini: Path, keys: dict[str, Path]
) -> None:
    """A run the board publishes (some attempts scored) whose entrant's exceptions are
    reworded to blame the harness: valid before, REPLAY_MISMATCH after."""
    entrant = "mini-crashes-on-refunds"
    target = mini / "targets" / "crashes_on_refunds.yaml"
    bundle = _bundle(tmp_path, mini, target, entrant, keys)
    records = _attempts(bundle)
    assert {r["outcome"] for r in records} == {"scored", "errored"}
    verdict = verify_bundle(bundle, _options(tmp_path, mini))
    assert verdict.valid, verdict.message
    where = _reworded(bundle, keys[entrant], "errored", BLAME)
    verdict = verify_bundle(bundle, _options(tmp_path, mini))
    assert verdict.code is not None and verdict.code.value == "REPLAY_MISMATCH", verdict.message
    assert verdict.field == where and "reason" in verdict.message


def test_a_reason_removed_from_an_errored_attempt_is_refused(
    tmp_path: Path, mini: Path, keys: dict[str, Path]
) -> None:
    entrant = "mini-crashes-on-refunds"
    target = mini / "targets" / "crashes_on_refunds.yaml"
    bundle = _bundle(tmp_path, mini, target, entrant, keys)
    _reworded(bundle, keys[entrant], "errored", None)
    verdict = verify_bundle(bundle, _options(tmp_path, mini))
    assert verdict.code is not None and verdict.code.value == "REPLAY_MISMATCH", verdict.message


def test_a_scored_attempt_has_no_reason(tmp_path: Path, mini: Path, keys: dict[str, Path]) -> None:
    entrant = "mini-crashes-on-refunds"
    target = mini / "targets" / "crashes_on_refunds.yaml"
    bundle = _bundle(tmp_path, mini, target, entrant, keys)
    where = _reworded(bundle, keys[entrant], "scored", "graded by hand: a pass")
    verdict = verify_bundle(bundle, _options(tmp_path, mini))
    assert verdict.code is not None and verdict.code.value == "SCORE_MISMATCH", verdict.message
    assert verdict.field == f"{where}.reason"


def test_an_agents_reply_without_an_answer_keeps_its_own_reason(
    tmp_path: Path, mini: Path, keys: dict[str, Path], agent: AgentServer
) -> None:
    """The re-drive raises the very error the http-agent target raised (AGENT_NO_ANSWER and
    its words), so an honest bundle's reasons match and a reworded one does not. Every attempt
    errored, so the honest bundle reaches the error-rate check, the last."""
    target = mini / "targets" / "agent.yaml"
    target.write_text(
        "format_version: 1\nkind: http-agent\nentrant: mini-agent\ndisplay_name: mini agent\n"
        f"model: example-agent\nbase_url: {agent.url}/empty\n"
    )
    bundle = _bundle(tmp_path, mini, target, "mini-agent", keys)
    assert all(str(r["reason"]).startswith("AGENT_NO_ANSWER") for r in _attempts(bundle))
    verdict = verify_bundle(bundle, _options(tmp_path, mini))
    assert verdict.code is not None and verdict.code.value == "ERROR_RATE_HIGH", verdict.message
    _reworded(bundle, keys["mini-agent"], "errored", BLAME)
    verdict = verify_bundle(bundle, _options(tmp_path, mini))
    assert verdict.code is not None and verdict.code.value == "REPLAY_MISMATCH", verdict.message


def test_a_timeouts_reason_is_the_attempts_own_limit(
    tmp_path: Path, mini: Path, keys: dict[str, Path]
) -> None:
    """An attempt its time limit stopped shows it only by its recording ending: the reason
    must be that limit's sentence, with the limit the run recorded."""
    target = mini / "targets" / "hangs.yaml"
    bundle = _bundle(tmp_path, mini, target, "mini-slow", keys, attempt_timeout_s=2)
    records = _attempts(bundle)
    stopped = [r for r in records if r["outcome"] == "errored"]
    assert stopped and all(r["reason"] == "no final answer within 2s (attempt timeout)"
                           for r in stopped)  # fmt: skip
    verdict = verify_bundle(bundle, _options(tmp_path, mini))
    assert verdict.valid, verdict.message
    _reworded(bundle, keys["mini-slow"], "errored", "no final answer within 600s (attempt timeout)")
    verdict = verify_bundle(bundle, _options(tmp_path, mini))
    assert verdict.code is not None and verdict.code.value == "REPLAY_MISMATCH", verdict.message


def test_only_the_paths_bench_bundle_rewrites_may_differ() -> None:
    derived = "ENTRANT_EXCEPTION: FileNotFoundError: [Errno 2] No such file: '/home/al/x.json'"
    assert same_reason(derived, derived)
    assert same_reason(derived.replace("/home/al/x.json", "~/x.json"), derived)
    assert same_reason(derived.replace("'/home/al/x.json'", "<local>/x.json"), derived)
    assert not same_reason(derived.replace("No such", "Harness lost the"), derived)
    assert not same_reason(derived + " (the harness's fault)", derived)
    assert not same_reason(None, derived)
    assert same_reason(None, None) and not same_reason("text", None)


def test_a_paths_place_holds_only_that_paths_rewriting() -> None:
    # A word holding "/" may differ only as bench bundle rewrites a path: its last name kept
    # (relative, ~/..., <local>/...) or a bare root. Before, any word with a slash could go
    # there: a submitter's re-signed reason could name "harness/fault" or another URL.
    derived = "ENDPOINT_ERROR: HTTP 500 from http://127.0.0.1:8000/v1/chat/completions"
    assert not same_reason(
        derived.replace("http://127.0.0.1:8000/v1/chat/completions", "harness/fault"), derived
    )
    assert not same_reason(derived.replace("127.0.0.1:8000", "evil.example"), derived)
    opened = "ENTRANT_EXCEPTION: FileNotFoundError: [Errno 2] No such file: '/home/al/x.json'"
    assert not same_reason(opened.replace("/home/al/x.json", "harness/fault"), opened)
    assert not same_reason(opened.replace("/home/al/x.json", "/the/harness/lost/it"), opened)
    # what bench bundle really writes (PortablePaths) still reads as the same reason
    for claimed in ("'data/x.json'", "'x.json'", "'~/x.json'", "'<local>/x.json'"):
        assert same_reason(opened.replace("'/home/al/x.json'", claimed), opened), claimed
    home = "cannot write /home/al: read-only"
    for claimed in ("~:", "<local>", "~/:", ".:"):
        assert same_reason(home.replace("/home/al:", claimed), home), claimed
    assert not same_reason(home.replace("/home/al:", "harness:"), home)


def test_bundle_rewrites_read_as_the_same_reason(tmp_path: Path) -> None:
    from bench.core.secrets import PortablePaths

    work, home = tmp_path / "work", tmp_path / "home"
    paths = PortablePaths.here(cwd=work, home=home)
    places = (work / "data" / "x.json", home / "x.json", Path("/tmp/else/x.json"), home, work)
    for where in places:
        derived = f"ENTRANT_EXCEPTION: FileNotFoundError: No such file: '{where}' (then gave up)"
        rewritten = paths.text(derived)
        assert rewritten != derived
        assert same_reason(rewritten, derived), rewritten


def test_a_harness_faults_reason_is_the_fault_its_re_drive_raises(
    tmp_path: Path, mini: Path, keys: dict[str, Path]
) -> None:
    """A real harness fault (the task's world cannot apply a refund: WORLD_TOOL_DATA) keeps
    its code; its words reworded to something the harness never said are refused."""
    tasks = mini / "tasks" / "mini.yaml"
    text = tasks.read_text()
    tasks.write_text(text.replace("value: refunded", 'value: "{reason}"', 1))
    target = mini / "targets" / "crashes_on_refunds.yaml"
    good = mini / "targets" / "good.yaml"
    target.write_text(good.read_text().replace("mini-good", "mini-crashes-on-refunds"))
    entrant = "mini-crashes-on-refunds"
    bundle = _bundle(tmp_path, mini, target, entrant, keys)
    assert [r["fault"] for r in _attempts(bundle) if r["outcome"] == "harness_fault"] == [
        "WORLD_TOOL_DATA"
    ]
    verdict = verify_bundle(bundle, _options(tmp_path, mini))
    assert verdict.valid, verdict.message
    _reworded(bundle, keys[entrant], "harness_fault", "WORLD_TOOL_DATA: the task is broken")
    verdict = verify_bundle(bundle, _options(tmp_path, mini))
    assert verdict.code is not None, verdict.message
    assert verdict.code.value == "HARNESS_FAULT_UNEXPLAINED", verdict.message
