"""A genuine run verifies: the shipped task set run against the mock server over HTTP (each
kind of HTTP target), bundled and signed as a submitter would, is ``valid``.

Scoring must be a function of what a bundle keeps. A bundle stores each trace as canonical JSON
(keys sorted), so anything a scorer reads from the order a tool built its result in scores the
run one way and its bundle another: a run of ``lh-pub-order-conditional`` against the mock
server was refused with SCORE_MISMATCH (the paste rule read the tool result's JSON in insertion
order at run time and sorted in verify)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.runner import RunRequest, start_run
from bench.signing.bundle import build_bundle
from bench.testing.mock_server import MockServer
from bench.verify import VerifyOptions, verify_bundle

from ..verify.conftest import signing_keys
from .conftest import write_target

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("kind", "stream"), [("openai", False), ("openai", True), ("anthropic", True)]
)
def test_a_run_of_the_shipped_tasks_over_http_verifies(
    kind: str, stream: bool, server: MockServer, tmp_path: Path
) -> None:
    base_url = server.url if kind == "anthropic" else f"{server.url}/v1"
    params = {"temperature": 0, "max_tokens": 512}
    entrant = f"genuine-{kind}"
    (tmp_path / "targets").mkdir()
    target = write_target(
        tmp_path, kind, base_url, kind=kind, entrant=entrant, stream=stream, params=params
    )
    run, status = start_run(
        RunRequest(
            tasks=ROOT / "tasks",
            corpus_root=ROOT / "corpora",
            target_file=target,
            runs_dir=tmp_path / "runs",
            concurrency=8,
        )
    )
    assert status.status == "complete"
    keys = signing_keys(tmp_path, (entrant,))
    bundle = build_bundle(
        run,
        entrant=entrant,
        key_file=keys[entrant],
        out_root=tmp_path / "results",
        allowed_signers=tmp_path / "submissions" / "allowed_signers",
    )
    verdict = verify_bundle(
        bundle,
        VerifyOptions(
            results_root=tmp_path / "results",
            allowed_signers=tmp_path / "submissions" / "allowed_signers",
            tasks=ROOT / "tasks",
            replay_sample=4,
            seed=7,
        ),
    )
    assert verdict.valid, f"{verdict.code}: {verdict.path}: {verdict.field}: {verdict.message}"
