"""The small HTTP/1.1 client against real loopback servers: the mock server, and tiny asyncio
servers written here to send exactly the bytes a case needs."""

from __future__ import annotations

import asyncio
import json
import socket
import struct
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from bench.core.errors import EntrantError
from bench.core.trace import Message, ToolDef
from bench.targets import ModelRequest, TargetSpec, build_target, wire
from bench.targets import http as http_module
from bench.targets.http import STREAM_TAIL_S, HttpEndpoint, uses_wire
from bench.testing import mock_server
from bench.testing.mock_server import MockServer

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class Server:
    """A loopback server running ``handler`` on each connection; counts connections."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.connections = 0
        self.requests = 0
        self.url = ""

    async def _run(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            await self.handler(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()


@asynccontextmanager
async def serving(handler: Handler) -> AsyncIterator[Server]:
    server = Server(handler)
    listener = await asyncio.start_server(server._run, "127.0.0.1", 0)
    server.url = f"http://127.0.0.1:{listener.sockets[0].getsockname()[1]}"
    try:
        yield server
    finally:
        listener.close()
        await listener.wait_closed()


async def read_request(reader: asyncio.StreamReader) -> bytes:
    """One request's head and body (by Content-Length)."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    return head + await reader.readexactly(length)


async def each_request(reader: asyncio.StreamReader) -> AsyncIterator[bytes]:
    """Requests on one connection (by Content-Length) until the client closes it."""
    while True:
        try:
            yield await read_request(reader)
        except asyncio.IncompleteReadError:
            return


def answer(body: bytes, *extra: str) -> bytes:
    head = ["HTTP/1.1 200 OK", f"Content-Length: {len(body)}", *extra]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


async def fetch(pool: wire.Pool, url: str, body: bytes = b"{}") -> tuple[int, bytes]:
    async with pool.stream("POST", url + "/x", body, {"content-type": "application/json"}) as r:
        return r.status_code, b"".join([chunk async for chunk in r.aiter_bytes()])


def run(coro: Awaitable[Any]) -> Any:
    async def go() -> Any:
        return await coro

    return asyncio.run(go())


def keep_alive_server(server_box: list[Server]) -> Handler:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        async for _ in each_request(reader):
            server_box[0].requests += 1
            writer.write(answer(b"ok %d" % server_box[0].requests))
            await writer.drain()

    return handler


def test_a_fully_read_response_leaves_its_connection_for_the_next_request() -> None:
    box: list[Server] = []

    async def go() -> list[tuple[int, bytes]]:
        async with serving(keep_alive_server(box)) as server:
            box.append(server)
            pool = wire.Pool()
            try:
                results = [await fetch(pool, server.url) for _ in range(3)]
            finally:
                await pool.aclose()
            assert server.connections == 1
            return results

    assert run(go()) == [(200, b"ok 1"), (200, b"ok 2"), (200, b"ok 3")]


def test_a_response_left_unread_is_not_reused() -> None:
    box: list[Server] = []

    async def go() -> int:
        async with serving(keep_alive_server(box)) as server:
            box.append(server)
            pool = wire.Pool()
            try:
                for _ in range(2):
                    async with pool.stream("GET", server.url + "/", b"") as response:
                        assert response.status_code == 200
            finally:
                await pool.aclose()
            return server.connections

    assert run(go()) == 2


@pytest.mark.parametrize(
    "closing",
    ["Connection: close", "Connection: Keep-Alive, close"],
)
def test_connection_close_is_honoured(closing: str) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(answer(b"bye", closing))
        await writer.drain()

    async def go() -> tuple[list[tuple[int, bytes]], int]:
        async with serving(handler) as server:
            pool = wire.Pool()
            try:
                results = [await fetch(pool, server.url) for _ in range(2)]
            finally:
                await pool.aclose()
            return results, server.connections

    assert run(go()) == ([(200, b"bye"), (200, b"bye")], 2)


def test_a_body_framed_by_the_end_of_the_connection() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nfirst ")
        await writer.drain()
        await asyncio.sleep(0.02)
        writer.write(b"second")
        await writer.drain()

    async def go() -> tuple[list[tuple[int, bytes]], int]:
        async with serving(handler) as server:
            pool = wire.Pool()
            try:
                results = [await fetch(pool, server.url) for _ in range(2)]
            finally:
                await pool.aclose()
            return results, server.connections

    assert run(go()) == ([(200, b"first second")] * 2, 2)


def test_a_chunked_body_split_anywhere_with_extensions_and_trailers() -> None:
    wire_bytes = (
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
        b"5;name=value\r\nhello\r\n1\r\n \r\n10\r\n0123456789abcdef\r\n0\r\nX-Trailer: 1\r\n\r\n"
    )
    box: list[Server] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            try:
                await read_request(reader)
            except asyncio.IncompleteReadError:
                return
            box[0].requests += 1
            step = 3 if box[0].requests == 1 else len(wire_bytes)
            for start in range(0, len(wire_bytes), step):
                writer.write(wire_bytes[start : start + step])
                await writer.drain()
                await asyncio.sleep(0)

    async def go() -> tuple[list[tuple[int, bytes]], int]:
        async with serving(handler) as server:
            box.append(server)
            pool = wire.Pool()
            try:
                results = [await fetch(pool, server.url) for _ in range(2)]
            finally:
                await pool.aclose()
            return results, server.connections

    body = b"hello 0123456789abcdef"
    assert run(go()) == ([(200, body), (200, body)], 1)


def test_headers_split_over_writes_are_read_case_insensitively() -> None:
    head = (
        b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 2\r\nX-Request-ID: abc\r\n"
        b"Set-Thing: a\r\nset-thing: b\r\nContent-Length: 2\r\n\r\nno"
    )

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        for index in range(len(head)):
            writer.write(head[index : index + 1])
            await writer.drain()

    async def go() -> tuple[int, str, bool, str, bytes]:
        async with serving(handler) as server:
            pool = wire.Pool()
            try:
                async with pool.stream("POST", server.url + "/v1", b"{}") as response:
                    body = b"".join([c async for c in response.aiter_bytes()])
                    headers = response.headers
                    return (
                        response.status_code,
                        headers.get("retry-after", ""),
                        "x-request-id" in headers,
                        headers["SET-THING"],
                        body,
                    )
            finally:
                await pool.aclose()

    assert run(go()) == (429, "2", True, "a, b", b"no")


@pytest.mark.parametrize(
    "sent",
    [
        b"HTTP/1.1 200 OK\nContent-Length: 5\nX-A: 1\n\nhello",
        b"HTTP/1.1 200 OK\r\nContent-Length: 5\n\r\nhello",
        b"HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n3\nhel\n2;x=y\r\nlo\n0\nX-T: 1\n\n",
    ],
    ids=["bare-lf", "mixed", "bare-lf-chunked"],
)
def test_lines_ending_in_a_bare_lf_are_read_as_crlf_ones(sent: bytes) -> None:
    """RFC 9112, 2.2: a recipient may take a bare LF for a line end (h11, so httpx, does).
    Before, such a head was never found and the call waited out its timeout. Sent one byte
    at a time, and twice on one connection (the framing ends where it should)."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        async for _ in each_request(reader):
            for index in range(len(sent)):
                writer.write(sent[index : index + 1])
                await writer.drain()

    async def go() -> tuple[list[tuple[int, bytes]], int]:
        async with serving(handler) as server:
            pool = wire.Pool()
            try:
                got = [await asyncio.wait_for(fetch(pool, server.url), 5) for _ in range(2)]
            finally:
                await pool.aclose()
            return got, server.connections

    assert run(go()) == ([(200, b"hello"), (200, b"hello")], 1)


@pytest.mark.parametrize(
    ("sent", "error"),
    [
        (b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten!!", wire.RemoteProtocolError),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel",
            wire.RemoteProtocolError,
        ),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", wire.RemoteProtocolError),
        (b"HTTP/1.1 200 OK\r\nContent-Le", wire.RemoteProtocolError),
        (b"SMTP ready\r\n\r\n", wire.RemoteProtocolError),
        (b"", wire.RemoteProtocolError),
    ],
    ids=["short-body", "short-chunk", "bad-chunk-size", "short-head", "not-http", "nothing"],
)
def test_a_broken_response_is_a_protocol_error(sent: bytes, error: type[Exception]) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(sent)
        await writer.drain()

    async def go() -> None:
        async with serving(handler) as server:
            pool = wire.Pool()
            try:
                await fetch(pool, server.url)
            finally:
                await pool.aclose()

    with pytest.raises(error):
        run(go())


def test_a_reset_mid_body_is_a_read_error() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhalf")
        await writer.drain()
        await asyncio.sleep(0.05)
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()

    async def go() -> None:
        async with serving(handler) as server:
            pool = wire.Pool()
            try:
                await fetch(pool, server.url)
            finally:
                await pool.aclose()

    with pytest.raises((wire.ReadError, wire.RemoteProtocolError)):
        run(go())


def test_a_head_over_the_bound_is_refused() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\n" + b"X-Big: " + b"a" * (wire.MAX_HEADER_BYTES + 10))
        await writer.drain()
        await asyncio.sleep(1)

    async def go() -> None:
        async with serving(handler) as server:
            pool = wire.Pool()
            try:
                await fetch(pool, server.url)
            finally:
                await pool.aclose()

    with pytest.raises(wire.RemoteProtocolError, match="over"):
        run(go())


def test_a_stale_pooled_connection_is_retried_once_on_a_fresh_one() -> None:
    """The server takes the second request on the kept connection, then closes it without a
    byte (the keep-alive race); the client sends it again on a new connection."""
    box: list[Server] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        served = 0
        while True:
            try:
                await read_request(reader)
            except asyncio.IncompleteReadError:
                return
            box[0].requests += 1
            if served == 1:
                return  # closed unanswered
            served += 1
            writer.write(answer(b"ok"))
            await writer.drain()

    async def go() -> tuple[list[tuple[int, bytes]], int, int]:
        async with serving(handler) as server:
            box.append(server)
            pool = wire.Pool()
            try:
                results = [await fetch(pool, server.url) for _ in range(2)]
            finally:
                await pool.aclose()
            return results, server.connections, server.requests

    assert run(go()) == ([(200, b"ok"), (200, b"ok")], 2, 3)


def test_a_fresh_connection_closed_unanswered_is_not_retried() -> None:
    box: list[Server] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        box[0].requests += 1

    async def go() -> None:
        async with serving(handler) as server:
            box.append(server)
            pool = wire.Pool()
            try:
                await fetch(pool, server.url)
            finally:
                await pool.aclose()

    with pytest.raises(wire.RemoteProtocolError, match="before the response"):
        run(go())
    assert box[0].requests == 1


def test_a_connection_the_server_closed_while_idle_is_not_used() -> None:
    box: list[Server] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        box[0].requests += 1
        writer.write(answer(b"ok"))  # keep-alive by default, then closed anyway
        await writer.drain()

    async def go() -> tuple[list[tuple[int, bytes]], int]:
        async with serving(handler) as server:
            box.append(server)
            pool = wire.Pool()
            try:
                first = await fetch(pool, server.url)
                await asyncio.sleep(0.05)
                second = await fetch(pool, server.url)
            finally:
                await pool.aclose()
            return [first, second], server.connections

    assert run(go()) == ([(200, b"ok"), (200, b"ok")], 2)


def test_lines_end_at_cr_lf_and_crlf_only_across_pieces() -> None:
    pieces = [b"data: a\r", b"\ndata: \xc3", b"\xa9\r\rlast\n", b"\n", b"tail"]

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        for piece in pieces:
            writer.write(b"%x\r\n%b\r\n" % (len(piece), piece))
            await writer.drain()
            await asyncio.sleep(0.01)
        writer.write(b"0\r\n\r\n")
        await writer.drain()

    async def go() -> list[str]:
        async with serving(handler) as server:
            pool = wire.Pool()
            try:
                async with pool.stream("POST", server.url, b"{}") as response:
                    return [line async for line in response.aiter_lines()]
            finally:
                await pool.aclose()

    assert run(go()) == ["data: a", "data: é", "", "last", "", "tail"]


def test_text_lines_do_not_end_at_unicode_line_separators() -> None:
    """A JSON string may hold U+2028, U+2029, U+0085 raw (llama.cpp's server writes them so);
    ``str.splitlines`` ends a line there, the server-sent-events rule does not."""
    text = 'data: {"c": "a\u2028b\u2029c\x85d"}\r\n\ndata: [DONE]\r'

    async def pieces(size: int) -> AsyncIterator[bytes]:
        data = text.encode()
        for start in range(0, len(data), size):
            yield data[start : start + size]

    async def lines(size: int) -> list[str]:
        return [line async for line in wire.text_lines(pieces(size))]

    expected = ['data: {"c": "a\u2028b\u2029c\x85d"}', "", "data: [DONE]"]
    for size in (1, 2, 3, 7, len(text) * 4):
        assert run(lines(size)) == expected
    assert len(text.splitlines()) > len(expected)  # what a splitlines reader would have made


def test_silence_is_a_read_timeout() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        await asyncio.sleep(2)

    async def go() -> None:
        async with serving(handler) as server:
            pool = wire.Pool(read_s=0.1)
            try:
                await fetch(pool, server.url)
            finally:
                await pool.aclose()

    with pytest.raises(wire.ReadTimeout):
        run(go())


def test_the_pool_limits_open_connections_per_host() -> None:
    open_now: list[int] = [0, 0]  # now, most

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        open_now[0] += 1
        open_now[1] = max(open_now[1], open_now[0])
        try:
            while True:
                try:
                    await read_request(reader)
                except asyncio.IncompleteReadError:
                    return
                await asyncio.sleep(0.02)
                writer.write(answer(b"ok"))
                await writer.drain()
        finally:
            open_now[0] -= 1

    async def go() -> tuple[int, int]:
        async with serving(handler) as server:
            pool = wire.Pool(max_connections=2)
            try:
                results = await asyncio.gather(*(fetch(pool, server.url) for _ in range(8)))
                assert results == [(200, b"ok")] * 8
                most = open_now[1]
                busy = wire.Pool(max_connections=1, connect_s=0.05)
                try:
                    async with busy.stream("GET", server.url, b"") as response:
                        assert response.status_code == 200
                        with pytest.raises(wire.PoolTimeout):
                            await fetch(busy, server.url)
                finally:
                    await busy.aclose()
            finally:
                await pool.aclose()
            return most, server.connections

    most, connections = run(go())
    assert most == 2
    assert connections == 3  # two from the first pool, one from the second


def test_nothing_listening_is_a_connect_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]

    async def go() -> None:
        pool = wire.Pool()
        await fetch(pool, f"http://127.0.0.1:{port}")

    with pytest.raises(wire.ConnectError):
        run(go())


def test_which_urls_go_over_wire() -> None:
    proxied = {"HTTP_PROXY": "http://proxy:3128"}
    assert uses_wire("http://127.0.0.1:8000/v1", proxied)
    assert uses_wire("http://localhost:8000/v1", proxied)
    assert uses_wire("http://gpu-box:8000/v1", {})
    assert not uses_wire("http://gpu-box:8000/v1", proxied)
    assert not uses_wire("http://gpu-box:8000/v1", {"all_proxy": "socks5://p"})
    assert not uses_wire("https://api.example.com/v1", {})


# -- through the mock server and HttpEndpoint --------------------------------------------------

REQUEST = ModelRequest(
    model="bench-mock",
    messages=[Message(role="user", content="How long do refunds take?")],
    tools=[ToolDef(name="search_docs", parameters={"type": "object", "properties": {}})],
)


def spec(base_url: str, **fields: Any) -> TargetSpec:
    return TargetSpec.model_validate(
        {
            "kind": "openai",
            "entrant": "wire",
            "display_name": "wire",
            "model": "bench-mock",
            "base_url": base_url,
            "retry": {"max_attempts": 3, "base_s": 0.01, "cap_s": 0.02, "seed": 1},
            "timeouts": {"connect_s": 2, "read_s": 5, "request_s": 5, "deadline_s": 10},
            **fields,
        }
    )


@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
def test_the_mock_server_keeps_connections_alive(streamed: bool) -> None:
    async def go(url: str) -> tuple[list[str], int]:
        target = build_target(spec(url, stream=streamed), Path("."), Path("w.yaml"), env={})
        try:
            names = []
            for _ in range(4):
                response = await target.complete(REQUEST)
                names += [call.name for call in response.tool_calls]
            endpoint = target.http  # type: ignore[attr-defined]
            assert isinstance(endpoint, HttpEndpoint) and endpoint.transport == "wire"
            pool = endpoint._client
            assert isinstance(pool, wire.Pool)
            return names, pool.connections_opened
        finally:
            await target.aclose()

    with MockServer(max_seconds=60) as server:
        names, opened = asyncio.run(go(server.url + "/v1"))
        assert len(server.model_requests()) == 4
    assert names == ["search_docs"] * 4
    # A stream's body is read to its closing chunk after the last event: reused as well.
    assert opened == 1


def test_a_stream_left_open_after_its_last_event_ends_the_call_and_is_not_reused() -> None:
    events = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "hel"}}]},
        {"choices": [{"index": 0, "delta": {"content": "lo"}, "finish_reason": "stop"}]},
    ]
    body = b"".join(b"data: %s\n\n" % json.dumps(e).encode() for e in events)
    body += b"data: [DONE]\n\n"

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            await read_request(reader)
            head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            writer.write((head + "Transfer-Encoding: chunked\r\n\r\n").encode())
            writer.write(b"%x\r\n%b\r\n" % (len(body), body))  # and never the closing chunk
            await writer.drain()

    # Waiting for the closing chunk until the read timeout would fail the call with it: the
    # tail after the last event is capped far below this read timeout, so the calls succeed.
    timeouts = {"connect_s": 2, "read_s": 20 * STREAM_TAIL_S, "request_s": 5, "deadline_s": 10}
    assert not issubclass(wire.ReadTimeout, TimeoutError)

    async def go() -> tuple[list[str], int]:
        async with serving(handler) as server:
            made = spec(server.url + "/v1", stream=True, timeouts=timeouts)
            target = build_target(made, Path("."), Path("w.yaml"), env={})
            try:
                said = [(await target.complete(REQUEST)).content for _ in range(2)]
            finally:
                await target.aclose()
            return said, server.connections

    said, connections = run(go())
    assert said == ["hello", "hello"]
    assert connections == 2  # the unfinished body's connection was closed, not reused


@pytest.mark.parametrize("transport", ["wire", "httpx"])
def test_a_streamed_answer_with_a_raw_line_separator_arrives_whole(
    transport: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    said_text = "one\u2028two\u2029three"  # U+0085 splits too, but no record may hold it
    events = [
        {"choices": [{"index": 0, "delta": {"role": "assistant", "content": said_text[:5]}}]},
        {"choices": [{"index": 0, "delta": {"content": said_text[5:]}, "finish_reason": "stop"}]},
    ]
    body = b"".join(b"data: %s\n\n" % json.dumps(e, ensure_ascii=False).encode() for e in events)
    body += b"data: [DONE]\n\n"
    assert "\u2028".encode() in body

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
        writer.write((head + f"Content-Length: {len(body)}\r\n\r\n").encode() + body)
        await writer.drain()

    if transport == "httpx":
        monkeypatch.setattr(http_module, "uses_wire", lambda url, environ=None: False)

    async def go() -> tuple[str, str]:
        async with serving(handler) as server:
            made = spec(server.url + "/v1", stream=True)
            target = build_target(made, Path("."), Path("w.yaml"), env={})
            try:
                said = (await target.complete(REQUEST)).content
                used = target.http.transport  # type: ignore[attr-defined]
            finally:
                await target.aclose()
            return said, used

    said, used = run(go())
    assert used == transport
    assert said == said_text


def test_a_truncated_body_maps_to_the_code_httpx_gave_it() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b'HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n{"id": ')
        await writer.drain()

    async def go(url: str) -> EntrantError:
        target = build_target(spec(url), Path("."), Path("w.yaml"), env={})
        try:
            with pytest.raises(EntrantError) as info:
                await target.complete(REQUEST)
            return info.value
        finally:
            await target.aclose()

    async def main() -> tuple[EntrantError, int]:
        async with serving(handler) as server:
            error = await go(server.url + "/v1")
            return error, server.connections

    error, connections = asyncio.run(main())
    assert error.code == "ENDPOINT_DISCONNECTED"
    assert "RemoteProtocolError" in error.message
    assert connections == 3


def test_the_mock_server_keeps_only_the_last_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mock_server, "MAX_RECORDED", 3)
    with MockServer(max_seconds=60) as server:

        async def go() -> None:
            pool = wire.Pool()
            try:
                for index in range(5):
                    async with pool.stream("GET", f"{server.url}/health?n={index}", b"") as r:
                        assert b"ok" in b"".join([c async for c in r.aiter_bytes()])
            finally:
                await pool.aclose()
            assert pool.connections_opened == 1

        asyncio.run(go())
        assert [r.path for r in server.requests()] == ["/health"] * 3
        assert len(server.requests()) == 3


def test_the_mock_server_closes_when_asked() -> None:
    with MockServer(max_seconds=60) as server:

        async def go() -> tuple[str, int]:
            pool = wire.Pool()
            try:
                for _ in range(2):
                    async with pool.stream(
                        "GET", server.url + "/health", b"", {"Connection": "close"}
                    ) as response:
                        said = response.headers["connection"]
                        _ = [c async for c in response.aiter_bytes()]
            finally:
                await pool.aclose()
            return said, pool.connections_opened

        assert asyncio.run(go()) == ("close", 2)


def pieces_server(body: bytes, pieces: int) -> Handler:
    """Answers every request with ``body``, its head and the body in ``pieces`` writes."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        async for _ in each_request(reader):
            data = answer(body)
            if pieces == 1:
                writer.write(data)
            else:
                cut = len(data) - len(body)
                size = max(1, len(body) // (pieces - 1))
                writer.write(data[:cut])
                await writer.drain()
                for start in range(0, len(body), size):
                    await asyncio.sleep(0.005)
                    writer.write(body[start : start + size])
                    await writer.drain()
            await writer.drain()

    return handler


@pytest.mark.parametrize("pieces", [1, 4])
def test_read_takes_a_whole_body_with_its_head_or_in_pieces_and_reuses_the_connection(
    pieces: int,
) -> None:
    body = json.dumps({"n": list(range(300))}).encode()

    async def go() -> tuple[list[bytes], int]:
        async with serving(pieces_server(body, pieces)) as server:
            pool = wire.Pool()
            got = []
            try:
                for _ in range(3):
                    response = await pool.send("POST", server.url + "/x", b"{}", {"a": "b"})
                    try:
                        got.append(await response.read(1 << 20))
                        assert response.complete and response.reusable
                    finally:
                        response.release()
                        response.release()  # a second release does nothing
            finally:
                await pool.aclose()
            return got, server.connections

    got, connections = run(go())
    assert got == [body] * 3
    assert connections == 1


@pytest.mark.parametrize("pieces", [1, 4])
def test_read_over_its_cap_refuses_or_truncates_and_does_not_reuse_a_partial_body(
    pieces: int,
) -> None:
    body = b"x" * 4000

    async def go() -> tuple[bytes, int]:
        async with serving(pieces_server(body, pieces)) as server:
            pool = wire.Pool()
            try:
                response = await pool.send("GET", server.url + "/", b"")
                try:
                    with pytest.raises(wire.BodyTooLarge, match="over 1000 bytes"):
                        await response.read(1000)
                finally:
                    response.release()
                response = await pool.send("GET", server.url + "/", b"")
                try:
                    cut = await response.read(1000, truncate=True)
                finally:
                    response.release()
                response = await pool.send("GET", server.url + "/", b"")
                try:
                    assert await response.read(4000) == body
                finally:
                    response.release()
            finally:
                await pool.aclose()
            return cut, server.connections

    cut, connections = run(go())
    assert cut == body[:1000]
    # The refused body's connection is closed; a truncated one is kept only when the whole
    # body had already arrived (one piece), so the next request finds the stream at its start.
    assert connections == (2 if pieces == 1 else 3)


def test_a_failed_send_frees_its_slot() -> None:
    async def go() -> None:
        pool = wire.Pool(max_connections=1, connect_s=0.5)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        for _ in range(3):  # with the slot leaked, the second would wait for a PoolTimeout
            with pytest.raises(wire.ConnectError):
                await pool.send("GET", f"http://127.0.0.1:{port}/", b"")
        await pool.aclose()

    run(go())


def test_request_heads_are_made_once_per_url_and_headers() -> None:
    box: list[Server] = []

    async def go() -> list[bytes]:
        seen: list[bytes] = []

        async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            async for request in each_request(reader):
                seen.append(request)
                writer.write(answer(b"ok"))
                await writer.drain()

        async with serving(handler) as server:
            box.append(server)
            pool = wire.Pool()
            try:
                for headers in ({"a": "1"}, {"a": "1"}, {"a": "2"}):
                    response = await pool.send("POST", server.url + "/p?q=1", b"[1]", headers)
                    try:
                        assert await response.read(100) == b"ok"
                    finally:
                        response.release()
                assert len(pool._heads) == 2
            finally:
                await pool.aclose()
        return seen

    seen = run(go())
    host = box[0].url.removeprefix("http://")
    assert seen[0] == seen[1]
    assert seen[0] == (
        f"POST /p?q=1 HTTP/1.1\r\nHost: {host}\r\na: 1\r\nContent-Length: 3\r\n\r\n[1]".encode()
    )
    assert seen[2].replace(b"a: 2", b"a: 1") == seen[0]


@pytest.mark.skipif(not hasattr(socket, "TCP_QUICKACK"), reason="TCP_QUICKACK is Linux-only")
@pytest.mark.parametrize("split", [False, True])
def test_a_kept_alive_connection_acknowledges_at_once_after_each_request(split: bool) -> None:
    """Against a server that writes head and body apart with Nagle on, a delayed ACK of the
    head holds the body back ~40 ms per request (docs/PERFORMANCE.md, issue 19). After every
    request the client's socket is out of delayed-ACK mode (the kernel's TCP_QUICKACK reads 1;
    without the fix it reads 0 from the second request on), and Nagle is off on its side."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 0)
        async for _ in each_request(reader):
            data = answer(b'{"ok": true}')
            if split:
                writer.write(data[:-12])
                await writer.drain()
                writer.write(data[-12:])
            else:
                writer.write(data)
            await writer.drain()

    async def go() -> tuple[list[tuple[int, int]], list[bytes], int]:
        states, bodies = [], []
        async with serving(handler) as server:
            pool = wire.Pool()
            try:
                for _ in range(6):
                    response = await pool.send("POST", server.url + "/x", b"{}")
                    try:
                        sock = response._connection.writer.get_extra_info("socket")
                        states.append(
                            (
                                sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK),
                                sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY),
                            )
                        )
                        bodies.append(await response.read(100))
                    finally:
                        response.release()
            finally:
                await pool.aclose()
            return states, bodies, server.connections

    states, bodies, connections = run(go())
    assert bodies == [b'{"ok": true}'] * 6
    assert connections == 1
    assert all(quick == 1 and nodelay != 0 for quick, nodelay in states), states
