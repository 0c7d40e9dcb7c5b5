"""State a provider needs back: what the model attached to a tool-calling turn, which the next
request must carry or the provider refuses it.

- Gemini 3 through its OpenAI compatibility (ai.google.dev/gemini-api/docs/thought-signatures,
  "OpenAI compatibility") puts a thought signature on a tool call,
  ``tool_calls[i].extra_content.google.thought_signature``: on each step's first call only when
  the model calls several at once, on the call's delta when streamed (or in a delta of its own,
  with no name or arguments), and each tool call's delta in a chunk of its own with no
  ``index``. A request whose assistant tool call lacks the signature it was given is answered
  HTTP 400 ``INVALID_ARGUMENT`` "Function call is missing a thought_signature in functionCall
  parts" (the body a list of one error, as discuss.ai.google.dev thread 109823 quotes it).
- Anthropic extended thinking with tool use (docs.claude.com, "Extended thinking", "Preserving
  thinking blocks"): the ``thinking`` blocks (with their ``signature``) and ``redacted_thinking``
  blocks of the assistant turn that called a tool must come back unchanged, first in that
  assistant message; otherwise HTTP 400 ``invalid_request_error`` "Expected `thinking` or
  `redacted_thinking`, but found `tool_use`" (the message BerriAI/litellm#9020 quotes), and a
  changed block "Invalid `signature` in `thinking` block".

The servers here answer byte for byte on loopback as those providers do: they refuse a follow-up
that lacks the state and answer one that carries it. Before 2026-12-07 the harness kept only a
call's id, name and arguments, so every second model call of an attempt against either
provider failed (``ENDPOINT_REJECTED``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench.core.errors import EntrantError
from bench.core.trace import Message, ToolCallRequest, ToolDef
from bench.runner import RunRequest, start_run
from bench.targets import ModelRequest, ModelResponse, TargetSpec, build_target
from bench.targets.anthropic import parse_message
from bench.targets.base import STATE_BYTES

from .test_provider_streams import anthropic_sse, chunk, sse
from .test_what_a_bundle_holds import MINI, _bundle_verdict

Body = dict[str, Any]
Call = tuple[str, dict[str, Any]]  # a tool's name and arguments
Step = list[Call]  # the calls of one model answer
SSE = {"Content-Type": "text/event-stream"}
JSON = {"Content-Type": "application/json"}
ORDER = {"type": "object", "properties": {"order_id": {"type": "string"}}}
TOOLS = [
    ToolDef(name="get_order", parameters=ORDER),
    ToolDef(name="issue_refund", parameters=ORDER),
]
ONE: list[Step] = [[("get_order", {"order_id": "1041"})]]
PARALLEL: list[Step] = [[("get_order", {"order_id": "1041"}), ("get_order", {"order_id": "1042"})]]
ANSWER = "Order 1041 is refunded."


def _steps_taken(body: Body, called: Callable[[Body], list[str]]) -> int:
    """How many of the server's tool-calling answers the request already carries."""
    return sum(1 for m in body["messages"] if m.get("role") == "assistant" and called(m))


class Gemini:
    """Gemini 3's OpenAI-compatible ``/chat/completions``: answers ``steps`` in turn, then
    ``ANSWER``; each step's first call gets a thought signature, and a request whose assistant
    call lacks the one it was given is refused."""

    def __init__(self, steps: list[Step], *, stream: bool, apart: bool = False) -> None:
        self.steps, self.stream, self.apart = steps, stream, apart
        self.signatures: dict[str, str] = {}  # call id -> the signature it was given
        self.refused = 0

    def __call__(self, body: Body) -> tuple[int, bytes, dict[str, str]]:
        position = 0
        for message in body["messages"]:
            for call in message.get("tool_calls") or []:
                position += 1
                given = self.signatures.get(call["id"])
                said = ((call.get("extra_content") or {}).get("google") or {}).get(
                    "thought_signature"
                )
                if given is not None and said != given:
                    self.refused += 1
                    return 400, self._refusal(call["function"]["name"], position), JSON
        step = _steps_taken(body, lambda m: bool(m.get("tool_calls")))
        if step == len(self.steps):
            return 200, self._answer({"role": "assistant", "content": ANSWER}, []), self._type()
        calls = []
        for index, (name, arguments) in enumerate(self.steps[step]):
            call: Body = {
                "id": f"function-call-{step}{index}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
            if index == 0:  # parallel calls: the first one carries the step's signature
                signature = f"CiQBjz1rX{step}uYWN0dWFsbHkgb3BhcXVlIGJ5dGVz+/="
                self.signatures[call["id"]] = signature
                call["extra_content"] = {"google": {"thought_signature": signature}}
            calls.append(call)
        message = {"role": "assistant", "content": None, "tool_calls": calls}
        return 200, self._answer(message, calls), self._type()

    def _type(self) -> dict[str, str]:
        return SSE if self.stream else JSON

    def _answer(self, message: Body, calls: list[Body]) -> bytes:
        usage = {"prompt_tokens": 40, "completion_tokens": 12, "total_tokens": 52}
        if not self.stream:
            finish = "tool_calls" if calls else "stop"
            choice = {"finish_reason": finish, "index": 0, "message": message}
            body = {
                "choices": [choice],
                "created": 1764000000,
                "id": "ZGVtbw",
                "model": "gemini-3-pro-preview",
                "object": "chat.completion",
                "usage": usage,
            }
            return json.dumps(body).encode()
        events: list[Body] = []
        for call in calls:  # one chunk per call, no index (Gemini's way)
            delta = dict(call)
            signature = delta.pop("extra_content", None) if self.apart else None
            events.append(chunk({"role": "assistant", "tool_calls": [delta]}))
            if signature is not None:  # in a delta of its own: no name, no arguments
                events.append(chunk({"tool_calls": [{"extra_content": signature}]}))
        if not calls:
            events.append(chunk({"role": "assistant", "content": message["content"]}))
        # Gemini ends a tool-calling stream with finish_reason "stop", usage beside it
        events.append(chunk({}, "stop", usage=usage))
        return sse(*events)

    @staticmethod
    def _refusal(name: str, position: int) -> bytes:
        message = (
            "Function call is missing a thought_signature in functionCall parts. This is "
            "required for tools to work correctly, and missing thought_signature may lead to "
            f"degraded model performance. Additional data, function call `default_api:{name}` "
            f", position {position}. Please refer to "
            "https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
        )
        error = {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}
        return json.dumps([{"error": error}]).encode()


class Claude:
    """The Messages API with extended thinking on: answers ``steps`` in turn, then ``ANSWER``,
    each step's calls after its thinking (a redacted block too when it calls several tools);
    a request whose last assistant message does not begin with the blocks it was given is
    refused."""

    def __init__(self, steps: list[Step], *, stream: bool) -> None:
        self.steps, self.stream = steps, stream
        self.given: list[Body] = []  # the thinking blocks of the last tool-calling answer
        self.refused = 0

    def __call__(self, body: Body) -> tuple[int, bytes, dict[str, str]]:
        if not isinstance(body.get("thinking"), dict):
            return 400, self._refusal("thinking: the test server wants it on"), JSON
        messages = body["messages"]
        last = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=None)
        if last is not None and self.given:
            content = messages[last]["content"]
            first = content[0]["type"]
            if first not in ("thinking", "redacted_thinking"):
                self.refused += 1
                return 400, self._refusal(self._unthought(last, first)), JSON
            for index, (sent, given) in enumerate(zip(content, self.given, strict=False)):
                if sent != given:
                    self.refused += 1
                    where = f"messages.{last}.content.{index}"
                    return (
                        400,
                        self._refusal(f"{where}: Invalid `signature` in `thinking` block"),
                        JSON,
                    )
        step = _steps_taken(body, lambda m: any(b.get("type") == "tool_use" for b in m["content"]))
        if step == len(self.steps):
            self.given = []
            blocks: list[Body] = [
                {"type": "thinking", "thinking": "All done.", "signature": "EpYBCkgIBxAC"},
                {"type": "text", "text": ANSWER},
            ]
            return 200, self._answer(blocks, "end_turn"), self._type()
        thoughts: list[Body] = [
            {
                "type": "thinking",
                "thinking": f"Step {step}: look the order up first.",
                "signature": f"ErUBCkYIBxgCKkD{step}Tm90IGEgcmVhbCBzaWduYXR1cmU=",
            }
        ]
        if len(self.steps[step]) > 1:
            thoughts.append({"type": "redacted_thinking", "data": f"EmwKAhgBEgy{step}3Zx"})
        self.given = thoughts
        calls = [
            {"type": "tool_use", "id": f"toolu_0{step}{i}", "name": name, "input": arguments}
            for i, (name, arguments) in enumerate(self.steps[step])
        ]
        text = [{"type": "text", "text": "Let me check."}]
        return 200, self._answer([*thoughts, *text, *calls], "tool_use"), self._type()

    def _type(self) -> dict[str, str]:
        return SSE if self.stream else JSON

    @staticmethod
    def _unthought(index: int, found: str) -> str:
        return (
            f"messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, but "
            f"found `{found}`. When `thinking` is enabled, a final `assistant` message must "
            "start with a thinking block (preceeding the lastmost set of `tool_use` and "
            "`tool_result` blocks). We recommend you include thinking blocks from previous "
            "turns. To avoid this requirement, disable `thinking`. Please consult our "
            "documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
        )

    @staticmethod
    def _refusal(message: str) -> bytes:
        error = {"type": "invalid_request_error", "message": message}
        return json.dumps({"type": "error", "error": error}).encode()

    def _answer(self, blocks: list[Body], stop: str) -> bytes:
        usage = {"input_tokens": 50, "output_tokens": 30}
        head = {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-x"}
        if not self.stream:
            body = {**head, "content": blocks, "stop_reason": stop, "stop_sequence": None}
            return json.dumps({**body, "usage": usage}).encode()
        events: list[Body] = [
            {"type": "message_start", "message": {**head, "content": [], "usage": usage}}
        ]
        for index, block in enumerate(blocks):
            kind = block["type"]
            start = {
                "thinking": {"type": "thinking", "thinking": ""},
                "text": {"type": "text", "text": ""},
            }
            opening = start.get(kind, {**block, "input": {}} if kind == "tool_use" else block)
            events.append({"type": "content_block_start", "index": index, "content_block": opening})
            deltas = {
                "thinking": [
                    {"type": "thinking_delta", "thinking": block.get("thinking")},
                    {"type": "signature_delta", "signature": block.get("signature")},
                ],
                "text": [{"type": "text_delta", "text": block.get("text")}],
                "tool_use": [
                    {"type": "input_json_delta", "partial_json": json.dumps(block.get("input"))}
                ],
            }
            for delta in deltas.get(kind, []):
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


def _spec(kind: str, url: str, stream: bool, **more: Any) -> Body:
    return {
        "kind": kind,
        "entrant": "deep",  # the entrant _bundle_verdict signs for
        "display_name": "Provider state",
        "model": "gemini-3-pro-preview" if kind == "openai" else "claude-x",
        "base_url": url + ("/v1" if kind == "openai" else ""),
        "stream": stream,
        "params": {"max_tokens": 2048}
        | ({"thinking": {"type": "enabled", "budget_tokens": 1024}} if kind == "anthropic" else {}),
        "retry": {"max_attempts": 2, "base_s": 0.01, "cap_s": 0.02, "seed": 1},
        **more,
    }


def _converse(url: str, kind: str, stream: bool) -> list[ModelResponse]:
    """Two model calls as the harness makes them: the first answer's calls, each answered with
    a tool result, then the next request."""

    async def go() -> list[ModelResponse]:
        spec = TargetSpec.model_validate(_spec(kind, url, stream))
        target = build_target(spec, Path("."), Path("state.yaml"), env={})
        messages = [Message(role="user", content="Refund order 1041.")]
        answers: list[ModelResponse] = []
        try:
            for _ in range(2):
                answer = await target.complete(
                    ModelRequest(
                        model=spec.model, messages=list(messages), tools=TOOLS, params=spec.params
                    )
                )
                answers.append(answer)
                messages.append(
                    Message(role="assistant", content=answer.content, tool_calls=answer.tool_calls)
                )
                messages += [
                    Message(role="tool", content='{"status": "delivered"}', tool_call_id=c.id)
                    for c in answer.tool_calls
                ]
        finally:
            await target.aclose()
        return answers

    return asyncio.run(go())


STEPS = {"one": ONE, "parallel": PARALLEL}


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("calls", list(STEPS))
def test_gemini_thought_signatures_go_back_with_their_calls(
    json_server: Any, stream: bool, calls: str
) -> None:
    server = Gemini(STEPS[calls], stream=stream)
    first, second = _converse(json_server(server), "openai", stream)
    assert server.refused == 0
    assert second.content == ANSWER
    states = [call.provider_state for call in first.tool_calls]
    signature = {"google": {"thought_signature": server.signatures["function-call-00"]}}
    assert states == [{"extra_content": signature}] + [None] * (len(states) - 1)


@pytest.mark.parametrize("calls", list(STEPS))
def test_a_gemini_signature_streamed_in_a_delta_of_its_own(json_server: Any, calls: str) -> None:
    server = Gemini(STEPS[calls], stream=True, apart=True)
    first, second = _converse(json_server(server), "openai", True)
    assert server.refused == 0 and second.content == ANSWER
    assert [c.name for c in first.tool_calls] == ["get_order"] * len(STEPS[calls][0])
    assert first.tool_calls[0].provider_state is not None


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize("calls", list(STEPS))
def test_anthropic_thinking_blocks_go_back_before_the_calls(
    json_server: Any, stream: bool, calls: str
) -> None:
    server = Claude(STEPS[calls], stream=stream)
    first, second = _converse(json_server(server), "anthropic", stream)
    assert server.refused == 0
    assert second.content == ANSWER
    # kept with the call they came before; the text is the answer's, never the thinking
    assert first.content == "Let me check."
    assert first.tool_calls[0].provider_state == {"blocks": server_blocks(first)}
    assert all(call.provider_state is None for call in first.tool_calls[1:])


def server_blocks(response: ModelResponse) -> list[Body]:
    """The thinking blocks of the response's recorded body, as the server sent them."""
    assert response.raw is not None
    blocks = response.raw["response"]["content"]
    return [b for b in blocks if b["type"] in ("thinking", "redacted_thinking")]


def test_state_past_what_a_trace_keeps_is_the_endpoints_bad_response() -> None:
    """What goes back is bounded: it is recorded with every later request."""
    thinking = "x" * STATE_BYTES
    body = {
        "type": "message",
        "content": [
            {"type": "thinking", "thinking": thinking, "signature": "sig"},
            {"type": "tool_use", "id": "toolu_1", "name": "get_order", "input": {}},
        ],
        "stop_reason": "tool_use",
    }
    with pytest.raises(EntrantError) as caught:
        parse_message(body)
    assert caught.value.code == "ENDPOINT_BAD_RESPONSE"
    body["content"][0]["thinking"] = "x" * (STATE_BYTES // 2)
    assert parse_message(body).tool_calls[0].provider_state is not None


def test_a_call_records_its_state_and_one_without_is_recorded_as_before() -> None:
    """The state is recorded with its call; a trace from before the field reads and writes as
    it did (no key when there is none), so old bundles keep their bytes and hashes."""
    call = ToolCallRequest(id="c1", name="get_order", arguments={"order_id": "1041"})
    assert call.model_dump(mode="json") == {
        "id": "c1",
        "name": "get_order",
        "arguments": {"order_id": "1041"},
        "arguments_error": None,
    }
    assert ToolCallRequest.model_validate(call.model_dump(mode="json")) == call
    state = {"extra_content": {"google": {"thought_signature": "CiQB"}}}
    signed = ToolCallRequest.model_validate(
        {**call.model_dump(mode="json"), "provider_state": state}
    )
    assert signed.model_dump(mode="json")["provider_state"] == state
    assert ToolCallRequest.model_validate_json(signed.model_dump_json()) == signed


# --- a run, bundled and verified ----------------------------------------------------------

REFUND: list[Step] = [
    [("get_order", {"order_id": "1041"})],
    [("issue_refund", {"order_id": "1041"})],
]


def refund_run(tmp_path: Path, spec: dict[str, Any]) -> tuple[Any, Any]:
    """``bench run`` of the refund task (``tool-0001`` of the mini task set: read the order,
    refund it, answer) against the target ``spec``: the run and its one attempt, which scored
    1.0."""
    target = tmp_path / "target.yaml"
    target.write_text(json.dumps(spec), encoding="utf-8")
    run, status = start_run(
        RunRequest(
            tasks=MINI / "tasks",
            target_file=target,
            runs_dir=tmp_path / "runs",
            task_ids=("tool-0001",),
            concurrency=1,
        )
    )
    assert status.status == "complete", status
    (record,) = list(run.attempts())
    assert record.outcome == "scored" and record.value == 1.0, record.reason
    return run, record


def assert_stateless_bundle_verifies(tmp_path: Path, run: Any, record: Any) -> None:
    """The attempt's recorded calls carry no ``provider_state`` (a harness from before it),
    and the run's bundle verifies all the same."""
    calls = [c for e in record.trace.exchanges for c in e.response.get("tool_calls", [])]
    assert calls and all("provider_state" not in c for c in calls)
    verdict = _bundle_verdict(tmp_path, run)
    assert verdict.valid, verdict


@pytest.mark.parametrize(
    ("kind", "stream"), [("openai", True), ("anthropic", False)], ids=["gemini", "anthropic"]
)
def test_a_multi_step_run_bundles_and_verifies(
    json_server: Any, tmp_path: Path, kind: str, stream: bool
) -> None:
    """``bench run`` of the refund task (read the order, refund it, answer), ``bench bundle``,
    ``bench verify``: the re-drive and the wire check hold with the state recorded."""
    server = Gemini(REFUND, stream=stream) if kind == "openai" else Claude(REFUND, stream=stream)
    run, record = refund_run(tmp_path, _spec(kind, json_server(server), stream))
    assert [c.name for c in record.trace.tool_calls] == ["get_order", "issue_refund"]
    assert server.refused == 0 and len(record.trace.exchanges) == 3
    verdict = _bundle_verdict(tmp_path, run)
    assert verdict.valid, verdict


class _Lenient(Claude):
    """A server that sends signed thinking but takes a follow-up without it (as the project's
    mock server does): what a harness from before ``provider_state`` recorded against."""

    def __call__(self, body: Body) -> tuple[int, bytes, dict[str, str]]:
        self.given = []
        return super().__call__(body)


def test_a_bundle_recorded_before_provider_state_still_verifies(
    json_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run whose harness kept no provider state (the thinking parsed away, nothing sent
    back) against a server that did not insist: its recorded tool calls have no
    ``provider_state`` though the bodies carry signed thinking. The wire check read those bodies
    with today's parser, which keeps the state, and refused the bundle (RECORDING_MISMATCH)."""
    from bench.targets import anthropic

    server = _Lenient(REFUND, stream=False)
    with monkeypatch.context() as before:
        before.setattr(anthropic, "thought_block", lambda block: None)
        run, record = refund_run(tmp_path, _spec("anthropic", json_server(server), False))
    assert_stateless_bundle_verifies(tmp_path, run, record)
