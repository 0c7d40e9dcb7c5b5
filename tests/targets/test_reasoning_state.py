"""Reasoning a provider needs back within a tool loop (docs/TARGETS.md, "State a provider needs
back"), served byte for byte on loopback as each provider answers:

- DeepSeek's thinking mode with tool calls (api-docs.deepseek.com/guides/thinking_mode, "Tool
  calls"): the ``reasoning_content`` of an assistant turn that called tools "must be passed back
  to the API in all subsequent requests"; otherwise HTTP 400 ``invalid_request_error``,
  "Missing `reasoning_content` field in the assistant message at message index 2" (the message
  anomalyco/opencode#9397 quotes).
- Moonshot's Kimi K2 thinking: HTTP 400 "thinking is enabled but reasoning_content is missing
  in assistant tool call message at index 2" (bytedance/deer-flow#3043).
- Groq's reasoning models answer with ``reasoning``, and Groq refuses an assistant message that
  carries ``reasoning_content`` (HTTP 400 "'messages.1' : for 'role:assistant' the following
  must be satisfied[('messages.1' : property 'reasoning_content' is unsupported)]",
  janhq/jan#8136): each key goes back as it came, a stream's ``reasoning`` included.
- OpenRouter's ``reasoning_details`` (openrouter.ai/docs, "Preserving reasoning blocks"),
  streamed as items with an ``index`` whose text comes in pieces.
- MiniMax-M2 writes its thinking in ``<think>`` at the head of ``content``, "which must be
  preserved completely" (platform.minimax.io/docs/api-reference/text-openai-api); leaving it
  out is silently worse, not refused.
The harness keeps what came with each tool-calling answer and sends it back once a server asks
in those words (``reasoning_asked``), then with every later request of the run: sent before,
it is refused by servers that do not know the keys (Groq; Mistral's ``extra_forbidden``; older
``deepseek-reasoner``) and repeated in the trace by every later request. Before 2026-12-07 the
harness sent back no reasoning, so every second model call of an attempt against DeepSeek's or
Kimi's thinking mode failed (``ENDPOINT_REJECTED``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.core.trace import Message
from bench.targets import ModelRequest, TargetSpec
from bench.targets.base import STATE_BYTES
from bench.targets.openai import REASONING_ASKED, parse_completion, request_body

from .test_provider_state import (
    REFUND,
    STEPS,
    Step,
    _converse,
    _spec,
    assert_stateless_bundle_verifies,
    refund_run,
)
from .test_provider_streams import chunk, sse
from .test_what_a_bundle_holds import _bundle_verdict

Body = dict[str, Any]
SSE = {"Content-Type": "text/event-stream"}
JSON = {"Content-Type": "application/json"}
ANSWER = "Order 1041 is refunded."
THOUGHT = "The user wants a refund. I should look the order up first."


class Thinker:
    """A chat-completions server whose model reasons before each answer, answers ``steps`` in
    turn then ``ANSWER``, and checks what each request sends back on its assistant messages
    that called tools (``flavor``)."""

    def __init__(self, steps: list[Step], flavor: str, *, stream: bool) -> None:
        self.steps, self.flavor, self.stream = steps, flavor, stream
        self.given: list[Any] = []  # what each tool-calling answer must come back with
        self.bodies: list[Body] = []
        self.refused = 0

    def _reasoning(self, step: int) -> str:
        return f"{THOUGHT} Step {step}."

    def _back(self, message: Body) -> Any:
        """What an assistant message sent back, where this flavor expects it."""
        if self.flavor == "openrouter":
            return message.get("reasoning_details")
        if self.flavor == "minimax":
            return message.get("content")
        return message.get("reasoning" if self.flavor == "groq" else "reasoning_content")

    def __call__(self, body: Body) -> tuple[int, bytes, dict[str, str]]:
        self.bodies.append(body)
        assistants = [m for m in body["messages"] if m["role"] == "assistant"]
        for position, message in enumerate(body["messages"]):
            if message["role"] != "assistant" or not message.get("tool_calls"):
                continue
            refusal = self._check(message, position, self.given[assistants.index(message)])
            if refusal is not None:
                self.refused += 1
                return refusal
        step = len(assistants)
        if step == len(self.steps):
            return 200, self._answer(step, []), self._type()
        calls = [
            {
                "id": f"call_{step}{index}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
            for index, (name, arguments) in enumerate(self.steps[step])
        ]
        return 200, self._answer(step, calls), self._type()

    def _check(self, message: Body, position: int, given: Any) -> Any:
        back = self._back(message)
        if self.flavor == "deepseek" and back != given:
            said = (
                "Missing `reasoning_content` field in the assistant message at message index "
                f"{position}. For more information, please refer to "
                "https://api-docs.deepseek.com/guides/thinking_mode#tool-calls"
            )
            return 400, _error(said, "invalid_request_error"), JSON
        if self.flavor == "kimi" and back != given:
            said = (
                "thinking is enabled but reasoning_content is missing in assistant tool call "
                f"message at index {position}"
            )
            return 400, _error(said, None), JSON
        if self.flavor == "groq" and "reasoning_content" in message:
            said = (
                f"'messages.{position}' : for 'role:assistant' the following must be satisfied"
                f"[('messages.{position}' : property 'reasoning_content' is unsupported)]"
            )
            return 400, _error(said, None), JSON
        return None

    def _type(self) -> dict[str, str]:
        return SSE if self.stream else JSON

    def _answer(self, step: int, calls: list[Body]) -> bytes:
        thought = self._reasoning(step)
        text = ANSWER if not calls else ""
        message: Body = {"role": "assistant", "content": text or None}
        if self.flavor == "openrouter":
            details = [{"type": "reasoning.text", "text": thought, "format": "unknown", "index": 0}]
            message["reasoning"] = thought
            message["reasoning_details"] = details
            given: Any = details
        elif self.flavor == "minimax":
            message["content"] = f"<think>\n{thought}\n</think>\n\n{text}"
            given = message["content"]
        elif self.flavor == "groq":
            message["reasoning"] = thought
            given = thought
        else:
            message["reasoning_content"] = thought
            given = thought
        if calls:
            message["tool_calls"] = calls
            self.given.append(given)
        finish = "tool_calls" if calls else "stop"
        usage = {"prompt_tokens": 40, "completion_tokens": 12, "total_tokens": 52}
        if not self.stream:
            body = {
                "id": "chatcmpl-9",
                "object": "chat.completion",
                "created": 1764000000,
                "model": "thinker",
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": usage,
            }
            return json.dumps(body).encode()
        return sse(*self._events(message, thought, calls), chunk({}, finish, usage=usage))

    def _events(self, message: Body, thought: str, calls: list[Body]) -> list[Body]:
        half = len(thought) // 2
        pieces = [thought[:half], thought[half:]]
        events = [chunk({"role": "assistant", "content": ""})]
        if self.flavor == "openrouter":  # the item's text in pieces, at its index
            for piece in pieces:
                item = {"type": "reasoning.text", "text": piece, "format": "unknown", "index": 0}
                events.append(chunk({"reasoning": piece, "reasoning_details": [item]}))
        elif self.flavor == "minimax":  # the thinking in the content, in pieces
            content = message["content"]
            events += [chunk({"content": content[i : i + 16]}) for i in range(0, len(content), 16)]
        else:
            key = "reasoning" if self.flavor == "groq" else "reasoning_content"
            events += [chunk({key: piece}) for piece in pieces]
        if self.flavor != "minimax" and message["content"]:
            events.append(chunk({"content": message["content"]}))
        events += [chunk({"tool_calls": [{"index": i, **call}]}) for i, call in enumerate(calls)]
        return events


def _error(message: str, code: str | None) -> bytes:
    error = {"message": message, "type": "invalid_request_error", "param": None, "code": code}
    return json.dumps({"error": error}).encode()


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("calls", list(STEPS))
@pytest.mark.parametrize("flavor", ["deepseek", "kimi"])
def test_reasoning_goes_back_once_the_server_asks(
    json_server: Any, flavor: str, calls: str, stream: bool
) -> None:
    server = Thinker(STEPS[calls], flavor, stream=stream)
    first, second = _converse(json_server(server), "openai", stream)
    assert server.refused == 1  # asked once, then sent again with it
    assert second.content == ANSWER
    assert second.raw is not None and second.raw["warnings"] == [REASONING_ASKED]
    (sent,) = [m for m in server.bodies[-1]["messages"] if m["role"] == "assistant"]
    assert sent["reasoning_content"] == server.given[0]
    assert {"reasoning", "reasoning_details"}.isdisjoint(sent)  # only what came
    assert THOUGHT not in first.content  # the answer is never the reasoning
    assert all(call.provider_state is None for call in first.tool_calls[1:])


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("flavor", ["groq", "openrouter", "minimax"])
def test_what_goes_back_is_what_came(json_server: Any, flavor: str, stream: bool) -> None:
    """Each key as it came: a stream's ``reasoning`` stays ``reasoning`` (Groq refuses
    ``reasoning_content``; it was assembled into that key), OpenRouter's streamed
    ``reasoning_details`` items are joined by their index, MiniMax's ``<think>`` content goes
    back whole. Nothing is sent before a server asks: none of these refuses a request."""
    server = Thinker(STEPS["one"], flavor, stream=stream)
    first, second = _converse(json_server(server), "openai", stream)
    assert server.refused == 0 and second.content == ANSWER
    (asked,) = [m for m in server.bodies[-1]["messages"] if m["role"] == "assistant"]
    assert {"reasoning_content", "reasoning", "reasoning_details"}.isdisjoint(asked)
    spec = TargetSpec.model_validate(_spec("openai", "http://127.0.0.1:9", stream))
    messages = [
        Message(role="user", content="Refund order 1041."),
        Message(role="assistant", content=first.content, tool_calls=first.tool_calls),
    ]
    body = request_body(ModelRequest(model="m", messages=messages), spec, reasoning=True)
    sent = body["messages"][1]
    assert server._back(sent) == server.given[0]
    expected = {"groq": {"reasoning"}, "openrouter": {"reasoning", "reasoning_details"}}
    keys = {"reasoning_content", "reasoning", "reasoning_details"} & sent.keys()
    assert keys == expected.get(flavor, set())
    assert THOUGHT not in first.content


def test_reasoning_goes_back_only_with_calls() -> None:
    """Only an answer that called tools carries its reasoning back: DeepSeek ignores the rest,
    and older ``deepseek-reasoner`` (no tool calls) refused reasoning in a request (HTTP 400)."""
    spec = TargetSpec.model_validate(_spec("openai", "http://127.0.0.1:9", False))
    call = {"id": "c1", "type": "function", "function": {"name": "get_order", "arguments": "{}"}}
    messages = [Message(role="user", content="Refund order 1041.")]
    for message in (
        {"role": "assistant", "content": None, "reasoning_content": THOUGHT, "tool_calls": [call]},
        {"role": "assistant", "content": "Done.", "reasoning_content": THOUGHT},
    ):
        body = {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
        answer = parse_completion(body)
        messages.append(
            Message(role="assistant", content=answer.content, tool_calls=answer.tool_calls)
        )
        messages += [
            Message(role="tool", content="{}", tool_call_id=c.id) for c in answer.tool_calls
        ]
    request = ModelRequest(model="m", messages=messages)
    sent = request_body(request, spec, reasoning=True)["messages"]
    assert [m.get("reasoning_content") for m in sent if m["role"] == "assistant"] == [THOUGHT, None]
    # until a server asks, the body is the one the harness always sent
    assert all("reasoning_content" not in m for m in request_body(request, spec)["messages"])


def test_reasoning_past_what_a_trace_keeps_is_left_off_not_refused() -> None:
    """Kept reasoning is bounded like all provider state (``STATE_BYTES``), but most servers
    never ask for it: an answer whose reasoning is longer is still taken, without it."""
    call = {"id": "c1", "type": "function", "function": {"name": "get_order", "arguments": "{}"}}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    message["reasoning_content"] = "x" * STATE_BYTES
    body = {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}
    assert parse_completion(body).tool_calls[0].provider_state is None
    message["reasoning_content"] = "x" * 1000
    state = parse_completion(body).tool_calls[0].provider_state
    assert state == {"message": {"reasoning_content": "x" * 1000}}


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_a_multi_step_run_against_deepseeks_thinking_mode(
    json_server: Any, tmp_path: Path, stream: bool
) -> None:
    """``bench run`` of the refund task (read the order, refund it, answer) against DeepSeek's
    thinking mode: asked once in the run, then every step's reasoning goes back."""
    run, record, server = _thinker_run(json_server, tmp_path, stream)
    assert server.refused == 1 and len(record.trace.exchanges) == 3
    last = [m for m in server.bodies[-1]["messages"] if m["role"] == "assistant"]
    assert [m["reasoning_content"] for m in last] == server.given  # each step's, as it came
    assert all(THOUGHT not in answer for answer in record.trace.answers)


def test_a_run_that_sent_reasoning_back_bundles_and_verifies(
    json_server: Any, tmp_path: Path
) -> None:
    run, _, _ = _thinker_run(json_server, tmp_path, True)
    verdict = _bundle_verdict(tmp_path, run)
    assert verdict.valid, verdict


def _thinker_run(json_server: Any, tmp_path: Path, stream: bool) -> tuple[Any, Any, Thinker]:
    server = Thinker(REFUND, "deepseek", stream=stream)
    run, record = refund_run(tmp_path, _spec("openai", json_server(server), stream))
    return run, record, server


def test_a_bundle_recorded_before_reasoning_was_kept_still_verifies(
    json_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run whose harness did not keep an answer's reasoning with its calls (before
    ``MESSAGE_STATE``), against a server that never asks for it (Groq's ``reasoning``): its
    recorded calls have no state though the bodies carry reasoning. The wire check reads those
    bodies with today's parser, which keeps it, and must not refuse the bundle for that."""
    from bench.targets import openai

    server = Thinker(REFUND, "groq", stream=True)
    with monkeypatch.context() as before:
        before.setattr(openai, "message_state", lambda message, answer: None)
        run, record = refund_run(tmp_path, _spec("openai", json_server(server), True))
    assert_stateless_bundle_verifies(tmp_path, run, record)


def test_the_wire_check_reads_a_recorded_state_without_reasoning_as_recorded() -> None:
    """A call recorded with a Gemini signature but before reasoning was kept: the parser of
    today reads the same body with both; the check compares the signature, not the reasoning."""
    from bench.verify.wire import _as_recorded

    signature = {"extra_content": {"google": {"thought_signature": "c2ln"}}}
    reasoning = {"message": {"reasoning_content": "Let me look the order up."}}
    call = {"id": "call_0", "name": "get_order", "arguments": {"order_id": "1041"}}
    parsed = [{**call, "provider_state": {**signature, **reasoning}}]
    assert _as_recorded(parsed, [{**call, "provider_state": signature}]) == [
        {**call, "provider_state": signature}
    ]
    assert _as_recorded(parsed, [call]) == [call]
    # recorded with its reasoning: nothing is taken away
    assert _as_recorded(parsed, parsed) == parsed
    # a signature that differs is still a difference
    other = {"extra_content": {"google": {"thought_signature": "b3RoZXI="}}}
    assert _as_recorded(parsed, [{**call, "provider_state": other}]) != [
        {**call, "provider_state": other}
    ]
