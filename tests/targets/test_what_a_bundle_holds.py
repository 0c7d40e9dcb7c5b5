"""What the harness takes from an endpoint, a bundle can hold: a response body (or a stream
event) nested deeper than ``BODY_DEPTH`` is the endpoint's bad response, and the deepest body
and tool arguments the harness takes still make a bundle that ``bench verify`` reads; JSON a
trace cannot hold (a lone surrogate, a number that overflows to infinity) is the endpoint's bad
JSON in a body and the model's malformed call in a call's arguments.

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

from bench.core.recordtext import showable
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
        f"base_url: {url}/v1\n"
        + ("api_key_env: DEEP_TEST_KEY\n" if key else "")
        # every retry of the default count is made; only the waits between them are short
        + "retry: {base_s: 0.01, cap_s: 0.02, seed: 1}\n",
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
    verdict = _bundle_verdict(tmp_path, run)
    assert verdict.valid, verdict


@pytest.fixture
def raw_server(json_server: Callable[[Callable[..., Any]], str]) -> Callable[..., str]:
    """Chat-completions servers whose call arguments (a JSON string holding ``arguments``) and
    answer field ``extra`` are JSON text written as is: ``json.dumps`` writes neither a lone
    surrogate's escape inside arguments nor ``1e400``. With ``refusal``, every third request
    is answered ``400`` with those bytes: the first, fourth, ... request."""

    def start(arguments: str, extra: str, refusal: bytes | None = None) -> str:
        asked = iter(range(1_000_000))

        def decide(body: dict[str, Any]) -> tuple[int, bytes]:
            if refusal is not None and next(asked) % 3 == 0:  # every third request
                return 400, refusal
            answered = any(m.get("role") == "tool" for m in body["messages"])
            if body.get("tools") and not answered:
                name = json.dumps(body["tools"][0]["function"]["name"])
                function = f'{{"name": {name}, "arguments": {json.dumps(arguments)}}}'
                message = (
                    '{"role": "assistant", "content": null, "tool_calls": '
                    f'[{{"id": "c1", "type": "function", "function": {function}}}]}}'
                )
                finish = "tool_calls"
            else:
                message = f'{{"role": "assistant", "content": "Done.", "extra": {extra}}}'
                finish = "stop"
            return 200, (
                '{"id": "r", "object": "chat.completion", "model": "m", "choices": '
                f'[{{"index": 0, "message": {message}, "finish_reason": "{finish}"}}], '
                '"usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}'
            ).encode()

        return json_server(decide)

    return start


def _bundle_verdict(tmp_path: Path, run: Any) -> Any:
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
    return verify_bundle(bundle, options)


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ('{"order_id": 1e400}', "the number 1e400 overflows to infinity"),
        ('{"order_id": "\\ud800"}', "order_id holds a lone surrogate U+D800: text a record"),
    ],
    ids=["overflow", "lone-surrogate"],
)
def test_arguments_a_trace_cannot_hold_are_the_models_malformed_call(
    raw_server: Any, tmp_path: Path, arguments: str, problem: str
) -> None:
    """Before: a lone surrogate stopped ``bench run`` with a traceback; ``1e400`` was run as
    ``null`` and recorded so that verify's re-drive disagreed (``REPLAY_MISMATCH``)."""
    run = _run(tmp_path, raw_server(arguments, '"x"'))
    records = list(run.attempts())
    assert records and all(r.outcome == "scored" for r in records)
    errors = [c.error or "" for r in records for c in r.trace.tool_calls]
    assert errors and all(problem in e for e in errors), errors
    verdict = _bundle_verdict(tmp_path, run)
    assert verdict.valid, verdict


@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        ("1e400", "the number 1e400 overflows to infinity"),
        ('"\\ud800 and more"', "extra holds a lone surrogate U+D800"),
        ('"\\udfff"', "extra holds a lone surrogate U+DFFF"),
        ('"ring \\u0007 bell"', "extra holds a control character U+0007"),
        ('"\u0085 next line"', "extra holds a control character U+0085"),
        ('"\\ufdd0"', "extra holds a non-character U+FDD0"),
        ('"a' + "\\u0301" * 31 + '"', "extra holds more than 30 combining marks"),
    ],
    ids=[
        "overflow",
        "lone-surrogate",
        "low-surrogate",
        "bell",
        "c1-literal",
        "non-character",
        "marks",
    ],  # fmt: skip
)
def test_a_body_a_trace_cannot_hold_is_the_endpoints_bad_json(
    raw_server: Any, tmp_path: Path, extra: str, problem: str
) -> None:
    run = _run(tmp_path, raw_server('{"order_id": "A-1"}', extra))
    records = list(run.attempts())
    errored = [r for r in records if r.outcome == "errored"]
    assert errored and all(r.outcome in ("errored", "scored") for r in records)
    for record in errored:
        assert record.reason is not None and record.reason.startswith("ENDPOINT_BAD_JSON")
        assert problem in record.reason


def test_an_escaped_surrogate_pair_is_one_character_and_taken(
    raw_server: Any, tmp_path: Path
) -> None:
    run = _run(tmp_path, raw_server('{"order_id": "\\ud83d\\ude00"}', '"\\ud83d\\ude00 ok"'))
    records = list(run.attempts())
    assert records and all(r.outcome == "scored" for r in records)
    called = [c for r in records for c in r.trace.tool_calls]
    assert called and all(c.arguments == {"order_id": "\U0001f600"} for c in called)
    verdict = _bundle_verdict(tmp_path, run)
    assert verdict.valid, (verdict.code, verdict.message)


def test_what_a_server_says_beside_its_answer_is_kept_escaped(
    raw_server: Any, tmp_path: Path
) -> None:
    """An error body quoted in the attempt's reason, with a control character, a C1 control
    and a non-character in it: recorded as it was, the bundle was ``TEXT_INVALID``."""
    refusal = '{"error": {"message": "bad \x07 thing \x85 here \ufdd0"}}'.encode()
    run = _run(tmp_path, raw_server('{"order_id": "A-1"}', '"x"', refusal), repeats=2)
    errored = [r for r in run.attempts() if r.outcome == "errored"]
    assert errored
    for record in errored:
        assert record.reason is not None and record.reason.startswith("ENDPOINT_REJECTED")
        # U+0085 is whitespace to Python: the reason's spaces are collapsed first
        assert "bad \\x07 thing here \\ufdd0" in record.reason, record.reason
    verdict = _bundle_verdict(tmp_path, run)
    assert verdict.valid, (verdict.code, verdict.message)


def test_showable_leaves_text_a_record_may_hold_alone() -> None:
    assert showable("Refunds take 14 days — é, ü, 日本, 😀\tok\n") == (
        "Refunds take 14 days — é, ü, 日本, 😀\tok\n"
    )
    assert showable("a\x07b\x7fc\ud800d") == "a\\x07b\\x7fc\\ud800d"
    assert showable("a" + "\u0301" * 31).startswith("a\\u0301")
