"""Streams as real engines write them, served byte for byte by a loopback server: parallel tool
calls that all say index 0 (Ollama, LiteLLM, lmdeploy), an ``error:`` field instead of data
(older llama.cpp), an Anthropic ``event: error`` whose data names another type (llama.cpp's
/v1/messages), a bare ``{"object": "error"}`` (vLLM), and the request's own headers."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from bench.core.trace import Message, ToolDef
from bench.targets import ModelRequest, ModelResponse, TargetSpec, build_target

REQUEST = ModelRequest(
    model="engine",
    messages=[Message(role="user", content="Weather in Paris and Rome?")],
    tools=[
        ToolDef(
            name="get_weather",
            parameters={"type": "object", "properties": {"city": {"type": "string"}}},
        )
    ],
)
FINAL = {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}


def _call(
    index: int, *, id: str | None = None, name: str | None = None, args: Any = None
) -> dict[str, Any]:
    part: dict[str, Any] = {"index": index, "function": {}}
    if id is not None:
        part["id"] = id
        part["type"] = "function"
    if name is not None:
        part["function"]["name"] = name
    if args is not None:
        part["function"]["arguments"] = args
    return {"choices": [{"index": 0, "delta": {"tool_calls": [part]}}]}


def _sse(*events: Any, done: bool = True) -> bytes:
    body = b"".join(b"data: %s\n\n" % json.dumps(e).encode() for e in events)
    return body + (b"data: [DONE]\n\n" if done else b"")


class Engine:
    """Answers each request with the next body of ``bodies`` (the last one repeats) as an
    event stream, and keeps every request head it read."""

    def __init__(self, bodies: list[bytes], content_type: bytes = b"text/event-stream") -> None:
        self.bodies = bodies
        self.content_type = content_type
        self.heads: list[bytes] = []
        self.url = ""

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                await reader.readexactly(length)
                body = self.bodies[min(len(self.heads), len(self.bodies) - 1)]
                self.heads.append(head)
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: %b\r\n"
                    b"Content-Length: %d\r\n\r\n%b" % (self.content_type, len(body), body)
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@asynccontextmanager
async def serving(engine: Engine) -> AsyncIterator[Engine]:
    listener = await asyncio.start_server(engine.handle, "127.0.0.1", 0)
    engine.url = f"http://127.0.0.1:{listener.sockets[0].getsockname()[1]}"
    try:
        yield engine
    finally:
        listener.close()
        await listener.wait_closed()


def complete(
    bodies: list[bytes], kind: str = "openai", content_type: bytes = b"text/event-stream"
) -> tuple[ModelResponse, Engine]:
    async def go() -> tuple[ModelResponse, Engine]:
        async with serving(Engine(bodies, content_type)) as engine:
            spec = TargetSpec.model_validate(
                {
                    "kind": kind,
                    "entrant": "engine",
                    "display_name": "engine",
                    "model": "engine",
                    "base_url": engine.url + ("/v1" if kind == "openai" else ""),
                    "stream": True,
                    "retry": {"max_attempts": 3, "base_s": 0.01, "cap_s": 0.02, "seed": 1},
                    "timeouts": {"connect_s": 2, "read_s": 5, "request_s": 5, "deadline_s": 10},
                }
            )
            target = build_target(spec, Path("."), Path("engine.yaml"), env={})
            try:
                return await target.complete(REQUEST), engine
            finally:
                await target.aclose()

    return asyncio.run(go())


def calls(response: ModelResponse) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, c.arguments) for c in response.tool_calls]


PARIS = ("get_weather", {"city": "Paris"})
ROME = ("get_weather", {"city": "Rome"})


@pytest.mark.parametrize(
    "events",
    [
        # Ollama: each call whole in one chunk, all at index 0, each with its own id
        [
            _call(0, id="call_a", name="get_weather", args='{"city":"Paris"}'),
            _call(0, id="call_b", name="get_weather", args='{"city":"Rome"}'),
        ],
        # LiteLLM / lmdeploy: id and name first, arguments after, all at index 0
        [
            _call(0, id="call_a", name="get_weather", args=""),
            _call(0, args='{"city":'),
            _call(0, args='"Paris"}'),
            _call(0, id="call_b", name="get_weather", args=""),
            _call(0, args='{"city":"Rome"}'),
        ],
        # no ids at all, each call whole, both at index 0
        [
            _call(0, name="get_weather", args='{"city":"Paris"}'),
            _call(0, name="get_weather", args='{"city":"Rome"}'),
        ],
        # vLLM / OpenAI: distinct indices, interleaved (unchanged)
        [
            _call(0, id="call_a", name="get_weather", args=""),
            _call(1, id="call_b", name="get_weather", args=""),
            _call(0, args='{"city":"Paris"}'),
            _call(1, args='{"city":"Rome"}'),
        ],
    ],
    ids=["ollama", "litellm", "no-ids", "indexed"],
)
def test_parallel_calls_stay_apart_whatever_index_they_claim(events: list[dict[str, Any]]) -> None:
    response, _ = complete([_sse(*events, FINAL)])
    assert calls(response) == [PARIS, ROME]


@pytest.mark.parametrize(
    "events",
    [
        # the id (and name) repeated in every chunk of one call
        [
            _call(0, id="call_a", name="get_weather", args='{"city":'),
            _call(0, id="call_a", name="get_weather", args='"Paris"}'),
        ],
        # the name repeated, no id: the arguments are not whole until the last chunk
        [
            _call(0, name="get_weather", args='{"city":'),
            _call(0, name="get_weather", args='"Paris"}'),
            _call(0, name="get_weather", args=""),
        ],
    ],
    ids=["repeated-id", "repeated-name"],
)
def test_one_call_in_pieces_stays_one_call(events: list[dict[str, Any]]) -> None:
    response, _ = complete([_sse(*events, FINAL)])
    assert calls(response) == [PARIS]


def _codes(response: ModelResponse) -> list[str]:
    assert response.raw is not None
    return [attempt["code"] for attempt in response.raw["attempts"]]


GOOD = _sse(_call(0, id="call_a", name="get_weather", args='{"city":"Paris"}'), FINAL)


@pytest.mark.parametrize(
    "broken",
    [
        # older llama.cpp: an ``error:`` field, and the stream ends
        b'data: {"choices":[{"index":0,"delta":{"content":"Le"}}]}\n\n'
        b'error: {"code":500,"message":"the model crashed","type":"server_error"}\n\n',
        # vLLM: a bare error object as an event
        _sse(
            {"object": "error", "message": "the model crashed", "type": "BadRequestError"},
            done=False,
        ),
        # an ``event: error`` with the error as the data's own fields
        b'event: error\ndata: {"code":500,"message":"the model crashed"}\n\n',
    ],
    ids=["error-field", "object-error", "error-event"],
)
def test_an_engines_error_in_a_stream_is_a_stream_error_with_its_message(broken: bytes) -> None:
    response, engine = complete([broken, GOOD])
    assert _codes(response) == ["ENDPOINT_STREAM_ERROR"]
    assert response.raw is not None
    assert "the model crashed" in response.raw["attempts"][0]["error"]
    assert calls(response) == [PARIS] and len(engine.heads) == 2


def test_an_anthropic_error_event_of_another_type_is_a_stream_error() -> None:
    broken = (
        b'event: error\ndata: {"type":"server_error","code":500,"message":"the model crashed"}\n\n'
    )
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}},
        {"type": "message_stop"},
    ]
    good = b"".join(
        b"event: %s\ndata: %s\n\n" % (str(e["type"]).encode(), json.dumps(e).encode())
        for e in events
    )
    response, _ = complete([broken, good], kind="anthropic")
    assert _codes(response) == ["ENDPOINT_STREAM_ERROR"]
    assert response.raw is not None
    assert "the model crashed" in response.raw["attempts"][0]["error"]
    assert response.content == "Hi"


def test_a_request_asks_for_no_content_coding() -> None:
    _, engine = complete([GOOD])
    head = engine.heads[0].lower()
    assert b"\r\naccept-encoding: identity\r\n" in head


def test_an_event_stream_is_known_by_its_media_type_in_any_case() -> None:
    """Media types are case-insensitive (RFC 9110, 8.3.1)."""
    response, _ = complete([GOOD], content_type=b"Text/Event-Stream; charset=UTF-8")
    assert calls(response) == [PARIS]
