"""The harness against servers nobody here wrote (issue 17): llama-cpp-python 0.3.36 serving
SmolLM2-135M, and LiteLLM 1.105.7 in front of it for the OpenAI and the Anthropic protocol.

The model's mistakes are its own and fine. What must hold: no attempt fails for the shape of
the harness's requests, every route's run bundles, verifies and reaches the board, the probe
names each server, and a request the real server refuses as malformed is a harness fault.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.core.errors import HarnessFault
from bench.records import RunStore
from bench.signing import public_line, signer_line
from bench.signing.bundle import build_bundle
from bench.targets.base import REQUEST_REFUSED, TargetSpec
from bench.targets.http import HttpEndpoint
from bench.testing.keys import write_private_key
from bench.verify import VerifyOptions, verify_bundle

from .conftest import ENTRANT, ROUTES, SLICE, TASKS, RouteRun, Servers, bench

# What a server says when the request itself is malformed: none of it may appear in a run.
SHAPE = re.compile(r"validation error|Input should be|Field required|REQUEST_REFUSED|string_type")


def _records(run: RouteRun) -> list[object]:
    return list(RunStore(run.run_dir.parent).resolve(run.run_dir.name).attempts())


@pytest.mark.parametrize("name", [route.name for route in ROUTES])
def test_no_attempt_fails_for_the_shape_of_the_harness_requests(
    route_runs: dict[str, RouteRun], name: str
) -> None:
    check_shape(route_runs[name], name)


def check_shape(run: RouteRun, name: str, called: bool = True) -> None:
    """Every task of the slice ran, none failed for the shape of the request, a tool was
    called unless not ``called`` (tests/real/test_real_llama_server.py checks llama-server's
    runs with it too)."""
    records = _records(run)
    assert sorted(r.task_id for r in records) == sorted(SLICE)  # type: ignore[attr-defined]
    assert "status complete" in run.output, run.output
    assert all(r.outcome != "harness_fault" for r in records), run.output  # type: ignore[attr-defined]
    for record in records:
        for exchange in record.trace.exchanges:  # type: ignore[attr-defined]
            said = json.dumps(exchange.response.get("error") or {})
            assert not SHAPE.search(said), (name, record.task_id, said)  # type: ignore[attr-defined]
        assert not SHAPE.search(record.reason or ""), (name, record.reason)  # type: ignore[attr-defined]
    # the tools reached the model: it called one on this route (the server did not drop them)
    calls = [c for r in records for c in r.trace.tool_calls]  # type: ignore[attr-defined]
    assert calls or not called, f"{name}: no tool was ever called\n{run.output}"


def _key(path: Path) -> Ed25519PrivateKey:
    return write_private_key(path)


def test_every_route_bundles_verifies_and_reaches_the_board(
    route_runs: dict[str, RouteRun], tmp_path: Path
) -> None:
    """A bundle of a streamed run with a max_tokens cap verifies: every attempt re-driven from
    its recording, a seeded sample replayed from the cassette. One entrant signs every route's
    run (the same model answers alike on every route: as six entrants, the later bundles would
    rightly be refused as copies of the first)."""
    check_bundles(route_runs, tmp_path)


def check_bundles(route_runs: dict[str, RouteRun], tmp_path: Path) -> None:
    """Each run bundled under one entrant, verified, and on one board with a headline."""
    from bench.board import BuildOptions, build

    entrant = ENTRANT
    results, submissions = tmp_path / "results", tmp_path / "submissions"
    submissions.mkdir()
    key = _key(tmp_path / "keys" / entrant)
    signers = submissions / "allowed_signers"
    signers.write_text(signer_line(entrant, public_line(key.public_key())) + "\n")
    options = VerifyOptions(results_root=results, allowed_signers=signers, tasks=TASKS, seed=7,
                            replay_sample=6)  # fmt: skip
    keys = set()
    for name, run in sorted(route_runs.items()):
        stored = RunStore(run.run_dir.parent).resolve(run.run_dir.name)
        assert stored.config().target["params"]["max_tokens"] == 128
        keys.add(stored.config().fingerprint())
        bundle = build_bundle(stored, entrant=entrant, key_file=tmp_path / "keys" / entrant,
                              out_root=results, allowed_signers=signers)  # fmt: skip
        verdict = verify_bundle(bundle, options)
        assert verdict.valid, (name, verdict.code, verdict.message)
        assert json.loads((bundle / "target.json").read_text())["params"]["max_tokens"] == 128
    built = build(BuildOptions(runs=None, results=results, out=tmp_path / "site",
                               submissions=submissions, allowed_signers=signers,
                               tasks=TASKS))  # fmt: skip
    rows = [e for cohort in built.board.cohorts for e in cohort.entries]
    assert {e.key for e in rows} == {f"{entrant}/{fingerprint}" for fingerprint in keys}
    assert all(e.verified and e.headline is not None for e in rows)


def test_the_probe_names_each_server(servers: Servers) -> None:
    engine = bench("probe", "--base-url", servers.engines["a"].url + "/v1", "--format", "json",
                   "--timeout", "30")  # fmt: skip
    [report] = json.loads(engine.stdout)
    assert (report["engine"], report["version"]) == ("llama-cpp-python", "0.3.36"), report
    gateway = bench("probe", "--base-url", servers.litellm.url + "/v1", "--api-key-env",
                    "BENCH_TEST_LITELLM_KEY", "--format", "json", "--timeout", "30")  # fmt: skip
    [report] = json.loads(gateway.stdout)
    assert (report["engine"], report["version"]) == ("litellm", "1.105.7"), report
    assert {"smollm2-a", "smollm2-b"} <= set(report["models"])


def test_a_request_the_real_server_refuses_as_malformed_is_a_harness_fault(
    servers: Servers,
) -> None:
    """llama-cpp-python answers HTTP 500 with a validation error to an assistant message whose
    content is null (what the harness once sent): never retried, never the entrant's error."""
    spec = TargetSpec.model_validate(
        {"format_version": 1, "kind": "openai", "entrant": "probe", "display_name": "probe",
         "model": "smollm2", "base_url": servers.engines["a"].url + "/v1"}
    )  # fmt: skip
    body = {
        "model": "smollm2",
        "max_tokens": 8,
        "messages": [
            {"role": "user", "content": "Where is order 1?"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function",
                 "function": {"name": "get_order", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "{}"},
        ],
    }  # fmt: skip

    async def send() -> None:
        endpoint = HttpEndpoint(spec, {})
        try:
            await endpoint.post("/chat/completions", body, None)
        finally:
            await endpoint.aclose()

    with pytest.raises(HarnessFault) as caught:
        asyncio.run(send())
    assert caught.value.code == REQUEST_REFUSED
    assert "Input should be a valid string" in caught.value.message
    assert "not retried" in caught.value.message
