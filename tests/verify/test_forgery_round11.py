"""The forger, eleventh round: what the transcript page shows against what verify checked.

An ``openai`` or ``anthropic`` model call is recorded twice: its parsed answer (``content``,
``tool_calls``, ``usage``), which the re-drive serves, the score reads and the transcript page
shows, and ``raw``, the bodies the wire carried. Verify read only the parsed answer, so a
submitter could rewrite an answer (or its tokens) in the trace and the cassette, re-score the
attempt honestly from it, and publish the rewritten answer beside the body the model really
sent: the bundle verified. Now every successful call's parsed answer must be what the target's
own parser reads from ``raw.response``, and ``raw.request`` the body the target builds for the
recorded request (``bench.verify.wire``, ``RECORDING_MISMATCH``). Real runs against the
loopback mock server, real bundles signed with real keys."""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import rfc8785
from cryptography.hazmat.primitives import serialization

from bench.core.trace import Trace
from bench.runner import RunRequest, start_run
from bench.scorers import safety_violations, score_attempt
from bench.signing import sign
from bench.signing.bundle import build_bundle, deterministic_gzip
from bench.tasks.load import load_task_set
from bench.testing.mock_server import MockServer
from bench.verify import VerifyOptions, verify_bundle
from bench.verify.taskcache import TaskCache

from .conftest import signing_keys

ENTRANT = "mini-good"
Record = dict[str, Any]


@pytest.fixture(scope="module")
def server() -> Iterator[MockServer]:
    with MockServer(max_seconds=120) as running:
        yield running


def _target(mini: Path, kind: str, url: str) -> Path:
    path = mini / "targets" / f"{kind}.yaml"
    base = f"{url}/v1" if kind == "openai" else url
    path.write_text(
        f"format_version: 1\nkind: {kind}\nentrant: {ENTRANT}\ndisplay_name: mini over {kind}\n"
        f"model: bench-mock\nbase_url: {base}\nretry: {{max_attempts: 1}}\n"
    )
    return path


def _bundle(mini: Path, kind: str, url: str, root: Path) -> tuple[Path, Path]:
    keys = signing_keys(root, (ENTRANT,))
    run, status = start_run(
        RunRequest(
            tasks=mini / "tasks",
            target_file=_target(mini, kind, url),
            runs_dir=root / "runs",
            split="public",
        )
    )
    assert status.status == "complete"
    bundle = build_bundle(
        run,
        entrant=ENTRANT,
        key_file=keys[ENTRANT],
        out_root=root / "results",
        allowed_signers=root / "submissions" / "allowed_signers",
    )
    return bundle, keys[ENTRANT]


def _options(root: Path, mini: Path) -> VerifyOptions:
    return VerifyOptions(
        results_root=root / "results",
        allowed_signers=root / "submissions" / "allowed_signers",
        tasks=mini / "tasks",
        check_duplicates=False,
    )


def _records(bundle: Path) -> list[Record]:
    data = gzip.decompress((bundle / "attempts.jsonl.gz").read_bytes())
    return [json.loads(line) for line in data.splitlines() if line.strip()]


def _forge(bundle: Path, key_file: Path, records: list[Record]) -> None:
    """The attempts written back, the cassette made their model calls again (so the two agree),
    the manifest re-listed and signed with the entrant's own key: what a submitter can do."""
    attempts = deterministic_gzip(b"".join(json.dumps(r).encode() + b"\n" for r in records))
    cassette = b"".join(
        json.dumps({"task_id": r["task_id"], "repeat": r["repeat"], **e}).encode() + b"\n"
        for r in records
        for e in r["trace"]["exchanges"]
    )
    files = {"attempts.jsonl.gz": attempts, "cassette.jsonl": cassette}
    manifest = json.loads((bundle / "manifest.json").read_bytes())
    for name, data in files.items():
        (bundle / name).write_bytes(data)
        for entry in manifest["files"]:
            if entry["path"] == name:
                entry.update(sha256=hashlib.sha256(data).hexdigest(), size=len(data))
    raw = rfc8785.dumps(manifest)
    (bundle / "manifest.json").write_bytes(raw)
    key = serialization.load_ssh_private_key(key_file.read_bytes(), password=None)
    (bundle / "manifest.json.sig").write_text(sign(raw, key))  # type: ignore[arg-type]


def _rescored(record: Record, mini: Path) -> Record:
    """The attempt scored again from its (forged) trace, as the runner scores it: the score,
    verdicts and safety notes the verifier recomputes."""
    task_set = load_task_set(mini / "tasks")
    task = task_set.by_id()[record["task_id"]]
    corpus = TaskCache().corpora(task_set.corpus_root).corpus(task.corpus) if task.corpus else None
    trace = Trace.model_validate(record["trace"])
    scored = score_attempt(task, trace, corpus.passage_ids if corpus else frozenset())
    return {
        **record,
        "outcome": "scored",
        "value": scored.value,
        "passed": scored.passed,
        "verdicts": [v.model_dump(mode="json") for v in scored.verdicts],
        "safety_violations": list(safety_violations(task, trace, tuple(scored.verdicts))),
    }


def _answered(records: list[Record], failing: bool) -> Record:
    """A scored attempt whose last model call is its final answer (text, no tool call)."""
    return next(
        r
        for r in records
        if r["outcome"] == "scored"
        and r["passed"] is not failing
        and r["trace"]["exchanges"]
        and not r["trace"]["exchanges"][-1]["response"]["tool_calls"]
        and r["trace"]["exchanges"][-1]["response"]["content"] == r["trace"]["answers"][-1]
    )


def _rewrite_answer(record: Record, text: str) -> None:
    """The final answer rewritten in the trace (its last call, message and answer); the call's
    ``raw`` keeps the body the model sent."""
    trace = record["trace"]
    trace["exchanges"][-1]["response"]["content"] = text
    trace["messages"][-1]["content"] = text
    trace["answers"][-1] = text


def _lower_tokens(record: Record) -> None:
    """Fewer completion tokens claimed for the last call (and the attempt), its body as sent."""
    trace = record["trace"]
    last = trace["exchanges"][-1]
    for usage in (last["response"]["usage"], last["usage"], trace["usage"]):
        usage["completion_tokens"] = 1


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_an_honest_http_bundle_verifies_with_its_wire_bodies_read(
    mini: Path, server: MockServer, tmp_path: Path, kind: str
) -> None:
    bundle, _ = _bundle(mini, kind, server.url, tmp_path)
    verdict = verify_bundle(bundle, _options(tmp_path, mini))
    assert verdict.valid, verdict.message


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_an_answer_rewritten_beside_the_body_the_model_sent_is_refused(
    mini: Path, server: MockServer, tmp_path: Path, kind: str
) -> None:
    bundle, key = _bundle(mini, kind, server.url, tmp_path)
    records = _records(bundle)
    forged = _answered(records, failing=False)
    # the attempt's answer becomes one the model never sent; the score follows it honestly
    _rewrite_answer(forged, forged["trace"]["answers"][-1] + " That is all.")
    records[records.index(forged)] = _rescored(forged, mini)
    _forge(bundle, key, records)
    verdict = verify_bundle(bundle, _options(tmp_path, mini))
    assert verdict.code is not None and verdict.code.value == "RECORDING_MISMATCH", verdict.message
    assert verdict.field == f"{forged['task_id']}#{forged['repeat']}"
    assert "its content is not what its own response body (raw.response) says" in verdict.message


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_fewer_tokens_than_the_body_reports_are_refused(
    mini: Path, server: MockServer, tmp_path: Path, kind: str
) -> None:
    bundle, key = _bundle(mini, kind, server.url, tmp_path)
    records = _records(bundle)
    forged = _answered(records, failing=False)
    _lower_tokens(forged)
    _forge(bundle, key, records)
    verdict = verify_bundle(bundle, _options(tmp_path, mini))
    assert verdict.code is not None and verdict.code.value == "RECORDING_MISMATCH", verdict.message
    assert "its usage is not what its own response body" in verdict.message


def test_a_request_body_that_is_not_the_one_sent_is_refused(
    mini: Path, server: MockServer, tmp_path: Path
) -> None:
    """The body the harness sent names the model it asked; the recorded request (hashed,
    re-driven) may not say another one than the body beside it."""
    bundle, key = _bundle(mini, "openai", server.url, tmp_path)
    records = _records(bundle)
    forged = _answered(records, failing=False)
    forged["trace"]["exchanges"][-1]["response"]["raw"]["request"]["model"] = "gpt-9-turbo"
    _forge(bundle, key, records)
    verdict = verify_bundle(bundle, _options(tmp_path, mini))
    assert verdict.code is not None and verdict.code.value == "RECORDING_MISMATCH", verdict.message
    assert "raw.request is not the body the harness sends" in verdict.message
