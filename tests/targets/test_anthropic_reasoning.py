"""Unsigned thinking a provider wants back within a tool loop, through the Messages API
(docs/TARGETS.md, "Reasoning a provider wants back within a tool loop"), served on loopback:

- DeepSeek's Anthropic-compatible endpoint (``api.deepseek.com/anthropic``) with thinking on
  refuses a request whose assistant message with a ``tool_use`` lacks its thinking block: HTTP
  400 ``{"error":{"message":"The `content[].thinking` in the thinking mode must be passed back
  to the API.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}``
  (the body OEvortex/aether#31 and decolua/9router#2397 quote; QwenLM/qwen-code#3788 reproduced
  it against the live endpoint). Its streamed ``content_block_start`` of a thinking block has no
  ``signature`` (QuantumNous/new-api#4763).
- Moonshot's Kimi through its Anthropic-compatible endpoints: HTTP 400 "thinking is enabled but
  reasoning_content is missing in assistant tool call message at index 2"
  (NousResearch/hermes-agent#17057, farion1231/cc-switch#3377; the envelope around the words
  is not quoted there, the Messages API's is served here). Its blocks here carry an empty
  signature.
- llama.cpp's ``llama-server`` sends its reasoning as a thinking block with an empty signature
  and takes no thinking back: it is never sent any, since it never asks.

Unsigned blocks were not kept before 2026-12-07 (``thought_block`` keeps signed ones only), so
the second model call of every attempt against such an endpoint failed (``ENDPOINT_REJECTED``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.targets.anthropic import UNSIGNED_ASKED, parse_message
from bench.targets.base import STATE_BYTES

from .test_provider_state import (
    REFUND,
    STEPS,
    Step,
    _converse,
    _spec,
    assert_stateless_bundle_verifies,
    refund_run,
)
from .test_provider_streams import anthropic_sse
from .test_what_a_bundle_holds import _bundle_verdict

Body = dict[str, Any]
SSE = {"Content-Type": "text/event-stream"}
JSON = {"Content-Type": "application/json"}
ANSWER = "Order 1041 is refunded."
THOUGHT = "The user wants a refund. I should look the order up first."
DEEPSEEK = "The `content[].thinking` in the thinking mode must be passed back to the API."


class Thinker:
    """A Messages API server whose model thinks (unsigned) before each answer, answers
    ``steps`` in turn then ``ANSWER``; DeepSeek and Kimi refuse an assistant message with a
    ``tool_use`` that does not begin with the thinking it came with, llama-server takes any."""

    def __init__(self, steps: list[Step], flavor: str, *, stream: bool) -> None:
        self.steps, self.flavor, self.stream = steps, flavor, stream
        self.given: list[list[Body]] = []  # each tool-calling answer's thinking blocks
        self.bodies: list[Body] = []
        self.refused = 0

    def __call__(self, body: Body) -> tuple[int, bytes, dict[str, str]]:
        self.bodies.append(body)
        callers = [
            (position, m)
            for position, m in enumerate(body["messages"])
            if m["role"] == "assistant" and any(b["type"] == "tool_use" for b in m["content"])
        ]
        if self.flavor != "llama":
            for (position, message), given in zip(callers, self.given, strict=False):
                if message["content"][: len(given)] != given:
                    self.refused += 1
                    return self._refusal(position)
        step = len(callers)
        thought = {"type": "thinking", "thinking": f"{THOUGHT} Step {step}."}
        if self.flavor != "deepseek":
            thought["signature"] = ""
        if step == len(self.steps):
            return 200, self._answer([thought, {"type": "text", "text": ANSWER}], "end_turn"), {}
        self.given.append([thought])
        calls = [
            {"type": "tool_use", "id": f"toolu_0{step}{i}", "name": name, "input": arguments}
            for i, (name, arguments) in enumerate(self.steps[step])
        ]
        return 200, self._answer([thought, *calls], "tool_use"), {}

    def _refusal(self, position: int) -> tuple[int, bytes, dict[str, str]]:
        if self.flavor == "deepseek":
            error = {
                "message": DEEPSEEK,
                "type": "invalid_request_error",
                "param": None,
                "code": "invalid_request_error",
            }
            return 400, json.dumps({"error": error}).encode(), JSON
        said = (
            "thinking is enabled but reasoning_content is missing in assistant tool call "
            f"message at index {position}"
        )
        error = {"type": "invalid_request_error", "message": said}
        return 400, json.dumps({"type": "error", "error": error}).encode(), JSON

    def _answer(self, blocks: list[Body], stop: str) -> bytes:
        usage = {"input_tokens": 50, "output_tokens": 30}
        head = {"id": "msg_01", "type": "message", "role": "assistant", "model": "thinker"}
        if not self.stream:
            body = {**head, "content": blocks, "stop_reason": stop, "stop_sequence": None}
            return json.dumps({**body, "usage": usage}).encode()
        events: list[Body] = [
            {"type": "message_start", "message": {**head, "content": [], "usage": usage}}
        ]
        for index, block in enumerate(blocks):
            kind = block["type"]
            opening = {**block, "input": {}} if kind == "tool_use" else {**block, kind: ""}
            events.append({"type": "content_block_start", "index": index, "content_block": opening})
            if kind == "tool_use":
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            else:
                delta = {"type": f"{kind}_delta", kind: block[kind]}
            events.append({"type": "content_block_delta", "index": index, "delta": delta})
            events.append({"type": "content_block_stop", "index": index})
        events.append(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop},
                "usage": {"output_tokens": 30},
            }
        )
        events.append({"type": "message_stop"})
        return anthropic_sse(*events)


def _serve(json_server: Any, server: Thinker) -> str:
    def decide(body: Body) -> tuple[int, bytes, dict[str, str]]:
        status, reply, headers = server(body)
        return status, reply, headers or (SSE if server.stream else JSON)

    return str(json_server(decide))


def _thinking_sent(server: Thinker) -> list[Body]:
    return [
        block
        for body in server.bodies
        for message in body["messages"]
        if message["role"] == "assistant"
        for block in message["content"]
        if block["type"] == "thinking"
    ]


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("calls", list(STEPS))
@pytest.mark.parametrize("flavor", ["deepseek", "kimi"])
def test_unsigned_thinking_goes_back_once_the_server_asks(
    json_server: Any, flavor: str, calls: str, stream: bool
) -> None:
    server = Thinker(STEPS[calls], flavor, stream=stream)
    first, second = _converse(_serve(json_server, server), "anthropic", stream)
    assert server.refused == 1  # asked once, then sent again with it
    assert second.content == ANSWER
    assert second.raw is not None and second.raw["warnings"] == [UNSIGNED_ASKED]
    (sent,) = [m for m in server.bodies[-1]["messages"] if m["role"] == "assistant"]
    assert sent["content"][:1] == server.given[0]  # first in the message, as it came
    assert [b["type"] for b in sent["content"]].count("thinking") == 1
    assert THOUGHT not in first.content  # the answer is never the thinking
    assert all(call.provider_state is None for call in first.tool_calls[1:])


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_llama_server_is_never_sent_thinking(json_server: Any, stream: bool) -> None:
    """llama-server never asks: every body is the one the harness always sent, though the
    thinking is kept with the call."""
    server = Thinker(STEPS["one"], "llama", stream=stream)
    first, second = _converse(_serve(json_server, server), "anthropic", stream)
    assert server.refused == 0 and second.content == ANSWER
    assert _thinking_sent(server) == []
    assert second.raw is not None and "warnings" not in second.raw
    state = first.tool_calls[0].provider_state
    assert state == {"message": {"blocks": server.given[0]}}


def test_unsigned_thinking_past_what_a_trace_keeps_is_left_off_not_refused() -> None:
    call = {"type": "tool_use", "id": "toolu_1", "name": "get_order", "input": {}}
    thought = {"type": "thinking", "thinking": "x" * STATE_BYTES, "signature": ""}
    body = {"content": [thought, call], "stop_reason": "tool_use"}
    assert parse_message(body).tool_calls[0].provider_state is None
    thought["thinking"] = "x" * 1000
    state = parse_message(body).tool_calls[0].provider_state
    assert state == {"message": {"blocks": [thought]}}


def test_signed_and_unsigned_thinking_go_back_in_the_order_they_came() -> None:
    """Signed blocks go back always (``blocks``); asked, the unsigned go back between them."""
    signed = {"type": "thinking", "thinking": "First.", "signature": "EpYBCkgIBxAC"}
    loose = {"type": "thinking", "thinking": "Then."}
    call = {"type": "tool_use", "id": "toolu_1", "name": "get_order", "input": {}}
    state = parse_message({"content": [signed, loose, call]}).tool_calls[0].provider_state
    assert state == {"blocks": [signed], "message": {"blocks": [signed, loose]}}


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_a_run_against_deepseeks_anthropic_endpoint_bundles_and_verifies(
    json_server: Any, tmp_path: Path, stream: bool
) -> None:
    """``bench run`` of the refund task (read the order, refund it, answer): asked once in the
    run, then every step's thinking goes back; ``bench bundle`` and ``bench verify`` hold (the
    wire check takes the body with the thinking as one the harness sends)."""
    server = Thinker(REFUND, "deepseek", stream=stream)
    run, record = refund_run(tmp_path, _spec("anthropic", _serve(json_server, server), stream))
    assert server.refused == 1 and len(record.trace.exchanges) == 3
    last = [m for m in server.bodies[-1]["messages"] if m["role"] == "assistant"]
    assert [m["content"][:1] for m in last] == server.given
    verdict = _bundle_verdict(tmp_path, run)
    assert verdict.valid, verdict


def test_a_bundle_recorded_before_unsigned_thinking_was_kept_still_verifies(
    json_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A llama-server run recorded by a harness that kept no unsigned thinking: its calls have
    no state though its bodies carry the blocks. The wire check reads them with today's
    parser, which keeps them, and must not refuse the bundle for that."""
    from bench.targets import anthropic

    server = Thinker(REFUND, "llama", stream=False)
    with monkeypatch.context() as before:
        before.setattr(anthropic, "unsigned_thought", lambda block: None)
        run, record = refund_run(tmp_path, _spec("anthropic", _serve(json_server, server), False))
    assert_stateless_bundle_verifies(tmp_path, run, record)
