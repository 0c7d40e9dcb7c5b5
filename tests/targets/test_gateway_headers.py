"""A gateway in front of the model, as Portkey's AI gateway (``@portkey-ai/gateway`` 1.15.2)
answers, served byte for byte on loopback (tests/real/test_real_gateway_portkey.py runs the
real one).

* Portkey routes by request headers: without ``x-portkey-provider`` (or ``x-portkey-config``)
  it answers every request, the probe's included, HTTP 400. A target's ``headers:`` are sent
  with every request and the run's probe; a header the harness sets itself, or a credential
  (a run records its target), is refused when the file is read.
* Translating an Anthropic answer to chat completions, Portkey says ``prompt_tokens`` =
  Anthropic's ``input_tokens``, the uncached part only, with the cache read beside it
  (``prompt_tokens_details.cached_tokens`` and ``cache_read_input_tokens``) and
  ``total_tokens`` the sum of all. Was: a prompt of 30 tokens, all of them "cached" (the cached
  count clamped to the prompt), for a prompt of 113.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

from bench.core.errors import InputError
from bench.core.trace import Message, ToolDef
from bench.targets import ModelRequest, TargetSpec, build_target, read_target_spec
from bench.targets.probe import server_identity

REQUEST = ModelRequest(
    model="bench-mock",
    messages=[Message(role="user", content="Where is order 42?")],
    tools=[
        ToolDef(
            name="get_order",
            parameters={"type": "object", "properties": {"order_id": {"type": "string"}}},
        )
    ],
)
ROUTE = {"x-portkey-provider": "anthropic", "x-portkey-custom-host": "http://127.0.0.1:9/v1"}
REFUSED = (
    b'{"status":"failure","message":"Either x-portkey-config or x-portkey-provider header is '
    b'required"}'
)
HEAD = (
    "connection: keep-alive\r\ndate: Mon, 07 Dec 2026 14:23:47 GMT\r\nserver: bench-mock/1\r\n"
    "x-portkey-cache-status: DISABLED\r\nx-portkey-last-used-option-index: config\r\n"
    "x-portkey-provider: anthropic\r\nx-portkey-retry-attempt-count: 0\r\nx-portkey-trace-id: \r\n"
)
# POST /v1/chat/completions through Portkey to an Anthropic upstream (the mock), as it answered
PLAIN = (
    b'{"id":"msg_mock_aa42972958a015a5","object":"chat.completion","created":1796653427,'
    b'"model":"bench-mock","provider":"anthropic","choices":[{"message":{"role":"assistant",'
    b'"content":"get_order: {\\"status\\": \\"shipped\\"}"},"index":0,"logprobs":null,'
    b'"finish_reason":"stop"}],"usage":{"prompt_tokens":30,"completion_tokens":11,'
    b'"total_tokens":124,"prompt_tokens_details":{"cached_tokens":83},'
    b'"cache_read_input_tokens":83,"cache_creation_input_tokens":0}}'
)
_CHUNK = (
    '{"id":"anthropic-1796653427188","object":"chat.completion.chunk","created":1796653427,'
    '"model":"bench-mock","provider":"anthropic","choices":[%s]%s}'
)
_DELTA = '{"delta":%s,"index":0,"logprobs":null,"finish_reason":null}'
STREAM = b"".join(
    b"data: " + line.encode() + b"\n\n"
    for line in (
        _CHUNK % (_DELTA % '{"content":"","role":"assistant"}', ""),
        _CHUNK % (_DELTA % "{}", ""),
        _CHUNK % (_DELTA % '{"content":"get_orde"}', ""),
        _CHUNK % (_DELTA % '{"content":"r: {\\"sta"}', ""),
        _CHUNK % (_DELTA % '{"content":"tus\\": \\"s"}', ""),
        _CHUNK % (_DELTA % '{"content":"hipped\\"}"}', ""),
        _CHUNK
        % (
            '{"index":0,"delta":{},"finish_reason":"stop"}',
            ',"usage":{"prompt_tokens":30,"cache_read_input_tokens":83,'
            '"cache_creation_input_tokens":0,"completion_tokens":11,"total_tokens":124,'
            '"prompt_tokens_details":{"cached_tokens":83}}',
        ),
        "[DONE]",
    )
)
MODELS = b'{"object": "list", "data": [{"id": "bench-mock", "object": "model", "owned_by": "bench-mock"}]}'  # noqa: E501


class Portkey:
    """Answers as Portkey does: HTTP 400 to a request without ``x-portkey-provider``, else the
    recorded answer (streamed when asked). Keeps every request's head as it came."""

    def __init__(self) -> None:
        self.heads: list[bytes] = []
        self.url = ""

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                self.heads.append(head)
                lines = head.lower().split(b"\r\n")
                sized = [x for x in lines if x.startswith(b"content-length:")]
                length = int(sized[0].split(b":")[1]) if sized else 0
                body = await reader.readexactly(length)
                writer.write(self.answer(head, lines, body))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    def answer(self, head: bytes, lines: list[bytes], body: bytes) -> bytes:
        if b"x-portkey-provider: anthropic" not in lines:
            status, kind, payload = "400 Bad Request", "application/json", REFUSED
        elif head.startswith(b"GET /v1/models "):
            status, kind, payload = "200 OK", "application/json", MODELS
        elif head.startswith(b"POST /v1/chat/completions ") and b'"stream": true' in body:
            status, kind, payload = "200 OK", "text/event-stream", STREAM
        elif head.startswith(b"POST /v1/chat/completions "):
            status, kind, payload = "200 OK", "application/json", PLAIN
        else:
            status, kind, payload = "404 Not Found", "application/json", b"{}"
        return (
            f"HTTP/1.1 {status}\r\ncontent-type: {kind}\r\n{HEAD}content-length: {len(payload)}"
            "\r\n\r\n"
        ).encode() + payload


@asynccontextmanager
async def serving() -> AsyncIterator[Portkey]:
    gateway = Portkey()
    listener = await asyncio.start_server(gateway.handle, "127.0.0.1", 0)
    gateway.url = f"http://127.0.0.1:{listener.sockets[0].getsockname()[1]}"
    try:
        yield gateway
    finally:
        listener.close()
        await listener.wait_closed()


def _spec(url: str, stream: bool, **more: Any) -> TargetSpec:
    return TargetSpec.model_validate(
        {"kind": "openai", "entrant": "gw", "display_name": "gw", "model": "bench-mock",
         "base_url": url + "/v1", "stream": stream, "retry": {"max_attempts": 1}, **more}
    )  # fmt: skip


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_the_target_s_headers_go_with_every_request_and_the_probe(stream: bool) -> None:
    async def go() -> tuple[Any, Any, list[bytes]]:
        async with serving() as gateway:
            spec = _spec(gateway.url, stream, headers=ROUTE)
            identity = await server_identity(spec, timeout_s=5, wait_s=0)
            target = build_target(spec, Path("."), Path("gw.yaml"), env={})
            try:
                answer = await target.complete(REQUEST)
            finally:
                await target.aclose()
            return identity, answer, gateway.heads

    identity, answer, heads = asyncio.run(go())
    assert answer.content == 'get_order: {"status": "shipped"}'
    assert identity is not None and identity.engine == "bench-mock"  # the probe got through
    assert heads and all(
        b"\r\nx-portkey-provider: anthropic\r\n" in head
        and b"\r\nx-portkey-custom-host: http://127.0.0.1:9/v1\r\n" in head
        for head in heads
    ), heads


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_a_translated_anthropic_usage_counts_the_whole_prompt(stream: bool) -> None:
    async def go() -> Any:
        async with serving() as gateway:
            target = build_target(_spec(gateway.url, stream, headers=ROUTE), Path("."),
                                  Path("gw.yaml"), env={})  # fmt: skip
            try:
                return await target.complete(REQUEST)
            finally:
                await target.aclose()

    usage = asyncio.run(go()).usage
    assert (usage.prompt_tokens, usage.cached_tokens, usage.completion_tokens) == (113, 83, 11)


def test_a_usage_whose_prompt_holds_the_cache_is_read_as_it_is() -> None:
    """An answer whose prompt already holds the cache read (``total_tokens`` the prompt plus
    the completion) is read as it is; one whose cache writes are outside the prompt counts
    them in."""
    from bench.targets.openai import parse_usage

    said = {"prompt_tokens": 113, "completion_tokens": 11, "total_tokens": 124,
            "prompt_tokens_details": {"cached_tokens": 83}, "cache_read_input_tokens": 83,
            "cache_creation_input_tokens": 0}  # fmt: skip
    usage = parse_usage(said)
    assert usage is not None
    assert (usage.prompt_tokens, usage.cached_tokens) == (113, 83)
    written = {**said, "prompt_tokens": 10, "cache_read_input_tokens": 0,
               "cache_creation_input_tokens": 103,
               "prompt_tokens_details": {"cached_tokens": 0}}  # fmt: skip
    usage = parse_usage(written)
    assert usage is not None
    assert (usage.prompt_tokens, usage.cached_tokens) == (113, 0)


def _file(tmp_path: Path, kind: str, headers: dict[str, str] | None) -> Path:
    path = tmp_path / "gw.yaml"
    data: dict[str, Any] = {"kind": kind, "entrant": "gw", "display_name": "gw", "model": "m",
                            "headers": headers}  # fmt: skip
    data.update({"callable": "m:f"} if kind == "scripted" else {"base_url": "http://h:1/v1"})
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("kind", "headers", "code", "field"),
    [
        ("openai", {"Authorization": "Bearer x"}, "TARGET_INVALID", "headers"),
        ("anthropic", {"anthropic-version": "2023-06-01"}, "TARGET_INVALID", "headers"),
        ("openai", {"content-length": "0"}, "TARGET_INVALID", "headers"),
        ("openai", {"x-a b": "1"}, "TARGET_INVALID", "headers"),
        ("openai", {"x-a": "1\r\nx-b: 2"}, "TARGET_INVALID", "headers"),
        ("openai", {"x-a": "1", "X-A": "2"}, "TARGET_INVALID", "headers"),
        ("scripted", {"x-portkey-provider": "openai"}, "TARGET_INVALID", "headers"),
        ("openai", {"x-portkey-api-key": "pk-123"}, "TARGET_SECRET", "headers.x-portkey-api-key"),
        ("openai", {"x-trace": "sk-" + "A1b2" * 10}, "TARGET_SECRET", "headers.x-trace"),
    ],
)
def test_headers_the_harness_sets_or_that_carry_a_secret_are_refused(
    tmp_path: Path, kind: str, headers: dict[str, str], code: str, field: str
) -> None:
    with pytest.raises(InputError) as caught:
        path = _file(tmp_path, kind, headers)
        build_target(read_target_spec(path), tmp_path, path, env={})
    assert (caught.value.code, caught.value.field) == (code, field), caught.value


def test_a_target_without_headers_records_none(tmp_path: Path) -> None:
    """A run's recorded target is what it was before the field existed; one with headers
    records them (no credential can be among them)."""
    spec = read_target_spec(_file(tmp_path, "openai", None))
    assert "headers" not in spec.recorded()
    spec = read_target_spec(_file(tmp_path, "openai", ROUTE))
    assert spec.recorded()["headers"] == ROUTE
