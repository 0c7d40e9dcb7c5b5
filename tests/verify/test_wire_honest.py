"""Honest runs the wire check (``bench.verify.wire``, ``RECORDING_MISMATCH``) must never refuse.

Every ``openai`` and ``anthropic`` model call is held to its recorded bodies: the parsed answer
must be what the target's own parser reads from ``raw.response`` and ``raw.request`` the body
the target builds for the recorded request. Here runs that a real submitter makes go through
``bench run`` (``start_run``), ``bench bundle`` (``build_bundle``) and ``bench verify``
(``verify_bundle``), in process, against servers on loopback: the mock server with its fault
plans (retries, ``stream_options`` refused, a stream not served, reasoning only, ``<think>``
tags, cut answers), and a scripted server that writes the shapes hosted APIs and inference
servers write (streams whose assembled body differs from any plain one, tool-call arguments in
pieces, usage only in the last chunk or in ``x_groq``, refusals, Mistral's list content,
Anthropic thinking, redacted thinking, server tools and citations), the odd arguments models
write (duplicate keys, spacing, non-ASCII, big and float numbers, arguments that are not an
object), text the recorder must keep or scrub (the API key echoed back), and target settings
(``system_prompt``, command-line overrides, nested params, ``tool_choice``,
``max_completion_tokens``, Anthropic ``thinking``). Each bundle must verify."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from bench.core.recordtext import long_marks
from bench.records.store import RunDir
from bench.runner import RunRequest, start_run
from bench.signing.bundle import build_bundle
from bench.testing.mock_server import MockServer
from bench.verify import VerifyOptions, verify_bundle

from .conftest import signing_keys

ENTRANT = "wire-honest"
KEY = "sk-wire-honest-0123456789"
TASKS = ("qa-0001", "tool-0001")
Body = dict[str, Any]
# (status, content type, payload bytes, extra headers)
Answer = tuple[int, str, bytes, dict[str, str]]


# --- a scripted server --------------------------------------------------------------------


@dataclass
class Script:
    """How the scripted server answers: ``first`` for a request whose last message is not a
    tool result (it may call a tool), ``final`` for one that is (it answers), ``before`` the
    answers served first to every request in order (a 429, a 503 ...)."""

    first: Callable[[Body, dict[str, str]], Answer]
    final: Callable[[Body, dict[str, str]], Answer]
    before: list[Answer] = field(default_factory=list)


class ScriptedServer:
    def __init__(self) -> None:
        self.script: Script | None = None
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._send((200, "application/json", b'{"object":"list","data":[]}', {}))

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(length))
                headers = {k.lower(): v for k, v in self.headers.items()}
                self._send(outer.answer(body, headers))

            def _send(self, answer: Answer) -> None:
                status, kind, payload, extra = answer
                self.send_response(status)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(payload)))
                for name, value in extra.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            # The probe asks a dozen paths at once: the default backlog of 5 dropped the
            # rest's connections, each waiting out a SYN retransmit (a second).
            request_queue_size = 64

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def answer(self, body: Body, headers: dict[str, str]) -> Answer:
        script = self.script
        assert script is not None
        with self.lock:
            if script.before:
                return script.before.pop(0)
        if _after_tool(body):
            return script.final(body, headers)
        return script.first(body, headers)


def _after_tool(body: Body) -> bool:
    last = body["messages"][-1]
    if last.get("role") == "tool":
        return True
    content = last.get("content")
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    )


def _tool(body: Body) -> str:
    tools = body.get("tools") or []
    if not tools:
        return ""
    first = tools[0]
    return str(first["function"]["name"] if "function" in first else first["name"])


JSON = "application/json"
SSE = "text/event-stream"


def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()


def _sse(*events: Any, done: bool = True) -> bytes:
    out = b"".join(
        b"data: " + (_json(e) if not isinstance(e, bytes) else e) + b"\n\n" for e in events
    )
    return out + (b"data: [DONE]\n\n" if done else b"")


def _anthropic_sse(*events: Body) -> bytes:
    return b"".join(
        b"event: " + str(e["type"]).encode() + b"\ndata: " + _json(e) + b"\n\n" for e in events
    )


# --- openai shapes ------------------------------------------------------------------------

USAGE = {"prompt_tokens": 31, "completion_tokens": 7, "total_tokens": 38}


def _completion(message: Body, finish: str = "stop", **extra: Any) -> Answer:
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}
        ],
        "usage": USAGE,
        **extra,
    }
    return 200, JSON, _json(body), {}


def _chunk(delta: Body, finish: str | None = None, **extra: Any) -> Body:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }


def _stream(*events: Any, done: bool = True) -> Answer:
    return 200, SSE, _sse(*events, done=done), {}


def plain_text(text: str) -> Callable[[Body, dict[str, str]], Answer]:
    return lambda body, headers: _completion({"content": text})


def plain_call(arguments: Any) -> Callable[[Body, dict[str, str]], Answer]:
    def answer(body: Body, headers: dict[str, str]) -> Answer:
        if not _tool(body):
            return _completion({"content": "No tools here."})
        call = {
            "id": "call_a",
            "type": "function",
            "function": {"name": _tool(body), "arguments": arguments},
        }
        return _completion({"content": None, "tool_calls": [call]}, "tool_calls")

    return answer


def streamed_text(
    *pieces: str, usage: Any = USAGE, **last: Any
) -> Callable[[Body, dict[str, str]], Answer]:
    def answer(body: Body, headers: dict[str, str]) -> Answer:
        events: list[Any] = [_chunk({"role": "assistant", "content": ""})]
        events += [_chunk({"content": piece}) for piece in pieces]
        events.append(_chunk({}, "stop", **last))
        if usage is not None:
            events.append(
                {
                    "id": "chatcmpl-1",
                    "object": "chat.completion.chunk",
                    "choices": [],
                    "usage": usage,
                }
            )
        return _stream(*events)

    return answer


def streamed_call(*pieces: str, groq: bool = False) -> Callable[[Body, dict[str, str]], Answer]:
    """A call whose arguments come in ``pieces``, after reasoning deltas, with an empty
    ``finish_reason`` before the real one; usage only in the last chunk (or in ``x_groq``)."""

    def answer(body: Body, headers: dict[str, str]) -> Answer:
        if not _tool(body):
            return streamed_text("No tools here.")(body, headers)
        head = {
            "index": 0,
            "id": "call_s",
            "type": "function",
            "function": {"name": _tool(body), "arguments": ""},
        }
        events: list[Any] = [
            _chunk({"role": "assistant", "content": None, "reasoning_content": "Let me "}),
            _chunk({"reasoning_content": "look."}, ""),
            _chunk({"tool_calls": [head]}),
        ]
        events += [
            _chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in pieces
        ]
        if groq:
            events.append(_chunk({}, "tool_calls", x_groq={"id": "req_1", "usage": USAGE}))
        else:
            events.append(_chunk({}, "tool_calls"))
            events.append(
                {
                    "id": "chatcmpl-1",
                    "object": "chat.completion.chunk",
                    "choices": [],
                    "usage": USAGE,
                }
            )
        return _stream(*events)

    return answer


ODD_ARGUMENTS = (
    '{ "order_id" :"1041" , "order_id":"1041",\n"note": "Zürich \\u00e9 \\ud83d\\ude00 日本",'
    ' "n": 123456789012345678901234567890, "f": 1.0, "g": 1e300, "h": -0.0, "i": 1E5,'
    ' "nested": {"a": [1, 2.50, {"b": null}]}}'
)


# --- anthropic shapes ---------------------------------------------------------------------

A_USAGE = {
    "input_tokens": 20,
    "output_tokens": 9,
    "cache_read_input_tokens": 4,
    "cache_creation_input_tokens": 0,
}


def _message(blocks: list[Body], stop: str = "end_turn") -> Answer:
    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": A_USAGE,
    }
    return 200, JSON, _json(body), {}


def a_plain_text(text: str) -> Callable[[Body, dict[str, str]], Answer]:
    return lambda body, headers: _message([{"type": "text", "text": text}])


def a_plain_call(arguments: Any) -> Callable[[Body, dict[str, str]], Answer]:
    def answer(body: Body, headers: dict[str, str]) -> Answer:
        if not _tool(body):
            return _message([{"type": "text", "text": "No tools here."}])
        blocks = [
            {"type": "thinking", "thinking": "The order first.", "signature": "sig"},
            {"type": "redacted_thinking", "data": "EmwKAhgB"},
            {"type": "text", "text": "Looking it up."},
            {"type": "tool_use", "id": "toolu_1", "name": _tool(body), "input": arguments},
        ]
        return _message(blocks, "tool_use")

    return answer


def a_streamed_call(*pieces: str) -> Callable[[Body, dict[str, str]], Answer]:
    def answer(body: Body, headers: dict[str, str]) -> Answer:
        if not _tool(body):
            return a_streamed_cited()(body, headers)
        start = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "content": [],
            "stop_reason": None,
            "usage": {"input_tokens": 20, "output_tokens": 1, "cache_read_input_tokens": 4},
        }
        events: list[Body] = [
            {"type": "message_start", "message": start},
            {"type": "ping"},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "thinking", "thinking": ""},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "thinking_delta", "thinking": "Order "},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "thinking_delta", "thinking": "first."},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "signature_delta", "signature": "sig"},
            },
            {"type": "content_block_stop", "index": 0},
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {"type": "redacted_thinking", "data": "Emw"},
            },
            {"type": "content_block_stop", "index": 1},
            {
                "type": "content_block_start",
                "index": 2,
                "content_block": {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": _tool(body),
                    "input": {},
                },
            },
        ]
        events += [
            {
                "type": "content_block_delta",
                "index": 2,
                "delta": {"type": "input_json_delta", "partial_json": p},
            }
            for p in pieces
        ]
        events += [
            {"type": "content_block_stop", "index": 2},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                "usage": {"output_tokens": 15, "input_tokens": None},
            },
            {"type": "message_stop"},
        ]
        return 200, SSE, _anthropic_sse(*events), {}

    return answer


def a_streamed_cited() -> Callable[[Body, dict[str, str]], Answer]:
    """Text in cited blocks around a server tool's use and result, streamed."""

    def answer(body: Body, headers: dict[str, str]) -> Answer:
        start = {
            "id": "msg_2",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "content": [],
            "stop_reason": None,
            "usage": {"input_tokens": 30, "output_tokens": 1},
        }
        cite = {
            "type": "char_location",
            "cited_text": "14 days",
            "document_index": 0,
            "start_char_index": 0,
            "end_char_index": 7,
        }
        events: list[Body] = [
            {"type": "message_start", "message": start},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "Refunds take "},
            },
            {"type": "content_block_stop", "index": 0},
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {
                    "type": "server_tool_use",
                    "id": "srvtoolu_1",
                    "name": "web_search",
                    "input": {"query": "refunds"},
                },
            },
            {"type": "content_block_stop", "index": 1},
            {
                "type": "content_block_start",
                "index": 2,
                "content_block": {
                    "type": "web_search_tool_result",
                    "tool_use_id": "srvtoolu_1",
                    "content": [],
                },
            },
            {"type": "content_block_stop", "index": 2},
            {
                "type": "content_block_start",
                "index": 3,
                "content_block": {"type": "text", "text": "", "citations": []},
            },
            {
                "type": "content_block_delta",
                "index": 3,
                "delta": {"type": "citations_delta", "citation": cite},
            },
            {
                "type": "content_block_delta",
                "index": 3,
                "delta": {"type": "text_delta", "text": "14 days"},
            },
            {"type": "content_block_stop", "index": 3},
            {
                "type": "content_block_start",
                "index": 4,
                "content_block": {"type": "text", "text": ""},
            },
            {
                "type": "content_block_delta",
                "index": 4,
                "delta": {"type": "text_delta", "text": " [faq.md#refunds]."},
            },
            {"type": "content_block_stop", "index": 4},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": 12},
            },
            {"type": "message_stop"},
        ]
        return 200, SSE, _anthropic_sse(*events), {}

    return answer


def echo_key(kind: str) -> Callable[[Body, dict[str, str]], Answer]:
    """The server echoes the key it was sent in its answer (a debugging proxy)."""

    def answer(body: Body, headers: dict[str, str]) -> Answer:
        key = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
        text = f"Refunds take 14 days [faq.md#refunds] (you sent {key}, and {key} again)."
        if kind == "anthropic":
            return _message([{"type": "text", "text": text}])
        return _completion({"content": text}, extra_key=key)

    return answer


# --- the cases ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    kind: str
    script: Callable[[], Script] | None = None  # None: the mock server
    stream: bool = False
    plan: str | None = None  # the mock server's fault plan
    fields: dict[str, Any] = field(default_factory=dict)
    overrides: dict[str, str | None] | None = None


FINAL = "Refunds take 14 days [faq.md#refunds]."
OPENAI_FINAL = plain_text(FINAL)

# Answers no record may hold, each served once (to the run's first call): refused where they
# come in (an errored call, or retried), never recorded.
UNFIT: dict[str, Answer] = {
    "control-character": (
        200,
        JSON,
        b'{"choices":[{"index":0,"message":{"role":"assistant","content":"bell \\u0007"},'
        b'"finish_reason":"stop"}]}',
        {},
    ),
    "lone-surrogate": (
        200,
        SSE,
        b'data: {"choices":[{"index":0,"delta":{"content":"half \\ud800"},"finish_reason":"stop"}]}'
        b"\n\ndata: [DONE]\n\n",
        {},
    ),
    "invalid-utf8-plain": (
        200,
        JSON,
        b'{"choices":[{"index":0,"message":{"role":"assistant","content":"caf\xc3\x28"},'
        b'"finish_reason":"stop"}]}',
        {},
    ),
    "invalid-utf8-stream": (
        200,
        SSE,
        b'data: {"choices":[{"index":0,"delta":{"content":"caf\xc3\x28"},"finish_reason":"stop"}]}'
        b"\n\ndata: [DONE]\n\n",
        {},
    ),
    "overflowing-number": (
        200,
        JSON,
        b'{"choices":[{"index":0,"message":{"role":"assistant","content":"x"},'
        b'"finish_reason":"stop"}],"usage":{"prompt_tokens":1e400}}',
        {},
    ),
}

CASES: dict[str, Case] = {
    **{
        f"openai-unfit-once-{name}": Case(
            "openai",
            lambda answer=answer: Script(
                streamed_call('{"order_id": "1041"}'), streamed_text(FINAL), [answer]
            ),
            stream=True,
        )
        for name, answer in UNFIT.items()
    },
    # the mock server, its fault plans
    **{
        f"mock-{kind}-{'stream' if stream else 'plain'}-{plan or 'clean'}": Case(
            kind, stream=stream, plan=plan
        )
        for kind in ("openai", "anthropic")
        for stream in (False, True)
        for plan in (
            None,
            "429,times=1",
            "503,times=2",
            "reset,times=1",
            "truncate,times=1",
            "thinktags",
            "length",
            "badargs",
        )
    },
    **{
        f"mock-{kind}-stream-{plan}": Case(kind, stream=True, plan=plan)
        for kind in ("openai", "anthropic")
        for plan in (
            "nostream",
            "thinkonly,times=1",
            "empty,times=1",
            "inband,times=1",
            "nofinish,times=1",
        )
    },
    "mock-openai-stream-nostreamoptions": Case("openai", stream=True, plan="nostreamoptions"),
    "mock-openai-stream-nostreamoptions-nostream": Case(
        "openai", stream=True, plan="nostreamoptions+nostream"
    ),
    "mock-openai-plain-strict": Case("openai", plan="strict"),
    "mock-openai-stream-filtered": Case("openai", stream=True, plan="filtered,times=1"),
    "mock-anthropic-plain-filtered": Case("anthropic", plan="filtered,times=1"),
    # target settings, on the mock server
    "settings-openai": Case(
        "openai",
        stream=True,
        fields={
            "system_prompt": "You are terse.\nCite sources.",
            "params": {
                "temperature": 0.0,
                "max_tokens": 64,
                "top_p": 1,
                "extra_body": {"a": [1, {"b": 2.5, "c": None}], "d": "é"},
            },
            "max_tokens_param": "max_completion_tokens",
            "tool_choice": "required",
        },
        overrides={
            "system_prompt": "Overridden on the command line.",
            "model": "bench-mock-parallel",
        },
    ),
    "settings-anthropic": Case(
        "anthropic",
        stream=True,
        fields={
            "system_prompt": "You are terse.",
            "params": {
                "max_tokens": 2048,
                "max_completion_tokens": 99,
                "thinking": {"type": "enabled", "budget_tokens": 1024},
                "metadata": {"user_id": "u-1"},
            },
            "tool_choice": "required",
        },
        overrides={"model": "bench-mock-parallel"},
    ),
    "settings-openai-plain-tool-choice-none": Case(
        "openai", fields={"tool_choice": "none", "params": {"max_completion_tokens": 32}}
    ),
    # scripted shapes
    "openai-plain-odd-arguments": Case(
        "openai", lambda: Script(plain_call(ODD_ARGUMENTS), OPENAI_FINAL)
    ),
    "openai-plain-arguments-as-an-object": Case(
        "openai", lambda: Script(plain_call({"order_id": "1041", "x": [1.5, 2]}), OPENAI_FINAL)
    ),
    "openai-plain-arguments-not-an-object": Case(
        "openai", lambda: Script(plain_call('["1041"]'), OPENAI_FINAL)
    ),
    "openai-plain-arguments-empty": Case("openai", lambda: Script(plain_call(""), OPENAI_FINAL)),
    "openai-stream-arguments-in-pieces": Case(
        "openai",
        lambda: Script(
            streamed_call('{"order', '_id": "10', '41", "n": 1', "2345678901234567890", ".0}"),
            streamed_text("<thi", "nk>Fourteen.</th", "ink>", FINAL),
        ),
        stream=True,
    ),
    "openai-stream-groq-usage": Case(
        "openai",
        lambda: Script(
            streamed_call('{"order_id":"1041"}', groq=True),
            streamed_text(FINAL, usage=None, x_groq={"id": "req_2", "usage": USAGE}),
        ),
        stream=True,
    ),
    "openai-stream-refusal": Case(
        "openai",
        lambda: Script(
            streamed_call('{"order_id": "1041"}'),
            lambda body, headers: _stream(
                _chunk({"role": "assistant", "content": None, "refusal": "I can't "}),
                _chunk({"refusal": "help with that."}),
                _chunk({}, "stop"),
                {
                    "id": "chatcmpl-1",
                    "object": "chat.completion.chunk",
                    "choices": [],
                    "usage": USAGE,
                },
            ),
        ),
        stream=True,
    ),
    "openai-stream-mistral-list-content": Case(
        "openai",
        lambda: Script(
            streamed_call('{"order_id": "1041"}'),
            lambda body, headers: _stream(
                _chunk(
                    {
                        "role": "assistant",
                        "content": [
                            {"type": "thinking", "thinking": [{"type": "text", "text": "Hm."}]}
                        ],
                    }
                ),
                _chunk({"content": [{"type": "text", "text": FINAL}]}),
                _chunk({}, "stop", usage=USAGE),
                done=False,
            ),
        ),
        stream=True,
    ),
    "openai-stream-text-variety": Case(
        "openai",
        lambda: Script(
            streamed_call('{"order_id": "1041"}'),
            streamed_text(
                "Tab\there, CR\r\nline, LS\u2028PS\u2029, ZWJ \U0001f468\u200d\U0001f469, ",
                "e" + "\u0301" * 20,
                " and " + "x" * 20000,
                FINAL,
            ),
        ),
        stream=True,
    ),
    "openai-stream-azure-filter-chunks": Case(
        "openai",
        lambda: Script(
            streamed_call('{"order_id": "1041"}'),
            lambda body, headers: _stream(
                {
                    "id": "",
                    "object": "",
                    "created": 0,
                    "model": "",
                    "choices": [],
                    "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {}}],
                },
                _chunk({"role": "assistant", "content": FINAL}),
                _chunk({}, "stop", usage=USAGE),
            ),
        ),
        stream=True,
    ),
    "openai-stream-request-answered-plain": Case(
        "openai", lambda: Script(plain_call('{"order_id": "1041"}'), OPENAI_FINAL), stream=True
    ),
    "openai-key-echoed": Case(
        "openai",
        lambda: Script(echo_key("openai"), echo_key("openai")),
        fields={"api_key_env": "W12_HONEST_KEY"},
    ),
    "openai-stream-retried": Case(
        "openai",
        lambda: Script(
            streamed_call('{"order_id": "1041"}'),
            streamed_text(FINAL),
            before=[
                (429, JSON, b'{"error": {"message": "slow down"}}', {"retry-after-ms": "1"}),
                (503, JSON, b'{"error": "busy"}', {}),
            ],
        ),
        stream=True,
    ),
    "openai-stream-parallel-calls-at-index-0": Case(
        "openai",
        lambda: Script(
            lambda body, headers: _stream(
                *(
                    _chunk(
                        {
                            "tool_calls": [
                                {
                                    "index": 0,
                                    "id": f"call_{n}",
                                    "type": "function",
                                    "function": {"name": _tool(body) or "none", "arguments": a},
                                }
                            ]
                        }
                    )
                    for n, a in ((1, '{"order_id": "1041"}'), (2, '{"order_id":"1042"}'))
                ),
                _chunk({}, "tool_calls"),
                {"id": "c", "object": "chat.completion.chunk", "choices": [], "usage": USAGE},
            ),
            streamed_text(FINAL),
        ),
        stream=True,
        fields={"tool_selection": {"policy": "top-k", "k": 1}},
    ),
    "openai-stream-tgi-call-object": Case(
        "openai",
        lambda: Script(
            lambda body, headers: _stream(
                *(
                    {
                        "object": "chat.completion.chunk",
                        "id": "",
                        "created": 1,
                        "model": "tgi",
                        "choices": [
                            {
                                "index": 0,
                                "delta": {
                                    "role": "assistant",
                                    "tool_calls": {
                                        "index": 0,
                                        "id": "",
                                        "type": "function",
                                        "function": {"name": name, "arguments": piece},
                                    },
                                },
                                "logprobs": None,
                                "finish_reason": finish,
                            }
                        ],
                        "usage": None,
                    }
                    for name, piece, finish in (
                        (_tool(body), '{"', None),
                        (None, 'order_id": "1041"}', None),
                        (None, "", "eos_token"),
                    )
                ),
            ),
            streamed_text(FINAL, usage=None),
        ),
        stream=True,
    ),
    "anthropic-stream-answered-plain": Case(
        "anthropic",
        lambda: Script(a_plain_call({"order_id": "1041"}), a_plain_text(FINAL)),
        stream=True,
        fields={"params": {"tool_choice": {"type": "tool", "name": "get_order"}}},
    ),
    "anthropic-plain-thinking-and-odd-input": Case(
        "anthropic",
        lambda: Script(
            a_plain_call(
                {"order_id": "1041", "n": 12345678901234567890123, "f": 1.0, "s": "é 日本"}
            ),
            a_plain_text(FINAL),
        ),
    ),
    "anthropic-stream-thinking-server-tools-citations": Case(
        "anthropic",
        lambda: Script(
            a_streamed_call('{"order_id"', ': "1041", "g": 1e300, "dup": 1, "dup": 2}'),
            a_streamed_cited(),
        ),
        stream=True,
    ),
    "anthropic-stream-input-not-an-object": Case(
        "anthropic",
        lambda: Script(a_streamed_call('["10', '41"]'), a_streamed_cited()),
        stream=True,
    ),
    "anthropic-key-echoed": Case(
        "anthropic",
        lambda: Script(echo_key("anthropic"), echo_key("anthropic")),
        fields={"api_key_env": "W12_HONEST_KEY"},
    ),
    "anthropic-stream-overloaded-then-answered": Case(
        "anthropic",
        lambda: Script(
            a_streamed_call('{"order_id": "1041"}'),
            a_streamed_cited(),
            before=[(529, JSON, b'{"type":"error","error":{"type":"overloaded_error"}}', {})],
        ),
        stream=True,
    ),
}


@pytest.fixture(scope="module")
def mock() -> Iterator[MockServer]:
    with MockServer(max_seconds=300) as running:
        yield running


@pytest.fixture(scope="module")
def scripted() -> Iterator[ScriptedServer]:
    server = ScriptedServer()
    server.thread.start()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()


def _target(mini: Path, case: Case, url: str) -> Path:
    base = url + (f"/fault/{case.plan}" if case.plan else "")
    data: dict[str, Any] = {
        "format_version": 1,
        "kind": case.kind,
        "entrant": ENTRANT,
        "display_name": "wire honest",
        "model": "bench-mock",
        "base_url": base + ("/v1" if case.kind == "openai" else ""),
        "stream": case.stream,
        "retry": {"max_attempts": 3, "base_s": 0.001, "cap_s": 0.002, "seed": 3},
        "timeouts": {"connect_s": 2, "read_s": 5, "request_s": 5, "deadline_s": 10},
        **case.fields,
    }
    path = mini / "targets" / "wire.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True))
    return path


def _verified(mini: Path, root: Path, target: Path, overrides: Any = None) -> RunDir:
    """``bench run`` of two tasks, ``bench bundle``, ``bench verify``: the run, verified."""
    run, status = start_run(
        RunRequest(
            tasks=mini / "tasks",
            target_file=target,
            runs_dir=root / "runs",
            split="public",
            task_ids=TASKS,
            concurrency=2,
            target_overrides=overrides,
            wait_ready_s=0,
        )
    )
    assert status.status == "complete"
    verdict = _bundled_verdict(mini, root, run)
    assert verdict.valid, f"{verdict.code}: {verdict.message}"
    return run


@pytest.mark.parametrize("name", list(CASES))
def test_an_honest_run_verifies(
    name: str,
    mini: Path,
    tmp_path: Path,
    mock: MockServer,
    scripted: ScriptedServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    case = CASES[name]
    monkeypatch.setenv("W12_HONEST_KEY", KEY)
    if case.script is not None:
        scripted.script = case.script()
        url = scripted.url
    else:
        url = mock.url
    _verified(mini, tmp_path, _target(mini, case, url), case.overrides)


# --- flows: a resumed run, merged shards, a replay ---------------------------------------


def _bundled_verdict(mini: Path, root: Path, run: Any) -> Any:
    keys = signing_keys(root, (ENTRANT,))
    bundle = build_bundle(
        run,
        entrant=ENTRANT,
        key_file=keys[ENTRANT],
        out_root=root / "results",
        allowed_signers=root / "submissions" / "allowed_signers",
    )
    return verify_bundle(
        bundle,
        VerifyOptions(
            results_root=root / "results",
            allowed_signers=root / "submissions" / "allowed_signers",
            tasks=mini / "tasks",
            check_duplicates=False,
        ),
    )


def _request(mini: Path, root: Path, target: Path | None, **more: Any) -> RunRequest:
    return RunRequest(
        tasks=mini / "tasks",
        target_file=target,
        runs_dir=root / "runs",
        split="public",
        concurrency=1,
        wait_ready_s=0,
        **more,
    )


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_a_run_resumed_after_its_budget_ran_out_verifies(
    kind: str, mini: Path, tmp_path: Path, mock: MockServer
) -> None:
    """The resumed session's calls come from another target object (openai's
    ``stream_options`` asked again, then refused again)."""
    from bench.core.budget import Budget
    from bench.runner import resume_run

    case = Case(kind, stream=True, plan="nostreamoptions" if kind == "openai" else None)
    target = _target(mini, case, mock.url)
    run, status = start_run(_request(mini, tmp_path, target, run_budget=Budget(tool_calls=1)))
    assert status.status == "partial"
    run, status = resume_run(run.run_id, _request(mini, tmp_path, target))
    assert status.status == "complete"
    verdict = _bundled_verdict(mini, tmp_path, run)
    assert verdict.valid, f"{verdict.code}: {verdict.message}"


def test_merged_shards_verify(mini: Path, tmp_path: Path, mock: MockServer) -> None:
    from bench.runner.merge import merge_runs
    from bench.runner.shards import Shard

    target = _target(mini, Case("openai", stream=True, plan="nostreamoptions"), mock.url)
    runs = [
        start_run(_request(mini, tmp_path, target, shard=Shard(index, 2)))[0] for index in range(2)
    ]
    merged, status = merge_runs([r.run_id for r in runs], tmp_path / "runs")
    assert status.status == "complete"
    verdict = _bundled_verdict(mini, tmp_path, merged)
    assert verdict.valid, f"{verdict.code}: {verdict.message}"


def test_a_replayed_run_verifies(mini: Path, tmp_path: Path, mock: MockServer) -> None:
    target = _target(mini, Case("anthropic", stream=True), mock.url)
    original, _ = start_run(_request(mini, tmp_path, target))
    replayed, status = start_run(_request(mini, tmp_path, None, replay=original.run_id))
    assert status.status == "complete"
    verdict = _bundled_verdict(mini, tmp_path, replayed)
    assert verdict.valid, f"{verdict.code}: {verdict.message}"


# --- text joined past what a record may hold ----------------------------------------------

MARKS = "\u0301" * 20  # combining acute accents: 30 in a row is the most a record may hold
# Each string within the limit, joined by the assembly of a stream or by the parser: once
# recorded, bench verify refused the honest run's bundle (LIMIT_COMBINING). Served to the first
# model call of the run only: a stream is asked again (the failure is retried), a plain answer
# fails its call; either way the bundle verifies.
JOINED: dict[str, tuple[str, bool, Answer]] = {
    "openai-stream-content": (
        "openai",
        True,
        _stream(
            _chunk({"role": "assistant", "content": "e" + MARKS}),
            _chunk({"content": MARKS + " " + FINAL}),
            _chunk({}, "stop", usage=USAGE),
        ),
    ),
    "openai-stream-arguments": (
        "openai",
        True,
        _stream(
            _chunk(
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "c",
                            "type": "function",
                            "function": {
                                "name": "get_order",
                                "arguments": '{"order_id": "1' + MARKS,
                            },
                        }
                    ],
                }
            ),
            _chunk({"tool_calls": [{"index": 0, "function": {"arguments": MARKS + '041"}'}}]}),
            _chunk({}, "tool_calls", usage=USAGE),
        ),
    ),
    "openai-plain-content-parts": (
        "openai",
        False,
        _completion(
            {
                "content": [
                    {"type": "text", "text": "e" + MARKS},
                    {"type": "text", "text": MARKS + " " + FINAL},
                ]
            }
        ),
    ),
    "anthropic-stream-input": (
        "anthropic",
        True,
        (
            200,
            SSE,
            _anthropic_sse(
                {
                    "type": "message_start",
                    "message": {
                        "id": "m",
                        "type": "message",
                        "role": "assistant",
                        "content": [],
                        "model": "m",
                        "stop_reason": None,
                        "usage": {"input_tokens": 3},
                    },
                },
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "get_order",
                        "input": {},
                    },
                },
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {
                        "type": "input_json_delta",
                        "partial_json": '{"order_id": "1' + MARKS,
                    },
                },
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "input_json_delta", "partial_json": MARKS + '041"}'},
                },
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "tool_use"},
                    "usage": {"output_tokens": 5},
                },
                {"type": "message_stop"},
            ),
            {},
        ),
    ),
    "anthropic-plain-text-blocks": (
        "anthropic",
        False,
        _message([{"type": "text", "text": "e" + MARKS}, {"type": "text", "text": MARKS + FINAL}]),
    ),
}


@pytest.mark.parametrize("name", list(JOINED))
def test_text_joined_past_the_mark_limit_does_not_make_the_bundle_unverifiable(
    name: str, mini: Path, tmp_path: Path, scripted: ScriptedServer
) -> None:
    kind, stream, joined = JOINED[name]
    if kind == "openai":
        scripted.script = Script(
            streamed_call('{"order_id": "1041"}') if stream else plain_call('{"order_id": "1041"}'),
            streamed_text(FINAL) if stream else OPENAI_FINAL,
            [joined],
        )
    else:
        scripted.script = Script(
            a_streamed_call('{"order_id": "1041"}')
            if stream
            else a_plain_call({"order_id": "1041"}),
            a_streamed_cited() if stream else a_plain_text(FINAL),
            [joined],
        )
    run = _verified(mini, tmp_path, _target(mini, Case(kind, stream=stream), scripted.url))
    # the joined text came in, was refused where it came in, and is recorded nowhere
    records = [r.model_dump(mode="json") for r in run.attempts()]
    assert "combining marks or invisible characters in a row" in json.dumps(records)
    assert long_marks(records) is None


def test_a_run_through_the_command_line_verifies(
    mini: Path, tmp_path: Path, mock: MockServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``bench run`` with ``--model`` and ``--system-prompt``, ``bench bundle``, ``bench
    verify``: what a submitter types, a stream whose server refuses ``stream_options``."""
    from click.testing import CliRunner

    from bench.cli.main import cli

    keys = signing_keys(tmp_path, (ENTRANT,))
    target = _target(mini, Case("openai", stream=True, plan="nostreamoptions"), mock.url)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    ran = runner.invoke(
        cli,
        ["run", "--tasks", str(mini / "tasks"), "--target", str(target), "--split", "public",
         "--task", "qa-0001", "--task", "tool-0001", "--runs-dir", "runs", "--progress", "none",
         "--model", "bench-mock-parallel", "--system-prompt", "Answer in one line.\nCite."],
    )  # fmt: skip
    assert ran.exit_code == 0, ran.output
    (run_id,) = [p.name for p in (tmp_path / "runs").iterdir() if p.name[:1].isdigit()]
    signers = tmp_path / "submissions" / "allowed_signers"
    bundled = runner.invoke(
        cli,
        ["bundle", run_id, "--entrant", ENTRANT, "--key", str(keys[ENTRANT]), "--runs-dir",
         "runs", "--out", "results", "--allowed-signers", str(signers)],
    )  # fmt: skip
    assert bundled.exit_code == 0, bundled.output
    (bundle,) = (tmp_path / "results" / ENTRANT).iterdir()
    verified = runner.invoke(
        cli,
        ["verify", str(bundle), "--results-root", "results", "--allowed-signers", str(signers),
         "--tasks", str(mini / "tasks"), "--format", "json"],
    )  # fmt: skip
    assert verified.exit_code == 0, verified.output
