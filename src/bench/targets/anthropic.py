"""``anthropic``: the Anthropic Messages API, ``POST {base_url}/v1/messages``, over httpx.

The same loop as ``openai``, in Messages terms: system messages go to the top-level ``system``;
assistant tool calls are ``tool_use`` blocks; tool results are ``tool_result`` blocks in the
next user message (consecutive ones merged); tools are ``{name, description, input_schema}``.
``tool_choice`` maps ``required`` → ``{type: any}`` and ``none`` → ``{type: none}``.
``max_tokens`` is required by the API: the target's ``params.max_tokens``, else 4096.

Usage: ``prompt_tokens`` = ``input_tokens`` + ``cache_read_input_tokens`` +
``cache_creation_input_tokens`` (the API counts the three apart), ``cached_tokens`` = the cache
reads. Thinking blocks stay in ``raw``; those before a tool call (signed) are also kept with
the call and sent back before it on every later request (``THOUGHT_TYPES``); unsigned ones
before a call are kept too and go back only once the server asks (``UNSIGNED_ASKED``). The last
``tool_use`` block of an answer that stopped at ``max_tokens`` is cut short
(``base.cut_short``: not run) whatever its ``input`` says.
"""

from __future__ import annotations

import random
from typing import Any

from bench.core.errors import EntrantError, HarnessFault
from bench.core.trace import Message, ToolCallRequest, ToolDef, Usage

from .base import (
    REQUEST_REFUSED,
    ModelRequest,
    ModelResponse,
    TargetSpec,
    check_filtered,
    check_held,
    check_state,
    choice_warnings,
    cut_short,
    split_think,
    token_counts,
)
from .http import AttemptFailed, Failure, HttpEndpoint, SseEvent, as_object, quoted
from .openai import (
    EMPTY_PARAMETERS,
    MESSAGE_STATE,
    REASONING_ASKED,
    asks_for_reasoning,
    tool_arguments,
)
from .refusals import Posted, Refusals

PATH = "/v1/messages"
DEFAULT_MAX_TOKENS = 4096
TOOL_CHOICE = {"auto": {"type": "auto"}, "required": {"type": "any"}, "none": {"type": "none"}}


THOUGHT_TYPES = {"thinking": ("thinking", "signature"), "redacted_thinking": ("data",)}
"""The blocks of extended thinking, and the fields each is sent back with. The API refuses
(HTTP 400, ``invalid_request_error``) a request whose last assistant message called a tool
without the thinking and redacted thinking blocks that came before the call, unchanged and
first in the message; the signature is how it tells them unchanged."""


def thought_block(block: dict[str, Any]) -> dict[str, Any] | None:
    """A thinking block as it goes back (its documented fields, as they came), or None for one
    that is not the provider's state: another type, or one with no signature or data to check
    it by (llama.cpp's ``llama-server`` sends its reasoning as a thinking block with an empty
    signature, and takes no thinking back)."""
    fields = THOUGHT_TYPES.get(str(block.get("type")))
    if fields is None or not all(isinstance(block.get(name), str) for name in fields):
        return None
    if not block[fields[-1]]:
        return None
    return {"type": block["type"], **{name: block[name] for name in fields}}


UNSIGNED_ASKED = REASONING_ASKED
"""A warning in an exchange's ``raw`` (the same words as ``openai.REASONING_ASKED``): the server
refused the request because an assistant message that called tools came without its thinking,
so it was sent again with the unsigned thinking blocks kept before each call
(``request_body(..., reasoning=True)``), as every later request of the run is. The
Anthropic-compatible endpoints of DeepSeek ("The `content[].thinking` in the thinking mode must
be passed back to the API.") and Moonshot's Kimi ("thinking is enabled but reasoning_content is
missing in assistant tool call message at index 2") ask so, and may send thinking blocks
without a signature; llama.cpp's ``llama-server`` sends those too, never asks, and is never
sent them."""


def unsigned_thought(block: dict[str, Any]) -> dict[str, Any] | None:
    """A ``thinking`` block with no signature to check it by (none, or empty) as it may go
    back once a server asks: its ``thinking`` text, and its ``signature`` if it came as text;
    None for any other block."""
    if block.get("type") != "thinking" or not isinstance(block.get("thinking"), str):
        return None
    if isinstance(block.get("signature"), str) and block["signature"]:
        return None  # signed: the provider's state (thought_block)
    kept = {"type": "thinking", "thinking": block["thinking"]}
    if isinstance(block.get("signature"), str):
        kept["signature"] = block["signature"]
    return kept


def asks_for_thinking(exc: EntrantError | HarnessFault) -> bool:
    """Whether a call failed because the server wants the thinking of the assistant messages
    that called tools: a refused request whose words name ``content[].thinking`` or a reasoning
    key (``openai.asks_for_reasoning``: Kimi names ``reasoning_content``) and say it is missing
    or must come back."""
    said = str(exc)
    lowered = said.lower()
    named = "content[].thinking" in said or asks_for_reasoning(exc)
    return (
        exc.code in (REQUEST_REFUSED, "ENDPOINT_REJECTED")
        and named
        and any(word in lowered for word in ("missing", "must", "required"))
    )


def _thoughts(call: ToolCallRequest, *, reasoning: bool = False) -> list[dict[str, Any]]:
    """The thinking blocks the provider state of ``call`` holds, to go back before it; with
    ``reasoning``, all of them in the order they came, the unsigned ones too
    (``MESSAGE_STATE``), when the call kept any."""
    state = call.provider_state or {}
    blocks = state.get("blocks")
    if reasoning and isinstance(state.get(MESSAGE_STATE), dict):
        blocks = state[MESSAGE_STATE].get("blocks")
    return [b for b in blocks if isinstance(b, dict)] if isinstance(blocks, list) else []


def wire_messages(
    messages: list[Message], *, reasoning: bool = False
) -> tuple[str | None, list[dict[str, Any]]]:
    """``(system, messages)``: system text apart, blocks merged into alternating turns;
    ``reasoning=True`` with the unsigned thinking before each call too (``UNSIGNED_ASKED``)."""
    system: list[str] = []
    out: list[dict[str, Any]] = []

    def push(role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})

    for message in messages:
        if message.role == "system":
            if message.content:
                system.append(message.content)
        elif message.role == "user":
            text = [{"type": "text", "text": message.content}] if message.content else []
            push("user", text)
        elif message.role == "assistant":
            # The thinking blocks before each call go back before it, the first call's first
            # of all: with thinking on, the API refuses an assistant message with tool calls
            # that does not begin with its thinking (THOUGHT_TYPES).
            calls = message.tool_calls
            blocks: list[dict[str, Any]] = _thoughts(calls[0], reasoning=reasoning) if calls else []
            if message.content.strip():
                blocks.append({"type": "text", "text": message.content})
            for index, call in enumerate(calls):
                if index:
                    blocks += _thoughts(call, reasoning=reasoning)
                blocks.append(
                    {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
                )
            push("assistant", blocks)
        else:
            push(
                "user",
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": message.tool_call_id or "",
                        "content": message.content,
                    }
                ],
            )
    return ("\n\n".join(system) if system else None), out


def wire_tools(tools: list[ToolDef]) -> list[dict[str, Any]]:
    return [
        {
            "name": tool.name,
            "description": tool.description,
            "input_schema": tool.parameters or EMPTY_PARAMETERS,
        }
        for tool in tools
    ]


def request_body(
    request: ModelRequest, spec: TargetSpec, *, reasoning: bool = False
) -> dict[str, Any]:
    """The body sent for ``request``; ``reasoning=True``: with the unsigned thinking of its
    earlier answers that called tools (``UNSIGNED_ASKED``)."""
    params = dict(request.params)
    params.pop("max_completion_tokens", None)
    choice = params.pop("tool_choice", None)
    system, messages = wire_messages(request.messages, reasoning=reasoning)
    body: dict[str, Any] = {
        **params,
        "model": request.model,
        "max_tokens": params.get("max_tokens", DEFAULT_MAX_TOKENS),
        "messages": messages,
    }
    if system is not None:
        body["system"] = system
    if request.tools:
        body["tools"] = wire_tools(request.tools)
        if isinstance(choice, str) and choice in TOOL_CHOICE:
            body["tool_choice"] = TOOL_CHOICE[choice]
        elif isinstance(choice, dict):
            body["tool_choice"] = choice
        else:
            # Said even when it is the default: a gateway translating to an OpenAI-compatible
            # server (LiteLLM) passes tool_choice on only when it is named, and a server like
            # llama-cpp-python's silently drops the tools of a request without one.
            body["tool_choice"] = TOOL_CHOICE["auto"]
    if spec.stream:
        body["stream"] = True
    else:
        body.pop("stream", None)
    return body


def parse_usage(usage: Any) -> Usage | None:
    """The reported tokens (the prompt is the uncached input plus the cache's reads and
    writes); None (not measured) when there is no usage object, it names neither count, a
    count is not a whole number (``token_counts``; the cache counts may be null), or the
    prompt comes to no tokens (a proxy that does not count, not a free call:
    ``openai.parse_usage``)."""
    if not isinstance(usage, dict) or not ({"input_tokens", "output_tokens"} & usage.keys()):
        return None
    cache = ("cache_read_input_tokens", "cache_creation_input_tokens")
    counts = token_counts(usage, ("input_tokens", "output_tokens", *cache), nullable=cache)
    if counts is None:
        return None
    cached = counts["cache_read_input_tokens"]
    prompt = counts["input_tokens"] + cached + counts["cache_creation_input_tokens"]
    if prompt == 0:
        return None  # counted nothing: not measured
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=counts["output_tokens"],
        cached_tokens=cached,
    )


def parse_message(data: dict[str, Any]) -> ModelResponse:
    """A Messages API ``message`` body (streamed ones are assembled into one first)."""
    if data.get("type") == "error":
        error = data.get("error")
        said = error.get("message") if isinstance(error, dict) else error
        raise EntrantError(f"the body is an error: {quoted(said)}", code="ENDPOINT_BAD_RESPONSE")
    blocks = data.get("content")
    if not isinstance(blocks, list):
        raise EntrantError("the message has no content list", code="ENDPOINT_BAD_RESPONSE")
    texts: list[str] = []
    calls: list[ToolCallRequest] = []
    asked: list[tuple[int, list[dict[str, Any]]]] = []  # calls with unsigned thinking before
    thoughts: list[dict[str, Any]] = []  # the signed thinking blocks since the last call
    ordered: list[dict[str, Any]] = []  # all of them, the unsigned too, in order
    unsigned = False  # an unsigned one is among them
    apart = False  # another block came between this text and the text before it
    for index, block in enumerate(blocks):
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            # Text blocks in a row are one text: the citations feature splits a sentence
            # into blocks at each cited span ("According to ", "the grass is green", " and
            # "...), so they join as they are. Text on either side of another block (a tool
            # call, a server tool's result) is a new paragraph.
            if block["text"]:
                if apart and texts:
                    texts.append("\n")
                texts.append(block["text"])
                apart = False
            continue
        apart = True
        kept = thought_block(block)
        if kept is not None:
            thoughts.append(kept)
            ordered.append(kept)
        elif (loose := unsigned_thought(block)) is not None:
            ordered.append(loose)
            unsigned = True
        if block.get("type") == "tool_use":
            if "input_json" in block:
                arguments, problem = tool_arguments(block["input_json"])
            else:
                arguments, problem = tool_arguments(block.get("input"))
            name = block.get("name") if isinstance(block.get("name"), str) else ""
            if not name:
                problem = "the tool call names no function"
            call_id = block.get("id") if isinstance(block.get("id"), str) else ""
            calls.append(
                ToolCallRequest(
                    id=call_id or f"toolu_{index}",
                    name=name,
                    arguments=arguments,
                    arguments_error=problem,
                    # what the next request must send back before this call
                    provider_state={"blocks": thoughts} if thoughts else None,
                )
            )
            if unsigned:
                asked.append((len(calls) - 1, ordered))
            thoughts, ordered, unsigned = [], [], False
    check_state(calls)
    calls = _with_unsigned(calls, asked)
    stop = data.get("stop_reason")
    if stop == "max_tokens" and calls and _ends_in_a_call(blocks):
        # llama.cpp's llama-server sends a call cut in its arguments as ``input: {}``
        calls[-1] = cut_short(calls[-1], "stop_reason 'max_tokens'")
    # Reasoning in <think> tags at the head of the text is not the answer (split_think): a
    # proxy in front of a reasoning model served without a reasoning parser.
    content, thought = split_think("".join(texts))
    check_held(content)
    check_filtered(stop, "stop_reason", content, len(calls))
    if not content.strip() and not calls:
        thought += "".join(
            block["thinking"]
            for block in blocks
            if isinstance(block, dict) and isinstance(block.get("thinking"), str)
        )
        extra = f", {len(thought)} characters of reasoning" if thought else ""
        raise EntrantError(
            "the endpoint answered with neither content nor tool calls "
            f"(stop_reason {stop!r}{extra})",
            code="ENTRANT_EMPTY_RESPONSE",
        )
    return ModelResponse(content=content, tool_calls=calls, usage=parse_usage(data.get("usage")))


def _with_unsigned(
    calls: list[ToolCallRequest], asked: list[tuple[int, list[dict[str, Any]]]]
) -> list[ToolCallRequest]:
    """``calls`` with the thinking before each that had unsigned blocks kept with it
    (``provider_state.message.blocks``, all its thinking in order), to go back once a server
    asks. Past what a trace keeps (``check_state``) it is left off, not refused: most servers
    (``llama-server``) never ask for it."""
    if not asked:
        return calls
    kept = list(calls)
    for index, blocks in asked:
        state = {**(kept[index].provider_state or {}), MESSAGE_STATE: {"blocks": blocks}}
        kept[index] = kept[index].model_copy(update={"provider_state": state})
    try:
        check_state(kept)
    except EntrantError:
        return calls
    return kept


def _ends_in_a_call(blocks: list[Any]) -> bool:
    """Whether the last block the model wrote (an empty text block is none) is a tool call."""
    for block in reversed(blocks):
        if not isinstance(block, dict) or (block.get("type") == "text" and not block.get("text")):
            continue
        return block.get("type") == "tool_use"
    return False


def _said(usage: dict[str, Any]) -> dict[str, Any]:
    # A later event's null count (message_delta's input_tokens) leaves the earlier one.
    return {key: value for key, value in usage.items() if value is not None}


class MessageStream:
    """Assembles Messages API events into one ``message`` body."""

    def done(self, event: SseEvent) -> bool:
        return isinstance(event.data, dict) and event.data.get("type") == "message_stop"

    def served(self, body: dict[str, Any]) -> bool:
        """Whether the assembled body holds a block the model generated (text or thinking):
        an answer empty after that was generated so, not a stream left unserved."""
        return any(
            isinstance(block, dict)
            and (
                block.get("type") == "redacted_thinking"
                or any(
                    isinstance(block.get(key), str) and block[key].strip()
                    for key in ("text", "thinking")
                )
            )
            for block in body.get("content") or []
        )

    def assemble(self, events: list[SseEvent]) -> dict[str, Any]:
        message: dict[str, Any] = {}
        usage: dict[str, Any] = {}
        blocks: dict[int, dict[str, Any]] = {}
        partial: dict[int, list[str]] = {}
        stop_reason: Any = None
        finished = False
        for event in events:
            data = event.data
            if not isinstance(data, dict):
                raise AttemptFailed(
                    Failure(
                        code="ENDPOINT_BAD_JSON",
                        message="a stream event is not a JSON object",
                        retryable=True,
                    )
                )
            kind = data.get("type", event.event)
            if kind == "error" or event.event == "error":  # llama.cpp: type "server_error"
                error = data.get("error") or data
                said = error.get("message") if isinstance(error, dict) else error
                raise AttemptFailed(
                    Failure(
                        code="ENDPOINT_STREAM_ERROR",
                        message=f"the stream reported an error: {quoted(said)}",
                        retryable=True,
                    )
                )
            if kind == "message_start" and isinstance(data.get("message"), dict):
                message = dict(data["message"])
                if isinstance(message.get("usage"), dict):
                    usage.update(_said(message["usage"]))
            elif kind == "content_block_start" and isinstance(data.get("content_block"), dict):
                index = data.get("index", len(blocks))
                blocks[index] = dict(data["content_block"])
            elif kind == "content_block_delta" and isinstance(data.get("delta"), dict):
                self._delta(blocks, partial, data.get("index", 0), data["delta"])
            elif kind == "message_delta":
                delta = as_object(data.get("delta"))
                stop_reason = delta.get("stop_reason", stop_reason)
                if isinstance(data.get("usage"), dict):
                    usage.update(_said(data["usage"]))
            elif kind == "message_stop":
                finished = True
        if not finished and stop_reason is None:
            # The body ended after a message_delta with its stop_reason: every block came
            # before it, so the answer is whole (OpenAI's streams likewise may end after
            # their finish_reason with no [DONE]).
            raise AttemptFailed(
                Failure(
                    code="ENDPOINT_BAD_JSON",
                    message="the stream ended before message_stop",
                    retryable=True,
                )
            )
        if stop_reason is None:  # message_stop without a stop_reason: maybe cut short
            raise AttemptFailed(
                Failure(
                    code="ENDPOINT_STREAM_CUT",
                    message="the stream ended with no stop_reason: the answer may be cut short",
                    retryable=True,
                )
            )
        for index, pieces in partial.items():
            block = blocks.get(index)
            if block is None:
                continue
            text = "".join(pieces)
            if not text.strip():
                continue  # empty deltas add nothing to the input content_block_start gave
            arguments, problem = tool_arguments(text)
            if problem is None:
                block["input"] = arguments
            else:
                block.pop("input", None)
                block["input_json"] = text
        message.update(
            {
                "content": [blocks[index] for index in sorted(blocks)],
                "stop_reason": stop_reason,
                "usage": usage,
            }
        )
        return message

    @staticmethod
    def _delta(
        blocks: dict[int, dict[str, Any]],
        partial: dict[int, list[str]],
        index: Any,
        delta: dict[str, Any],
    ) -> None:
        if not isinstance(index, int):
            return
        block = blocks.setdefault(index, {"type": "text", "text": ""})
        kind = delta.get("type")
        if kind == "text_delta" and isinstance(delta.get("text"), str):
            block["text"] = str(block.get("text", "")) + delta["text"]
        elif kind == "input_json_delta" and isinstance(delta.get("partial_json"), str):
            partial.setdefault(index, []).append(delta["partial_json"])
        elif kind == "thinking_delta" and isinstance(delta.get("thinking"), str):
            block["thinking"] = str(block.get("thinking", "")) + delta["thinking"]
        elif kind == "signature_delta" and isinstance(delta.get("signature"), str):
            block["signature"] = delta["signature"]


class AnthropicTarget:
    def __init__(self, spec: TargetSpec, *, rng: random.Random | None = None) -> None:
        self.spec = spec
        headers = {"anthropic-version": spec.anthropic_version}
        key = spec.api_key()
        if key:
            headers["x-api-key"] = key
        self.http = HttpEndpoint(spec, headers, rng=rng)
        self.refusals = Refusals(caps=())  # what the server refused, for the rest of the run

    async def complete(self, request: ModelRequest) -> ModelResponse:
        stream = MessageStream() if self.spec.stream else None

        def build(reasoning: bool) -> dict[str, Any]:
            return request_body(request, self.spec, reasoning=reasoning)

        async def post(body: dict[str, Any]) -> Posted:
            return await self.http.post_parsed(PATH, body, stream, parse_message)

        # Unsigned thinking is kept back until a server wants it (llama-server takes none);
        # then this request and every later one of the run carry it (refusals.Refusals).
        sent, _, told = await self.refusals.send(build, post, asks_for_thinking, request.params)
        reply, body, warnings, response = sent
        raw = reply.raw(PATH, body)
        required = body.get("tool_choice") == {"type": "any"} and bool(body.get("tools"))
        if warnings := [*told, *warnings, *choice_warnings(required, response)]:
            raw["warnings"] = warnings
        return response.model_copy(update={"raw": raw})

    def limit_in_flight(self, concurrency: int) -> None:
        """Before a run: its requests in flight at the server (``inflight``)."""
        self.http.in_flight.size_for(concurrency)

    async def aclose(self) -> None:
        await self.http.aclose()


__all__ = [
    "AnthropicTarget",
    "MessageStream",
    "THOUGHT_TYPES",
    "UNSIGNED_ASKED",
    "asks_for_thinking",
    "parse_message",
    "parse_usage",
    "request_body",
    "thought_block",
    "unsigned_thought",
    "wire_messages",
    "wire_tools",
]
