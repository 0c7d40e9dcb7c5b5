"""A mock inference server for tests and demos: OpenAI-compatible and Anthropic, loopback only.

One module on purpose, above the 800-line cap: it is copied or run stand-alone
(``python -m bench.testing.mock_server``) with the standard library only, so it must not
import the rest of the package; splitting it would only spread the wire formats over files.

Endpoints: ``GET /health``, ``GET /v1/models``, ``POST /v1/chat/completions`` (streamed or not)
and ``POST /v1/messages`` (Anthropic, streamed or not). It declares itself (``Server:
bench-mock/1``, ``owned_by: bench-mock``, ``/health`` ``service``) so ``bench probe`` can name it,
unless started with ``declare=False``.

The model is a deterministic policy, enough to drive the example tasks: while an offered tool
has not been called since the last user message, call the next one (all of them at once when
the model name ends in ``parallel``), with arguments derived from the tool's JSON Schema and
the last user message (a number for ``*_id`` fields, the message itself for other strings);
then answer from the tool results (``text [id]`` of the first passage for search results).
``tool_choice: none`` answers at once. Usage is counted deterministically (4 characters a
token); the messages up to the last assistant message count as cached.

Faults, per request, by a path prefix ``/fault/<plan>/`` in front of the usual path, or for
the whole server (``faults=[...]``, ``--fault``). A plan is faults joined by ``+``, each
``KIND[,key=value...]``, served in order, each to its next ``times`` requests (for ever when
unset); path plans are counted per distinct plan text:

    429,retry-after=1,times=1    HTTP 429 with ``Retry-After: 1`` (seconds) once, then normal
    429,retry-after-date=2       ``Retry-After`` as an HTTP date 2 s ahead
    503,times=2                  a burst of two 503s; any status works (400, 401, 500 ...)
    drip[,bps=1]                 the response one byte per second (``bps`` bytes a second)
    reset                        headers and half the body, then a TCP reset
    truncate                     a well-framed 200 whose JSON (or stream) stops half-way
    badargs                      tool-call arguments that are not valid JSON
    empty                        a 200 with neither content, reasoning nor tool calls (what a
                                 gateway relays of a stream its server closed early)
    thinkonly                    the reasoning (``reasoning_content``; a thinking block) and
                                 no answer: a model whose tokens ran out while it reasoned
    thinktags                    the reasoning in ``<think>`` tags at the head of the content
                                 (a reasoning model served without a reasoning parser)
    nostreamoptions              a request naming ``stream_options`` is HTTP 422 with the
                                 validation error Mistral's API answers it with
    inband                       an error inside a 200: an error event half-way through a
                                 stream, or an error object as the whole body
    strict                       a server with a strict request schema, as llama-cpp-python's
                                 is: a message whose ``content`` is not a string (``null``
                                 beside ``tool_calls``) is HTTP 500 with a validation error;
                                 tools offered without ``tool_choice`` are silently ignored
    nofinish                     a stream whose last chunk has no ``finish_reason`` before
                                 ``[DONE]`` (an answer cut short)
    invalid                      HTTP 500 with a long validation error about the request's
                                 ``messages`` (a server refusing the request's shape)
    nostream                     a streamed request gets a 200 event stream closed before
                                 its first event (llama-cpp-python when it cannot stream the
                                 answer); a plain request is answered normally
    length                       the answer cut by the token limit: half its text, or the
                                 first call with half its arguments; ``finish_reason:
                                 "length"`` (Anthropic: ``stop_reason: "max_tokens"``)
    filtered                     the provider's filter stopped the answer: half its text,
                                 ``finish_reason: "content_filter"`` with Azure's
                                 ``content_filter_results`` (Anthropic: ``"refusal"``)
    delay,s=0.5                  answer normally after 0.5 s
    (any kind),latency=0.2       wait 0.2 s first

Faults touch only the two model endpoints; ``/health`` and ``/v1/models`` always answer,
except while ``loading_s`` (``--loading``) lasts after the server starts: then every request
is HTTP 503 ``Loading model``, as llama.cpp's server answers while it loads a model.
Requests are recorded (``MockServer.requests()``) so tests can count what reached it: the last
``MAX_RECORDED`` (10,000) of them, so a long benchmark does not grow without bound.

Connections are HTTP/1.1 keep-alive: one serves request after request until the client sends
``Connection: close`` (or speaks HTTP/1.0), a request is malformed, or it sits idle for
``KEEP_ALIVE_IDLE_S`` (then it is closed politely). Bodies carry ``Content-Length``; a stream
is sent chunked. The ``reset``, ``truncate`` and ``drip`` faults of a stream, and ``reset`` of
any answer, close the connection instead (a stream then ends with the connection).

    python -m bench.testing.mock_server --port 0      # prints the URL, serves up to 600 s

Standard library only, so it can run where bench-suite's dependencies are not installed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import math
import os
import re
import socket
import struct
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from email.utils import formatdate
from http import HTTPStatus
from typing import Any
from urllib.parse import unquote

VERSION = "1"
SERVER_NAME = f"bench-mock/{VERSION}"
LOOPBACK = ("127.0.0.1", "::1")
MODELS = ("bench-mock", "bench-mock-parallel")
MAX_REQUEST_BYTES = 8 * 1024 * 1024
READ_REQUEST_TIMEOUT_S = 30.0
KEEP_ALIVE_IDLE_S = 5.0  # uvicorn's default
MAX_RECORDED = 10_000
MAX_HEAD_BYTES = 64 * 1024
DEFAULT_MAX_SECONDS = 600.0
FAULT_KINDS = (
    "drip", "reset", "truncate", "badargs", "empty", "inband", "delay", "strict", "nofinish",
    "invalid", "nostream", "thinkonly", "thinktags", "nostreamoptions", "length", "filtered",
)  # fmt: skip
# What the ``length`` and ``filtered`` faults end an answer with: (openai, anthropic).
ENDINGS = {"length": ("length", "max_tokens"), "filtered": ("content_filter", "refusal")}


# ---------------------------------------------------------------------------------------------
# Faults


@dataclass(frozen=True)
class Fault:
    kind: str  # "status" or one of FAULT_KINDS
    status: int = 0
    times: int | None = None
    retry_after: str | None = None
    retry_after_date: float | None = None
    bps: float = 1.0
    seconds: float = 1.0
    latency: float = 0.0

    def retry_after_header(self) -> str | None:
        if self.retry_after_date is not None:
            return formatdate(time.time() + self.retry_after_date, usegmt=True)
        return self.retry_after


def parse_fault(text: str) -> Fault:
    """``KIND[,key=value...]``; raises ``ValueError`` naming what is wrong."""
    head, *options = [part.strip() for part in text.strip().split(",")]
    values: dict[str, Any] = {}
    if head.isdigit() and len(head) == 3:
        values.update(kind="status", status=int(head))
    elif head in FAULT_KINDS:
        values["kind"] = head
    else:
        raise ValueError(f"unknown fault '{head}' (a 3-digit status or {', '.join(FAULT_KINDS)})")
    for option in options:
        key, sep, value = option.partition("=")
        if not sep:
            raise ValueError(f"fault option '{option}' is not key=value")
        try:
            if key == "times":
                values["times"] = int(value)
            elif key == "retry-after":
                values["retry_after"] = value
            elif key == "retry-after-date":
                values["retry_after_date"] = float(value)
            elif key == "bps":
                values["bps"] = float(value)
            elif key == "s":
                values["seconds"] = float(value)
            elif key == "latency":
                values["latency"] = float(value)
            else:
                raise ValueError(f"unknown fault option '{key}'")
        except ValueError as exc:
            if "unknown fault option" in str(exc):
                raise
            raise ValueError(f"fault option '{option}' has a bad value") from None
    fault = Fault(**values)
    if fault.times is not None and fault.times < 0:
        raise ValueError("times must be >= 0")
    if fault.bps <= 0 or fault.seconds < 0 or fault.latency < 0:
        raise ValueError("bps must be > 0; s and latency >= 0")
    return fault


def parse_plan(text: str) -> list[Fault]:
    return [parse_fault(part) for part in text.split("+") if part.strip()]


class FaultPlan:
    """Faults in order; each serves its next ``times`` requests (all of them when unset)."""

    def __init__(self, faults: Sequence[Fault]) -> None:
        self._faults = list(faults)
        self._left = [fault.times for fault in faults]

    def next(self) -> Fault | None:
        while self._faults:
            left = self._left[0]
            if left is None:
                return self._faults[0]
            if left > 0:
                self._left[0] = left - 1
                return self._faults[0]
            self._faults.pop(0)
            self._left.pop(0)
        return None


# ---------------------------------------------------------------------------------------------
# The policy


@dataclass
class Turn:
    role: str  # user / assistant / tool
    text: str = ""
    calls: list[tuple[str, str]] = field(default_factory=list)  # (id, name)
    tool_call_id: str = ""


@dataclass
class Decision:
    content: str
    calls: list[tuple[str, str, dict[str, Any]]]  # (id, name, arguments)
    reasoning: str


def _faulted(decision: Decision, fault: Fault | None) -> Decision:
    """The decision as the ``empty``, ``thinkonly`` and ``thinktags`` faults change it."""
    kind = fault.kind if fault is not None else ""
    if kind == "empty":
        return Decision("", [], "")
    if kind == "thinkonly":
        return Decision("", [], decision.reasoning)
    if kind == "thinktags":
        content = f"<think>\n{decision.reasoning}\n</think>\n\n{decision.content}"
        return Decision(content, decision.calls, "")
    if kind == "length":  # half the text; a call's arguments are cut in ``_cut``
        return Decision(decision.content[: len(decision.content) // 2], decision.calls[:1], "")
    if kind == "filtered":  # the provider stopped it half-way: half the text, no call
        return Decision(decision.content[: len(decision.content) // 2] or "I can", [], "")
    return decision


FLAGGED = {
    "hate": {"filtered": False, "severity": "safe"},
    "violence": {"filtered": True, "severity": "medium"},
}
"""Azure OpenAI's ``content_filter_results`` beside ``finish_reason: content_filter``."""


def _cut(arguments: dict[str, Any]) -> str:
    """A call's arguments cut half-way, as the token limit leaves them."""
    text = json.dumps(arguments)
    return text[: len(text) // 2]


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _tokens(value: Any) -> int:
    return max(1, math.ceil(len(json.dumps(value, sort_keys=True, ensure_ascii=False)) / 4))


def _arguments(schema: Any, text: str) -> dict[str, Any]:
    if not isinstance(schema, dict):
        return {}
    properties = _obj(schema.get("properties"))
    required = schema.get("required")
    names = required if isinstance(required, list) and required else list(properties)
    numbers = re.findall(r"\d+", text)
    arguments: dict[str, Any] = {}
    for name in names:
        prop = _obj(properties.get(name))
        kind = prop.get("type")
        if isinstance(prop.get("enum"), list) and prop["enum"]:
            arguments[name] = prop["enum"][0]
        elif kind == "integer":
            arguments[name] = int(numbers[0]) if numbers else 1
        elif kind == "number":
            arguments[name] = float(numbers[0]) if numbers else 1.0
        elif kind == "boolean":
            arguments[name] = True
        elif kind == "array":
            arguments[name] = []
        elif kind == "object":
            arguments[name] = {}
        elif numbers and ("id" in name.lower() or "number" in name.lower()):
            arguments[name] = numbers[0]
        else:
            arguments[name] = text
    return arguments


def _summary(name: str, text: str) -> str:
    try:
        data = json.loads(text)
    except ValueError:
        return f"{name}: {text}"
    if isinstance(data, list) and not data:
        return f"{name} found nothing."
    if isinstance(data, list) and isinstance(data[0], dict) and {"id", "text"} <= data[0].keys():
        return f"{data[0]['text']} [{data[0]['id']}]"
    if isinstance(data, dict) and "error" in data:
        return f"{name} failed: {data['error']}"
    return f"{name}: {json.dumps(data, sort_keys=True)}"


def decide(
    model: str,
    turns: list[Turn],
    tools: list[tuple[str, Any]],
    tool_choice: str,
    prefix: str,
) -> Decision:
    """The policy (see the module docstring); ids derive from the conversation, so the same
    request always gets the same answer."""
    last_user = max((i for i, t in enumerate(turns) if t.role == "user"), default=-1)
    question = turns[last_user].text if last_user >= 0 else ""
    after = turns[last_user + 1 :]
    names = {call_id: name for t in after for call_id, name in t.calls}
    called = [name for t in after for _, name in t.calls]
    results = [(names.get(t.tool_call_id, "tool"), t.text) for t in after if t.role == "tool"]
    remaining = [(name, schema) for name, schema in tools if name not in called]
    if tool_choice == "required" and tools and not remaining:
        remaining = tools[:1]
    if tool_choice != "none" and remaining:
        chosen = remaining if model.endswith("parallel") else remaining[:1]
        seed = hashlib.sha256(
            json.dumps([[t.role, t.text, t.calls, t.tool_call_id] for t in turns]).encode()
        ).hexdigest()
        calls = [
            (f"{prefix}{seed[:12]}{index}", name, _arguments(schema, question))
            for index, (name, schema) in enumerate(chosen)
        ]
        return Decision("", calls, "Policy: call " + ", ".join(name for _, name, _ in calls))
    if results:
        content = " ".join(_summary(name, text) for name, text in results)
    else:
        content = f"You asked: {question}"
    return Decision(content, [], "Policy: answer from what the tools returned")


def _openai_turns(messages: Any) -> list[Turn]:
    turns: list[Turn] = []
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        content = message.get("content")
        text = content if isinstance(content, str) else ""
        if isinstance(content, list):
            text = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        if role == "assistant":
            calls = [
                (str(c.get("id", "")), str((c.get("function") or {}).get("name", "")))
                for c in message.get("tool_calls") or []
                if isinstance(c, dict)
            ]
            turns.append(Turn("assistant", text, calls))
        elif role == "tool":
            turns.append(Turn("tool", text, tool_call_id=str(message.get("tool_call_id", ""))))
        elif role == "user":
            turns.append(Turn("user", text))
    return turns


def _anthropic_turns(messages: Any) -> list[Turn]:
    turns: list[Turn] = []
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        texts: list[str] = []
        calls: list[tuple[str, str]] = []
        for block in blocks if isinstance(blocks, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                texts.append(str(block.get("text", "")))
            elif block.get("type") == "tool_use":
                calls.append((str(block.get("id", "")), str(block.get("name", ""))))
            elif block.get("type") == "tool_result":
                result = block.get("content")
                if isinstance(result, list):
                    result = "".join(p.get("text", "") for p in result if isinstance(p, dict))
                turns.append(Turn("tool", str(result), tool_call_id=str(block.get("tool_use_id"))))
        if role == "assistant":
            turns.append(Turn("assistant", "".join(texts), calls))
        elif texts:
            turns.append(Turn("user", "\n".join(texts)))
    return turns


def _usage(
    prompt_parts: list[Any], messages: list[Any], decision: Decision
) -> tuple[int, int, int]:
    """(prompt, cached, completion) tokens; the prefix through the last assistant is cached."""
    fixed = sum(_tokens(part) for part in prompt_parts if part)
    per_message = [_tokens(m) for m in messages]
    prompt = fixed + sum(per_message)
    last_assistant = max(
        (i for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == "assistant"),
        default=-1,
    )
    cached = fixed + sum(per_message[: last_assistant + 1]) if last_assistant >= 0 else 0
    completion = _tokens([decision.content, [[n, a] for _, n, a in decision.calls]])
    return prompt, cached, completion


def _broken(arguments: dict[str, Any]) -> str:
    text = json.dumps(arguments)
    return text[:-1] if text.endswith("}") else text + "{"


# ---------------------------------------------------------------------------------------------
# Wire formats


_DATE: list[Any] = [None, ""]  # (whole second, its HTTP date): formatdate once a second


def _http_date() -> str:
    now = int(time.time())
    if _DATE[0] != now:
        _DATE[:] = [now, formatdate(now, usegmt=True)]
    return str(_DATE[1])


def _sse(data: Any, event: str | None = None) -> bytes:
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {text}\n\n".encode()


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def strict_problem(body: dict[str, Any]) -> str | None:
    """What a server with a pydantic request schema (llama-cpp-python's) says about a chat
    request whose messages carry a ``content`` that is not a string, else None."""
    errors = [
        {
            "type": "string_type",
            "loc": ["body", "messages", index, "content"],
            "msg": "Input should be a valid string",
            "input": message.get("content"),
        }
        for index, message in enumerate(_list(body.get("messages")))
        if isinstance(message, dict) and not isinstance(message.get("content"), str)
    ]
    if not errors:
        return None
    return f"{len(errors)} validation error(s) for CreateChatCompletionRequest: {errors!r}"


def openai_reply(body: dict[str, Any], fault: Fault | None) -> tuple[dict[str, Any], list[bytes]]:
    """The non-streamed body and the streamed events of one chat completion; the events only
    when the request asks for a stream (``[]`` otherwise: building them cost a fifth of the
    server's time per request)."""
    model = str(body.get("model", "bench-mock"))
    tools = [
        (str(t["function"].get("name", "")), t["function"].get("parameters"))
        for t in body.get("tools") or []
        if isinstance(t, dict) and isinstance(t.get("function"), dict)
    ]
    choice = body.get("tool_choice")
    decision = decide(model, _openai_turns(body.get("messages")), tools, str(choice), "call_")
    decision = _faulted(decision, fault)
    broken = fault is not None and fault.kind == "badargs"
    ending = ENDINGS.get(fault.kind) if fault is not None else None
    messages = _list(body.get("messages"))
    prompt, cached, completion = _usage([body.get("tools")], messages, decision)
    usage = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
    }
    calls: list[dict[str, Any]] = [
        {
            "id": call_id,
            "type": "function",
            "function": {
                "name": name,
                "arguments": _broken(arguments)
                if broken
                else _cut(arguments)
                if ending
                else json.dumps(arguments),
            },
        }
        for call_id, name, arguments in decision.calls
    ]
    finish = ending[0] if ending else "tool_calls" if calls else "stop"
    ident = "chatcmpl-mock-" + hashlib.sha256(json.dumps(messages).encode()).hexdigest()[:16]
    created = int(time.time())
    message: dict[str, Any] = {
        "role": "assistant",
        "content": decision.content or None,
        "reasoning_content": decision.reasoning,
    }
    if calls:
        message["tool_calls"] = calls
    first: dict[str, Any] = {"index": 0, "message": message, "finish_reason": finish}
    first["logprobs"] = None
    if finish == "content_filter":  # Azure OpenAI says what its filter flagged
        first["content_filter_results"] = FLAGGED
    whole = {
        "id": ident,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "system_fingerprint": SERVER_NAME,
        "choices": [first],
        "usage": usage,
    }
    if body.get("stream") is not True:
        return whole, []
    base = {"id": ident, "object": "chat.completion.chunk", "created": created, "model": model}

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish_reason}
        if finish_reason == "content_filter":
            choice["content_filter_results"] = FLAGGED
        return _sse({**base, "choices": [choice]})

    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"reasoning_content": part}) for part in _pieces(decision.reasoning, 16)]
    events += [chunk({"content": part}) for part in _pieces(decision.content, 8)]
    for index, call in enumerate(calls):
        function = call["function"]
        events.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call["id"],
                            "type": "function",
                            "function": {"name": function["name"], "arguments": ""},
                        }
                    ]
                }
            )
        )
        events += [
            chunk({"tool_calls": [{"index": index, "function": {"arguments": part}}]})
            for part in _pieces(function["arguments"], 10)
        ]
    events.append(chunk({}, finish))
    options = body.get("stream_options")
    if isinstance(options, dict) and options.get("include_usage"):
        events.append(_sse({**base, "choices": [], "usage": usage}))
    events.append(_sse("[DONE]"))
    return whole, events


def anthropic_reply(
    body: dict[str, Any], fault: Fault | None
) -> tuple[dict[str, Any], list[bytes]]:
    """The non-streamed body and the streamed events of one Messages call (the events only when
    the request asks for a stream, as ``openai_reply``)."""
    model = str(body.get("model", "bench-mock"))
    tools = [
        (str(t.get("name", "")), t.get("input_schema"))
        for t in body.get("tools") or []
        if isinstance(t, dict)
    ]
    choice = body.get("tool_choice")
    policy = {"any": "required", "tool": "required", "none": "none"}.get(
        str(choice.get("type")) if isinstance(choice, dict) else "", "auto"
    )
    decision = decide(model, _anthropic_turns(body.get("messages")), tools, policy, "toolu_")
    decision = _faulted(decision, fault)
    broken = fault is not None and fault.kind == "badargs"
    ending = ENDINGS.get(fault.kind) if fault is not None else None
    messages = _list(body.get("messages"))
    prompt, cached, completion = _usage([body.get("tools"), body.get("system")], messages, decision)
    usage = {
        "input_tokens": prompt - cached,
        "output_tokens": completion,
        "cache_read_input_tokens": cached,
        "cache_creation_input_tokens": 0,
    }
    only_thought = fault is not None and fault.kind == "thinkonly"
    thinking = isinstance(body.get("thinking"), dict) or only_thought
    blocks: list[dict[str, Any]] = []
    if thinking:
        blocks.append({"type": "thinking", "thinking": decision.reasoning, "signature": "mock"})
    if (decision.content or not decision.calls) and not only_thought:
        blocks.append({"type": "text", "text": decision.content})
    for call_id, name, arguments in decision.calls:
        given: Any = _broken(arguments) if broken else _cut(arguments) if ending else arguments
        blocks.append({"type": "tool_use", "id": call_id, "name": name, "input": given})
    stop = ending[1] if ending else "tool_use" if decision.calls else "end_turn"
    ident = "msg_mock_" + hashlib.sha256(json.dumps(messages).encode()).hexdigest()[:16]
    whole = {
        "id": ident,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage,
    }
    if body.get("stream") is not True:
        return whole, []
    start = {**whole, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    events = [_sse({"type": "message_start", "message": start}, "message_start")]
    for index, block in enumerate(blocks):
        if block["type"] == "thinking":
            opening: dict[str, Any] = {"type": "thinking", "thinking": ""}
            deltas = [
                {"type": "thinking_delta", "thinking": p} for p in _pieces(block["thinking"], 16)
            ]
            deltas.append({"type": "signature_delta", "signature": "mock"})
        elif block["type"] == "text":
            opening = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": p} for p in _pieces(block["text"], 8)]
        else:
            opening = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            text = block["input"] if isinstance(block["input"], str) else json.dumps(block["input"])
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in _pieces(text, 10)]
        events.append(
            _sse(
                {"type": "content_block_start", "index": index, "content_block": opening},
                "content_block_start",
            )
        )
        events += [
            _sse({"type": "content_block_delta", "index": index, "delta": d}, "content_block_delta")
            for d in deltas
        ]
        events.append(_sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
    events.append(
        _sse(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": completion},
            },
            "message_delta",
        )
    )
    events.append(_sse({"type": "message_stop"}, "message_stop"))
    return whole, events


# ---------------------------------------------------------------------------------------------
# The server


@dataclass(frozen=True)
class SeenRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    at: float  # time.monotonic() when it was read
    fault: str | None = None


class _Reset(Exception):
    """The handler reset the connection on purpose."""


class _Idle(Exception):
    """A kept-alive connection ended (or idled out) between two requests."""


# Whether the response being written keeps its connection open: set per request by the
# connection's own task (a context variable is task-local), read by ``_head``.
_KEEP_ALIVE: ContextVar[bool] = ContextVar("keep_alive", default=False)
_READER: ContextVar[asyncio.StreamReader | None] = ContextVar("reader", default=None)


class MockServer:
    """Run in a thread (``with MockServer() as server:``) or in the foreground (``serve``)."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        faults: Sequence[str | Fault] = (),
        api_key: str | None = None,
        declare: bool = True,
        latency: float = 0.0,
        max_seconds: float | None = DEFAULT_MAX_SECONDS,
        version: str = VERSION,
        context_window: int | None = None,
        quantisation: str | None = None,
        serial: bool = False,
        loading_s: float = 0.0,
    ) -> None:
        if host not in LOOPBACK:
            raise ValueError(f"the mock server binds only to {' or '.join(LOOPBACK)}, not {host!r}")
        self.host = host
        self.port = port
        self.api_key = api_key
        self.declare = declare
        self.latency = latency
        self.max_seconds = max_seconds
        # What it declares about itself when ``declare`` (bench probe and run fingerprints).
        self.version = version
        self.context_window = context_window
        self.quantisation = quantisation
        self.serial = serial
        # For its first ``loading_s`` seconds every request is HTTP 503 "Loading model", as
        # llama.cpp's server answers while it loads one (/health and /v1/models included).
        self.loading_s = loading_s
        self._started_at: float | None = None
        self._serial_lock: asyncio.Lock | None = None
        self._model_in_flight = 0
        self.max_in_flight_seen = 0
        """The most model requests the server held at once (queued behind ``serial``
        included)."""
        self._plan = FaultPlan([parse_fault(f) if isinstance(f, str) else f for f in faults])
        self._path_plans: dict[str, FaultPlan] = {}
        self._seen: deque[SeenRequest] = deque(maxlen=MAX_RECORDED)
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._error: BaseException | None = None

    # -- lifecycle ------------------------------------------------------------------------

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def fault_url(self, plan: str) -> str:
        """The server root behind a per-request fault plan (append ``/v1`` for OpenAI)."""
        return f"{self.url}/fault/{plan}"

    def start(self) -> MockServer:
        if self._thread is not None:
            raise RuntimeError("already started")
        self._thread = threading.Thread(target=self._run, name="bench-mock", daemon=True)
        self._thread.start()
        self._ready.wait(10)
        if self._error is not None:
            self._thread.join(5)
            raise RuntimeError(f"the mock server did not start: {self._error}")
        return self

    def stop(self) -> None:
        thread, self._thread = self._thread, None
        if thread is None:
            return
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop finished on its own
                loop.call_soon_threadsafe(stop.set)
        thread.join(15)

    def __enter__(self) -> MockServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        try:
            asyncio.run(self.serve())
        except BaseException as exc:  # reported to start(); the thread must not die loudly
            self._error = exc
            self._ready.set()

    async def serve(self, on_ready: Callable[[str], None] | None = None) -> None:
        """Serve until stopped or ``max_seconds`` pass."""
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        server = await asyncio.start_server(self._handle, self.host, self.port)
        self.port = server.sockets[0].getsockname()[1]
        self._started_at = time.monotonic()
        self._ready.set()
        if on_ready is not None:
            on_ready(self.url)
        try:
            async with asyncio.timeout(self.max_seconds):
                await self._stop.wait()
        except TimeoutError:
            pass
        finally:
            server.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            await server.wait_closed()

    # -- what reached it ------------------------------------------------------------------

    def requests(self, path_contains: str | None = None) -> list[SeenRequest]:
        with self._lock:
            seen = list(self._seen)
        return [r for r in seen if path_contains is None or path_contains in r.path]

    def model_requests(self) -> list[SeenRequest]:
        return [r for r in self.requests() if r.method == "POST"]

    # -- one connection, requests one after another ----------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        abort = False
        try:
            served = 0
            while await self._serve_one(reader, writer, idle=served > 0):
                served += 1
        except _Idle:
            pass
        except (
            _Reset,
            ConnectionError,
            TimeoutError,
            asyncio.IncompleteReadError,
            asyncio.LimitOverrunError,
        ):
            abort = True
        except asyncio.CancelledError:
            # Only the server's own shutdown cancels a handler; ending quietly keeps asyncio's
            # connection callback from reporting the cancellation as an error (Python 3.11).
            abort = True
        finally:
            if task is not None:
                self._tasks.discard(task)
            if abort:
                writer.transport.abort()
            else:
                writer.close()
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await writer.wait_closed()

    async def _serve_one(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, idle: bool
    ) -> bool:
        """Read and answer one request; True when the connection stays open for the next."""
        _KEEP_ALIVE.set(False)
        _READER.set(reader)
        first: bytes | None = None
        if idle:
            try:
                async with asyncio.timeout(KEEP_ALIVE_IDLE_S):
                    first = await reader.readuntil(b"\r\n")  # the next request line, or none
            except (TimeoutError, asyncio.IncompleteReadError):
                raise _Idle() from None
        async with asyncio.timeout(READ_REQUEST_TIMEOUT_S):
            head = first if first is not None else await reader.readuntil(b"\r\n")
            while not head.endswith(b"\r\n\r\n") and head != b"\r\n":
                if len(head) > MAX_HEAD_BYTES:
                    raise asyncio.LimitOverrunError("the request head is too large", len(head))
                head += await reader.readuntil(b"\r\n")
            lines = head.decode("latin-1").split("\r\n")
            try:
                method, target, version = lines[0].split(" ", 2)
            except ValueError:
                await self._send_json(writer, 400, {"error": {"message": "bad request line"}})
                return False
            headers: dict[str, str] = {}
            for line in lines[1:]:
                name, sep, value = line.partition(":")
                if sep:
                    headers[name.strip().lower()] = value.strip()
            length = int(headers.get("content-length", "0") or 0)
            if length > MAX_REQUEST_BYTES:
                await self._send_json(writer, 413, {"error": {"message": "too large"}})
                return False
            raw = await reader.readexactly(length) if length else b""
        keep = (
            version.strip() == "HTTP/1.1" and "close" not in headers.get("connection", "").lower()
        )
        _KEEP_ALIVE.set(keep)
        path = target.partition("?")[0]
        plan: FaultPlan | None = None
        plan_text: str | None = None
        if path.startswith("/fault/"):
            plan_text, _, rest = path[len("/fault/") :].partition("/")
            plan_text = unquote(plan_text)
            path = "/" + rest
            if plan_text not in self._path_plans:
                try:
                    self._path_plans[plan_text] = FaultPlan(parse_plan(plan_text))
                except ValueError as exc:
                    await self._send_json(writer, 400, {"error": {"message": str(exc)}})
                    return _KEEP_ALIVE.get()
            plan = self._path_plans[plan_text]
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = None
        seen = SeenRequest(method, target.partition("?")[0], headers, body, time.monotonic())
        with self._lock:
            self._seen.append(seen)
        await self._route(writer, method, path, headers, body, raw, plan)
        return _KEEP_ALIVE.get()

    async def _route(
        self,
        writer: asyncio.StreamWriter,
        method: str,
        path: str,
        headers: dict[str, str],
        body: Any,
        raw: bytes,
        plan: FaultPlan | None,
    ) -> None:
        if self._started_at is None:
            self._started_at = time.monotonic()
        if time.monotonic() - self._started_at < self.loading_s:
            error = {"code": 503, "message": "Loading model", "type": "unavailable_error"}
            await self._send_json(writer, 503, {"error": error})
            return
        if method == "GET" and path == "/health":
            payload: dict[str, Any] = {"status": "ok"}
            if self.declare:
                payload.update(service="bench-mock", version=self.version)
                if self.quantisation is not None:
                    payload["quantization"] = self.quantisation
            await self._send_json(writer, 200, payload)
            return
        anthropic = path == "/v1/messages"
        if not self._authorized(headers, anthropic):
            presented = headers.get("x-api-key") or headers.get("authorization", "")
            presented = presented.removeprefix("Bearer ").strip()
            error = {
                "message": f"Incorrect API key provided: {presented or '(none)'}",
                "type": "authentication_error" if anthropic else "invalid_request_error",
                "code": "invalid_api_key",
            }
            await self._send_json(
                writer, 401, {"type": "error", "error": error} if anthropic else {"error": error}
            )
            return
        if method == "GET" and path in ("/v1/models", "/models"):
            owner = "bench-mock" if self.declare else "system"
            data: list[dict[str, Any]] = [
                {"id": m, "object": "model", "created": 0, "owned_by": owner} for m in MODELS
            ]
            if self.declare and self.context_window is not None:
                for item in data:
                    item["max_model_len"] = self.context_window  # as vLLM declares it
            await self._send_json(writer, 200, {"object": "list", "data": data})
            return
        if method != "POST" or path not in (
            "/v1/chat/completions",
            "/chat/completions",
            "/v1/messages",
        ):
            await self._send_json(writer, 404, {"error": {"message": f"no route {method} {path}"}})
            return
        if not isinstance(body, dict):
            message = "the body is not a JSON object" if raw else "no body"
            await self._send_json(writer, 400, {"error": {"message": message}})
            return
        fault = plan.next() if plan is not None else None
        if fault is None:
            fault = self._plan.next()
        self._model_in_flight += 1
        self.max_in_flight_seen = max(self.max_in_flight_seen, self._model_in_flight)
        try:
            if not self.serial:
                await self._answer(writer, body, fault, anthropic)
                return
            if self._serial_lock is None:
                self._serial_lock = asyncio.Lock()
            async with self._serial_lock:
                await self._answer(writer, body, fault, anthropic)
        finally:
            self._model_in_flight -= 1

    async def _answer(
        self,
        writer: asyncio.StreamWriter,
        body: dict[str, Any],
        fault: Fault | None,
        anthropic: bool,
    ) -> None:
        """Work out the answer (the server's latency and a fault's delay) and send it. A
        serial server stops working on a stream whose client went away, as llama-cpp-python
        does; a plain answer is worked out to the end either way."""
        wait = self.latency + (fault.latency if fault else 0.0)
        if fault is not None and fault.kind == "delay":
            wait += fault.seconds
        if wait and self.serial and body.get("stream") is True:
            reader = _READER.get()
            end = time.monotonic() + wait
            while (left := end - time.monotonic()) > 0:
                if reader is not None and reader.at_eof():
                    raise _Reset()
                await asyncio.sleep(min(left, 0.02))
        elif wait:
            await asyncio.sleep(wait)
        if fault is not None and fault.kind == "status":
            await self._send_fault_status(writer, fault, anthropic)
            return
        if fault is not None and fault.kind == "invalid":
            where = ", ".join(f"('body', 'messages', {i}, 'content')" for i in range(12))
            problem = (
                "12 validation errors for CreateChatCompletionRequest: Input should be a valid "
                f"string [type=string_type] at {where}; the request cannot be served as sent"
            )
            await self._send_json(writer, 500, {"error": {"message": problem}})
            return
        if fault is not None and fault.kind == "nostreamoptions" and "stream_options" in body:
            # Mistral's answer, as quoted in openai/openai-agents-python#442.
            detail = [
                {
                    "type": "extra_forbidden",
                    "loc": ["body", "stream_options", "include_usage"],
                    "msg": "Extra inputs are not permitted",
                    "input": True,
                }
            ]
            refused = {"object": "error", "message": {"detail": detail}}
            await self._send_json(writer, 422, {**refused, "type": "invalid_request_error"})
            return
        if fault is not None and fault.kind == "strict" and not anthropic:
            refusal = strict_problem(body)
            if refusal is not None:
                await self._send_json(writer, 500, {"error": {"message": refusal}})
                return
            if body.get("tools") and "tool_choice" not in body:
                body = {key: value for key, value in body.items() if key != "tools"}
        whole, events = anthropic_reply(body, fault) if anthropic else openai_reply(body, fault)
        if fault is not None and fault.kind == "nostream":
            events = []
        if fault is not None and fault.kind == "nofinish" and events:
            events = [e for e in events if b'"finish_reason": "' not in e]
        if fault is not None and fault.kind == "inband":
            error = {"type": "overloaded_error", "message": "mock fault: an error in a 200"}
            if body.get("stream") is not True:
                await self._send_json(writer, 200, {"type": "error", "error": error})
                return
            events = events[: len(events) // 2]
            if anthropic:
                events.append(_sse({"type": "error", "error": error}, "error"))
            else:
                events += [_sse({"error": error}), _sse("[DONE]")]
        if body.get("stream") is True:
            await self._send_stream(writer, events, fault)
        else:
            await self._send_body(writer, json.dumps(whole).encode(), fault)

    def _authorized(self, headers: dict[str, str], anthropic: bool) -> bool:
        if self.api_key is None:
            return True
        if anthropic:
            return headers.get("x-api-key") == self.api_key
        return headers.get("authorization") == f"Bearer {self.api_key}"

    # -- writing -------------------------------------------------------------------------

    def _head(self, status: int, headers: dict[str, str]) -> bytes:
        try:
            reason = HTTPStatus(status).phrase
        except ValueError:
            reason = "Status"
        lines = [
            f"HTTP/1.1 {status} {reason}",
            "Connection: keep-alive" if _KEEP_ALIVE.get() else "Connection: close",
            f"Date: {_http_date()}",
        ]
        if self.declare:
            lines.append(f"Server: bench-mock/{self.version}")
        lines += [f"{name}: {value}" for name, value in headers.items()]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    async def _send_json(self, writer: asyncio.StreamWriter, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        head = {"Content-Type": "application/json", "Content-Length": str(len(data))}
        writer.write(self._head(status, head) + data)
        await writer.drain()

    async def _send_fault_status(
        self, writer: asyncio.StreamWriter, fault: Fault, anthropic: bool
    ) -> None:
        message = f"mock fault: HTTP {fault.status}"
        error = {"message": message, "type": "mock_fault", "code": fault.status}
        payload = {"type": "error", "error": error} if anthropic else {"error": error}
        data = json.dumps(payload).encode()
        head = {"Content-Type": "application/json", "Content-Length": str(len(data))}
        retry_after = fault.retry_after_header()
        if retry_after is not None:
            head["Retry-After"] = retry_after
        writer.write(self._head(fault.status, head) + data)
        await writer.drain()

    async def _send_body(
        self, writer: asyncio.StreamWriter, data: bytes, fault: Fault | None
    ) -> None:
        kind = fault.kind if fault is not None else None
        if kind == "truncate":
            data = data[: len(data) // 2]
        head = self._head(
            200, {"Content-Type": "application/json", "Content-Length": str(len(data))}
        )
        if kind == "reset":
            await self._reset_after(writer, head + data[: len(data) // 2])
        elif kind == "drip" and fault is not None:
            writer.write(head)
            await writer.drain()
            await self._drip(writer, data, fault.bps)
        else:
            writer.write(head + data)
            await writer.drain()

    async def _send_stream(
        self, writer: asyncio.StreamWriter, events: list[bytes], fault: Fault | None
    ) -> None:
        kind = fault.kind if fault is not None else None
        fields = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        if kind in ("truncate", "reset", "drip"):
            _KEEP_ALIVE.set(False)  # these streams end with the connection
        if _KEEP_ALIVE.get():
            writer.write(self._head(200, {**fields, "Transfer-Encoding": "chunked"}))
            for event in events:
                writer.write(b"%x\r\n%b\r\n" % (len(event), event))
                await writer.drain()
            writer.write(b"0\r\n\r\n")
            await writer.drain()
            return
        head = self._head(200, fields)
        writer.write(head)
        await writer.drain()
        if kind == "truncate":
            events = events[: max(1, len(events) // 2)]
        if kind == "reset":
            await self._reset_after(writer, b"".join(events[: max(1, len(events) // 2)]))
            return
        if kind == "drip" and fault is not None:
            await self._drip(writer, b"".join(events), fault.bps)
            return
        for event in events:
            writer.write(event)
            await writer.drain()

    async def _drip(self, writer: asyncio.StreamWriter, data: bytes, bps: float) -> None:
        step = 1.0 / bps
        for index in range(len(data)):
            if self._stop is not None and self._stop.is_set():
                raise _Reset()
            writer.write(data[index : index + 1])
            await writer.drain()
            await asyncio.sleep(step)

    async def _reset_after(self, writer: asyncio.StreamWriter, data: bytes) -> None:
        writer.write(data)
        await writer.drain()
        sock = writer.get_extra_info("socket")
        if sock is not None:
            # Linger 0: close() sends a TCP RST instead of a FIN.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        raise _Reset()


# ---------------------------------------------------------------------------------------------
# Command line


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench.testing.mock_server",
        description="A loopback-only mock of OpenAI-compatible and Anthropic endpoints.",
    )
    parser.add_argument("--host", default="127.0.0.1", choices=LOOPBACK)
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="PLAN",
        help="a server-wide fault plan, e.g. '429,retry-after=1,times=2' (repeatable)",
    )
    parser.add_argument(
        "--api-key-env",
        metavar="NAME",
        help="require the key held by this environment variable",
    )
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every answer")
    parser.add_argument(
        "--max-seconds", type=float, default=DEFAULT_MAX_SECONDS, help="stop after this long"
    )
    parser.add_argument("--no-declare", action="store_true", help="do not say what it is")
    parser.add_argument("--declared-version", default=VERSION, help="the version it declares")
    parser.add_argument(
        "--context-window", type=int, help="declare this context window (max_model_len)"
    )
    parser.add_argument("--quantisation", help="declare this quantisation (/health)")
    parser.add_argument(
        "--serial",
        action="store_true",
        help="answer model requests one at a time, working a plain answer out to the end even "
        "when the client has gone (as llama-cpp-python does)",
    )
    parser.add_argument(
        "--loading",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="answer every request with HTTP 503 'Loading model' for this long after starting "
        "(as llama.cpp's server does while it loads a model)",
    )
    return parser


def run(
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    faults: Sequence[str] = (),
    api_key_env: str | None = None,
    latency: float = 0.0,
    max_seconds: float = DEFAULT_MAX_SECONDS,
    declare: bool = True,
    announce: Callable[[str], None] = print,
    version: str = VERSION,
    context_window: int | None = None,
    quantisation: str | None = None,
    serial: bool = False,
    loading_s: float = 0.0,
) -> None:
    """Serve in the foreground; ``announce`` gets the URL once the port is bound."""
    plans = [fault for text in faults for fault in parse_plan(text)]
    key = None
    if api_key_env:
        key = os.environ.get(api_key_env)
        if not key:
            raise ValueError(f"the environment variable {api_key_env} is not set")
    server = MockServer(
        host,
        port,
        faults=plans,
        api_key=key,
        declare=declare,
        latency=latency,
        max_seconds=max_seconds,
        version=version,
        context_window=context_window,
        quantisation=quantisation,
        serial=serial,
        loading_s=loading_s,
    )
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(server.serve(on_ready=announce))


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)

    def announce(url: str) -> None:
        print(url, flush=True)

    try:
        run(
            host=args.host,
            port=args.port,
            faults=args.fault,
            api_key_env=args.api_key_env,
            latency=args.latency,
            max_seconds=args.max_seconds,
            declare=not args.no_declare,
            announce=announce,
            version=args.declared_version,
            context_window=args.context_window,
            quantisation=args.quantisation,
            serial=args.serial,
            loading_s=args.loading,
        )
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
