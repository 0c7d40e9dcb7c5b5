"""What a run takes, its bundle holds: the limits ``bench verify`` enforces on a record
(``LIMIT_SIZE``, ``TEXT_INVALID``, ``LIMIT_COMBINING``, the trace's own bounds) against what an
unusual or hostile endpoint sends. Each case runs ``bench run`` on a real loopback server, then
bundles and verifies the run: the run finishes, and its bundle verifies.

Before 2026-12-07: usage an endpoint may report (up to 10^12 tokens a call) summed past what a
trace holds, or priced past $1,000,000, failed every attempt's record inside the harness (a
harness fault the endpoint chose, ``HARNESS_FAULTS_HIGH``); an http-agent's tool call named
with a percent-encoded control character, non-character or run of combining marks made the
bundle ``TEXT_INVALID`` or ``LIMIT_COMBINING``; a streamed answer was recorded event by event
(a 4,000-token reasoning answer 1 MB, 40 times the same answer unstreamed, so a streamed run of
a reasoning model could not be bundled); a server's header and its error text were recorded
whole, with every exchange.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench.runner import RunRequest, start_run
from bench.runner.agent import TOOL_NAME_LIMIT
from bench.targets.http import ERROR_TEXT_LIMIT, HEADER_TEXT_LIMIT

from .test_what_a_bundle_holds import MINI, _bundle_verdict

Reply = tuple[int, bytes, dict[str, str]]
Decide = Callable[[dict[str, Any]], Reply]


@pytest.fixture
def server(json_server: Callable[[Decide], str]) -> Callable[[Decide], str]:
    """Loopback servers answering each POST's JSON body with ``decide(body)``: a status, the
    body's bytes as they are, and its headers (``json_server``)."""
    return json_server


JSON = {"Content-Type": "application/json"}
PRICED = "pricing:\n  prompt_per_mtok: 15\n  completion_per_mtok: 60\n"


def _run(tmp_path: Path, kind: str, url: str, extra: str = "") -> Any:
    target = tmp_path / "odd.yaml"
    base = f"{url}/v1" if kind == "openai" else url
    target.write_text(
        f"format_version: 1\nkind: {kind}\nentrant: deep\ndisplay_name: Deep\nmodel: m\n"
        f"base_url: {base}\n{extra}",
        encoding="utf-8",
    )
    run, status = start_run(
        RunRequest(
            tasks=MINI / "tasks", target_file=target, runs_dir=tmp_path / "runs", concurrency=1
        )
    )
    assert status.status == "complete", status
    return run


def _chat(
    content: str = "Done.",
    *,
    usage: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    **said: Any,
) -> Decide:
    """A chat-completions server: a call of the first tool (until a tool result is in the
    conversation), then ``content``; ``said`` goes into every body beside ``choices``."""

    def decide(body: dict[str, Any]) -> Reply:
        answered = any(m.get("role") == "tool" for m in body["messages"])
        message: dict[str, Any] = {"role": "assistant", "content": content}
        finish = "stop"
        if body.get("tools") and not answered:
            name = body["tools"][0]["function"]["name"]
            function = {"name": name, "arguments": '{"order_id": "A-1"}'}
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function", "function": function}
            ]}  # fmt: skip
            finish = "tool_calls"
        reply = {
            "id": "r", "object": "chat.completion", "model": "m", **said,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage or {"prompt_tokens": 1, "completion_tokens": 1},
        }  # fmt: skip
        return 200, json.dumps(reply).encode(), {**JSON, **(headers or {})}

    return decide


def _messages(usage: dict[str, Any]) -> Decide:
    """An Anthropic Messages server: a tool call, then text."""

    def decide(body: dict[str, Any]) -> Reply:
        answered = any(
            isinstance(m.get("content"), list)
            and any(b.get("type") == "tool_result" for b in m["content"])
            for m in body["messages"]
        )
        if body.get("tools") and not answered:
            name = body["tools"][0]["name"]
            content = [{"type": "tool_use", "id": "t1", "name": name, "input": {"order_id": "A-1"}}]
            stop = "tool_use"
        else:
            content, stop = [{"type": "text", "text": "Done."}], "end_turn"
        reply = {
            "id": "m1", "type": "message", "role": "assistant", "model": "m",
            "content": content, "stop_reason": stop, "usage": usage,
        }  # fmt: skip
        return 200, json.dumps(reply).encode(), JSON

    return decide


def _agent(tool: str, usage: dict[str, Any]) -> Decide:
    """An http-agent that calls ``POST {tools_url}/tools/<tool>`` (``tool`` as written in the
    URL, percent-encoded) once a turn, then answers."""

    def decide(body: dict[str, Any]) -> Reply:
        call = urllib.request.Request(
            body["tools_url"] + "/tools/" + tool, data=b'{"order_id": "A-1"}', method="POST"
        )
        try:
            with urllib.request.urlopen(call) as answer:
                answer.read()
        except urllib.error.HTTPError as refused:
            refused.read()
        return 200, json.dumps({"answer": "Done.", "usage": usage}).encode(), JSON

    return decide


HUGE = 6 * 10**11  # a call's count a trace takes (at most 10^12); two of them it does not


@pytest.mark.parametrize(
    ("kind", "decide", "extra", "unmeasured"),
    [
        ("openai", _chat(usage={"prompt_tokens": HUGE, "completion_tokens": 1}), "", "tokens"),
        ("openai", _chat(usage={"prompt_tokens": 10**11, "completion_tokens": 1}), PRICED, "cost"),
        ("anthropic", _messages({"input_tokens": HUGE, "output_tokens": 1}), "", "tokens"),
        ("http-agent", _agent("get_order", {"prompt_tokens": 10**12}), PRICED, "cost"),
    ],
    ids=["openai-tokens", "openai-cost", "anthropic-tokens", "agent-cost"],
)
def test_usage_past_what_a_trace_holds_is_not_measured(
    server: Any, tmp_path: Path, kind: str, decide: Decide, extra: str, unmeasured: str
) -> None:
    """Was: every attempt a harness fault (a ValidationError of ``Usage`` or ``Exchange``
    inside the harness), and the bundle ``HARNESS_FAULTS_HIGH``."""
    run = _run(tmp_path, kind, server(decide), extra)
    records = list(run.attempts())
    assert records and all(r.outcome == "scored" for r in records), [r.reason for r in records]
    for record in records:
        assert record.trace.cost_usd is None
        if unmeasured == "tokens":
            assert not record.trace.usage_measured
            assert any(e.usage is None for e in record.trace.exchanges)
        else:
            assert any(e.usage is not None and e.cost_usd is None for e in record.trace.exchanges)
    verdict = _bundle_verdict(tmp_path, run)
    assert verdict.valid, (verdict.code, verdict.message)


@pytest.mark.parametrize(
    ("tool", "kept"),
    [
        ("get_%07order", "get_\\x07order"),
        ("get_order%EF%B7%90", "get_order\\ufdd0"),
        ("a" + "%CC%81" * 31, "a" + "\\u0301" * 31),
        ("n" * 5000, "n" * TOOL_NAME_LIMIT + "…"),
    ],
    ids=["bell", "non-character", "marks", "long"],
)
def test_an_agents_tool_name_is_kept_as_a_record_may_hold_it(
    server: Any, tmp_path: Path, tool: str, kept: str
) -> None:
    """The tool an agent names in its call's URL is percent-decoded: recorded as it came, a
    control character or a non-character made the bundle ``TEXT_INVALID``, a run of marks
    ``LIMIT_COMBINING``. Kept escaped (and cut), the call is still the agent's unknown tool."""
    run = _run(tmp_path, "http-agent", server(_agent(tool, {"prompt_tokens": 1})))
    records = list(run.attempts())
    assert records and all(r.outcome == "scored" for r in records), [r.reason for r in records]
    calls = [c for r in records for c in r.trace.tool_calls]
    assert calls and all(c.name == kept and c.error for c in calls), calls[0]
    verdict = _bundle_verdict(tmp_path, run)
    assert verdict.valid, (verdict.code, verdict.message)


def test_a_long_header_is_recorded_cut(server: Any, tmp_path: Path) -> None:
    """A header comes with every exchange: 30 KB of ``server`` was 30 KB in every exchange of
    the attempts and of the cassette (a suite's run at 60 KB: some 80 MB more in each, past
    the 64 MiB a bundle's file may hold, ``LIMIT_SIZE``)."""
    said = "x" * 30_000
    run = _run(tmp_path, "openai", server(_chat(headers={"Server": said, "x-request-id": said})))
    exchanges = [e for r in run.attempts() for e in r.trace.exchanges]
    assert exchanges
    for exchange in exchanges:
        headers = exchange.response["raw"]["headers"]
        assert headers["x-request-id"] == "x" * HEADER_TEXT_LIMIT + "…"
        assert len(headers["server"]) == HEADER_TEXT_LIMIT + 1  # http.server's name first
    verdict = _bundle_verdict(tmp_path, run)
    assert verdict.valid, (verdict.code, verdict.message)


def _chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    data = {
        "id": "chatcmpl-0123456789abcdef", "object": "chat.completion.chunk",
        "created": 1733550000, "model": "qwen3-32b", "system_fingerprint": "fp_0123",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }  # fmt: skip
    return f"data: {json.dumps(data)}\n\n"


REASONING = [f" step{i % 97}" for i in range(4000)]  # 4,000 tokens of reasoning, one an event


def _reasoning_stream(body: dict[str, Any]) -> Reply:
    """A reasoning model's stream, one token an event, as vLLM or llama.cpp send it."""
    events = [_chunk({"role": "assistant", "content": ""})]
    events += [_chunk({"reasoning_content": token}) for token in REASONING]
    answered = any(m.get("role") == "tool" for m in body["messages"])
    if body.get("tools") and not answered:
        name = body["tools"][0]["function"]["name"]
        function = {"name": name, "arguments": '{"order_id": "A-1"}'}
        events.append(_chunk({"tool_calls": [{"index": 0, "id": "c1", "function": function}]}))
        events.append(_chunk({}, "tool_calls"))
    else:
        events += [_chunk({"content": "Done."}), _chunk({}, "stop")]
    usage = {"prompt_tokens": 900, "completion_tokens": 4001}
    events.append(f"data: {json.dumps({'choices': [], 'usage': usage})}\n\ndata: [DONE]\n\n")
    return 200, "".join(events).encode(), {"Content-Type": "text/event-stream"}


def test_a_streamed_answer_is_recorded_assembled_not_event_by_event(
    server: Any, tmp_path: Path
) -> None:
    """Was: every event recorded beside the assembled body, 1 MB for this answer (26 KB
    unstreamed): a reasoning model's streamed run of the suite's 172 tasks x 5 would be
    gigabytes, where a bundle holds 64 MiB a file (``BUNDLE_TOO_LARGE``, ``LIMIT_SIZE``)."""
    run = _run(tmp_path, "openai", server(_reasoning_stream), "stream: true\n")
    records = list(run.attempts())
    assert records and all(r.outcome == "scored" for r in records), [r.reason for r in records]
    for record in records:
        for exchange in record.trace.exchanges:
            raw = exchange.response["raw"]
            assert "events" not in raw
            assert raw["stream_events"] == len(REASONING) + 5  # role, 2 more, usage, [DONE]
            reasoning = raw["response"]["choices"][0]["message"]["reasoning_content"]
            assert reasoning == "".join(REASONING)
    lines = (run.path / "cassette.jsonl").read_bytes().splitlines()
    assert lines and max(map(len, lines)) < 2 * len("".join(REASONING)) + 16_000
    verdict = _bundle_verdict(tmp_path, run)
    assert verdict.valid, (verdict.code, verdict.message)


def _error_stream(body: dict[str, Any]) -> Reply:
    error = {"error": {"message": "overloaded " * 100_000, "type": "server_error"}}
    return 200, f"data: {json.dumps(error)}\n\n".encode(), {"Content-Type": "text/event-stream"}


@pytest.mark.parametrize(
    ("decide", "extra", "begins"),
    [
        (
            _chat(error={"message": "overloaded " * 100_000}),
            "",
            "ENDPOINT_BAD_RESPONSE: the body reports an error beside its choices: overloaded",
        ),
        (
            _error_stream,
            "stream: true\nretry:\n  max_attempts: 1\n",
            "ENDPOINT_STREAM_ERROR: the stream reported an error: overloaded",
        ),
    ],
    ids=["body", "stream"],
)
def test_a_servers_error_text_is_quoted_cut(
    server: Any, tmp_path: Path, decide: Decide, extra: str, begins: str
) -> None:
    """Was: the server's 1.1 MB message quoted whole in the attempt's reason and in its
    recorded failed call (and in the cassette): 9 MB of it made a run of four attempts 75 MB
    of attempts, and its bundle ``LIMIT_SIZE``."""
    run = _run(tmp_path, "openai", server(decide), extra)
    records = list(run.attempts())
    assert records and all(r.outcome == "errored" for r in records)
    for record in records:
        reason = record.reason or ""
        assert reason.startswith(begins), reason[:200]
        assert len(reason) < ERROR_TEXT_LIMIT + 300, len(reason)
        failed = record.trace.exchanges[-1].response["error"]["message"]
        assert len(failed) < ERROR_TEXT_LIMIT + 300
