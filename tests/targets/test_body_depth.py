"""What the harness takes from an endpoint, a bundle can hold: a response body (or a stream
event) nested deeper than ``BODY_DEPTH`` is the endpoint's bad response, and the deepest body
and tool arguments the harness takes still make a bundle that ``bench verify`` reads.

Before 2026-12-07 a chat-completions server answering with a field nested 600 levels deep
stopped ``bench run`` with a traceback (pydantic could not write the trace), or, with an API
key set, left each attempt errored as a bare ``RecursionError`` (the key's scrub recursed); a
body nested 50 deep, or tool arguments nested 60 deep (``ARGUMENT_DEPTH`` was 64), were taken,
and the bundle of that run was refused whole (``LIMIT_DEPTH``: a record line nests at most 64).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.runner import RunRequest, start_run
from bench.signing import public_line, signer_line
from bench.signing.bundle import build_bundle
from bench.targets.base import ARGUMENT_DEPTH
from bench.targets.http import BODY_DEPTH, AttemptFailed, _event
from bench.testing.keys import write_private_key
from bench.verify import VerifyOptions, verify_bundle

MINI = Path(__file__).resolve().parents[1] / "fixtures" / "mini"


def _nested(levels: int) -> Any:
    """A value ``levels`` levels deep: ``{"a": {"a": ... 1}}``."""
    value: Any = 1
    for _ in range(levels):
        value = {"a": value}
    return value


def _decide(extra: int, arguments: int) -> Callable[[dict[str, Any]], tuple[int, Any]]:
    """A chat-completions answer whose message carries a field ``extra`` levels deep (0: none);
    on a request with tools and no tool result yet, a call of the first tool with arguments
    ``arguments`` levels deep (0: text only)."""

    def decide(body: dict[str, Any]) -> tuple[int, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": "Done."}
        answered = any(m.get("role") == "tool" for m in body["messages"])
        if arguments and body.get("tools") and not answered:
            name = body["tools"][0]["function"]["name"]
            args = json.dumps(_nested(arguments))
            call = {"id": "c1", "type": "function", "function": {"name": name, "arguments": args}}
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
        if extra:
            message["extra"] = _nested(extra - 4)  # choices, [ ], choice, message: four levels
        finish = "tool_calls" if "tool_calls" in message else "stop"
        return 200, {
            "id": "r", "object": "chat.completion", "model": "m",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }  # fmt: skip

    return decide


def _run(tmp_path: Path, url: str, *, key: bool = False, repeats: int = 1) -> Any:
    target = tmp_path / "deep.yaml"
    target.write_text(
        "format_version: 1\nkind: openai\nentrant: deep\ndisplay_name: Deep\nmodel: m\n"
        f"base_url: {url}/v1\n" + ("api_key_env: DEEP_TEST_KEY\n" if key else ""),
        encoding="utf-8",
    )
    run, status = start_run(
        RunRequest(
            tasks=MINI / "tasks",
            target_file=target,
            runs_dir=tmp_path / "runs",
            concurrency=1,
            repeats=repeats,
        )
    )
    assert status.status == "complete", status
    return run


@pytest.mark.parametrize("key", [False, True], ids=["no-key", "key"])
def test_a_body_nested_600_deep_is_the_endpoints_bad_response(
    json_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: bool
) -> None:
    monkeypatch.setenv("DEEP_TEST_KEY", "sk-deep-test-0123456789")
    run = _run(tmp_path, json_server(_decide(600, 0)), key=key)
    records = list(run.attempts())
    assert records and all(r.outcome == "errored" for r in records)
    for record in records:
        assert record.reason is not None and record.reason.startswith("ENDPOINT_BAD_RESPONSE"), (
            record.reason
        )
        assert f"nests deeper than {BODY_DEPTH} levels" in record.reason


def test_a_stream_event_nested_too_deep_is_the_endpoints_bad_response() -> None:
    for levels in (BODY_DEPTH + 1, 5000):
        text = '{"a":' * levels + "1" + "}" * levels
        with pytest.raises(AttemptFailed) as failed:
            _event(None, [text])
        assert failed.value.failure.code == "ENDPOINT_BAD_RESPONSE"
        assert f"nests deeper than {BODY_DEPTH} levels" in failed.value.failure.message
    text = '{"a":' * BODY_DEPTH + "1" + "}" * BODY_DEPTH
    assert _event(None, [text]).data == _nested(BODY_DEPTH)


def test_the_deepest_body_and_arguments_taken_make_a_bundle_that_verifies(
    json_server: Any, tmp_path: Path
) -> None:
    """The limits hold together: what a run records at the harness's limits, verify reads."""
    run = _run(tmp_path, json_server(_decide(BODY_DEPTH, ARGUMENT_DEPTH)), repeats=2)
    records = list(run.attempts())
    assert records and all(r.outcome == "scored" for r in records)
    called = [c for r in records for c in r.trace.tool_calls]
    assert called and all(c.error is None or "nested deeper" not in c.error for c in called)
    key = Ed25519PrivateKey.generate()
    signers = tmp_path / "allowed_signers"
    signers.write_text(signer_line("deep", public_line(key.public_key())) + "\n")
    write_private_key(tmp_path / "key", key)
    bundle = build_bundle(
        run, entrant="deep", key_file=tmp_path / "key", out_root=tmp_path / "results",
        allowed_signers=signers,
    )  # fmt: skip
    options = VerifyOptions(
        results_root=tmp_path / "results", allowed_signers=signers, tasks=MINI / "tasks", seed=1
    )
    verdict = verify_bundle(bundle, options)
    assert verdict.valid, verdict
