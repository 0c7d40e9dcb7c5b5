"""A small HTTP/1.1 client over asyncio streams: what ``HttpEndpoint`` needs, nothing more.

Why it exists: against a server that answers at once, httpx/httpcore cost about 4 ms of client
CPU per chat request (docs/PERFORMANCE.md), six to eight times a hand-written socket exchange,
and the benchmark compares harnesses by that cost. ``HttpEndpoint`` uses this module for plain
``http://`` URLs that no proxy applies to (loopback always; other hosts only when no proxy
variable is set) and keeps httpx for ``https://`` and proxies (docs/DECISIONS.md).

What it does: a keep-alive pool per (host, port) with a limit on open connections; a request
with a ``Content-Length`` body; responses framed by ``Content-Length``, ``Transfer-Encoding:
chunked`` or the end of the connection; ``Connection: close`` (and HTTP/1.0) honoured; the
body streamed as bytes or as lines (ended by CR, LF or CRLF only, as server-sent events are:
``str.splitlines``, which httpx follows, also breaks a line at U+2028, U+0085 and others a
JSON string may hold raw, which cut a streamed answer in two). A connection goes back
to the pool only when its response was read to the end. A pooled connection that fails before
the first byte of a response (the server closed it while it sat idle: the keep-alive race) is
retried once on a fresh connection; nothing else is retried here. Headers are bounded
(``MAX_HEADER_BYTES``). Head and chunk lines end at CRLF or at a bare LF. No TLS, proxies,
redirects or cookies. It asks for ``identity``; a body compressed anyway with gzip or deflate
is decoded (as httpx does), any other coding is passed through as it came.

Small writes: every socket has ``TCP_NODELAY`` (a request goes out at once), and on Linux
``TCP_QUICKACK`` is set again after each request is sent. A server that writes the head and
the body of a response in two ``send()`` calls with Nagle's algorithm on (cpp-httplib, so
llama.cpp's server) holds the body until the head is acknowledged; a kept-alive connection
that just sent a request is in the kernel's "interactive" mode, which delays that
acknowledgement by about 40 ms. That was one stall per request: 22 requests/s at concurrency 1
(benchmarks/bench_process.py, docs/PERFORMANCE.md).

Errors, all ``WireError``::

    WireError
    ├── ConnectError         refused, unknown host, any failure to open the connection
    │   └── ConnectTimeout   not open within ``connect_s``
    ├── WireTimeout
    │   ├── ReadTimeout      no byte within ``read_s`` (between two reads, as httpx)
    │   ├── WriteTimeout     the request not written within ``read_s``
    │   └── PoolTimeout      no free connection within ``connect_s``
    ├── ReadError            reset or closed while sending the request or reading the response
    ├── RemoteProtocolError  malformed or oversized head, bad chunk framing, a body cut short
    └── DecodingError        a gzip or deflate body that does not decompress
"""

from __future__ import annotations

import asyncio
import codecs
import re
import socket
import zlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator, Mapping
from contextlib import aclosing, asynccontextmanager, suppress
from urllib.parse import urlsplit

MAX_HEADER_BYTES = 64 * 1024
MAX_CHUNK_LINE_BYTES = 4 * 1024
# The blank line after a head: lines end at CRLF or at a bare LF (RFC 9112, 2.2, which h11
# and so httpx accept too); a server that sends bare LFs must not wait out the timeout.
_HEAD_END = re.compile(rb"\r?\n\r?\n")
READ_SIZE = 64 * 1024
MAX_HEADS = 64  # request heads kept per pool, by (method, URL, headers)
_QUICKACK: int | None = getattr(socket, "TCP_QUICKACK", None)  # Linux only

_Head = tuple[str, int, bytes, bool]  # host, port, head bytes, asks to close


class WireError(Exception):
    """Any failure of one exchange."""


class ConnectError(WireError): ...


class ConnectTimeout(ConnectError): ...


class WireTimeout(WireError): ...


class ReadTimeout(WireTimeout): ...


class WriteTimeout(WireTimeout): ...


class PoolTimeout(WireTimeout): ...


class ReadError(WireError): ...


class RemoteProtocolError(WireError): ...


class DecodingError(WireError):
    """A gzip or deflate body that does not decompress."""


class _Stale(Exception):
    """A reused connection failed before any response byte."""


class BodyTooLarge(Exception):
    """``Response.read``: the body is over its cap (not a transport failure)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        super().__init__(f"the body is over {cap} bytes")


DECODED_CODINGS = ("gzip", "x-gzip", "deflate")
"""Content codings a body is decoded from, as httpx does without extra packages. The request
asks for ``identity``; a server (or a proxy in front of it) may compress anyway."""
_INFLATE_LIMIT = 256 * 1024  # at most this much decompressed output per step


class _Inflater:
    """Incremental gzip / zlib-wrapped deflate; ``deflate`` falls back to raw deflate (some
    servers send that, as httpx allows)."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        self._zlib = zlib.decompressobj(zlib.MAX_WBITS | 32)  # gzip or zlib header
        self._started = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        try:
            try:
                piece = self._zlib.decompress(data, _INFLATE_LIMIT)
            except zlib.error:
                if self._started or self.coding != "deflate":
                    raise
                self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)  # raw deflate, no header
                piece = self._zlib.decompress(data, _INFLATE_LIMIT)
            self._started = True
            while piece:
                yield piece
                piece = self._zlib.decompress(self._zlib.unconsumed_tail, _INFLATE_LIMIT)
        except zlib.error as exc:
            raise DecodingError(f"the {self.coding} body does not decode: {exc}") from None

    def flush(self) -> bytes:
        """The last bytes; a body that ends before its compressed stream does is an error."""
        try:
            tail = self._zlib.flush()
        except zlib.error as exc:
            raise DecodingError(f"the {self.coding} body does not decode: {exc}") from None
        if self._started and not self._zlib.eof:
            raise DecodingError(f"the {self.coding} body does not decode: it ends early")
        return tail


def _content_coding(headers: Mapping[str, str]) -> str | None:
    coding = headers.get("content-encoding", "").strip().lower()
    return None if coding in ("", "identity") else coding


class Headers(Mapping[str, str]):
    """Response headers, names case-insensitive; repeated fields joined with ``", "``."""

    def __init__(self, items: list[tuple[str, str]]) -> None:
        merged: dict[str, str] = {}
        for name, value in items:
            key = name.lower()
            merged[key] = f"{merged[key]}, {value}" if key in merged else value
        self._map = merged

    def __getitem__(self, name: str) -> str:
        return self._map[name.lower()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._map

    def __iter__(self) -> Iterator[str]:
        return iter(self._map)

    def __len__(self) -> int:
        return len(self._map)


class _Connection:
    __slots__ = ("reader", "writer", "buffer", "read_s", "sock")

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, read_s: float | None
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.buffer = b""
        self.read_s = read_s
        self.sock: socket.socket | None = writer.get_extra_info("socket")
        if self.sock is not None:
            try:
                self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:  # not a TCP socket
                self.sock = None

    def usable(self) -> bool:
        return not self.buffer and not self.reader.at_eof() and not self.writer.is_closing()

    def close(self) -> None:
        self.writer.close()

    async def recv(self) -> bytes:
        """The next bytes from the socket (b"" at the end), the read timeout applied."""
        try:
            if self.read_s is None:
                return await self.reader.read(READ_SIZE)
            async with asyncio.timeout(self.read_s):
                return await self.reader.read(READ_SIZE)
        except TimeoutError:
            raise ReadTimeout(f"no data within {self.read_s:g}s") from None
        except OSError as exc:
            raise ReadError(str(exc) or type(exc).__name__) from exc

    async def send(self, data: bytes) -> None:
        try:
            self.writer.write(data)
            if self.writer.transport.get_write_buffer_size():
                async with asyncio.timeout(self.read_s):
                    await self.writer.drain()
        except TimeoutError:
            raise WriteTimeout(f"the request was not sent within {self.read_s:g}s") from None
        except OSError as exc:
            raise ReadError(str(exc) or type(exc).__name__) from exc
        if _QUICKACK is not None and self.sock is not None:
            # After the request, not before: sending is what puts the socket back into
            # delayed-ACK mode (see the module docstring).
            try:
                self.sock.setsockopt(socket.IPPROTO_TCP, _QUICKACK, 1)
            except OSError:
                self.sock = None

    async def read_head(self, reused: bool) -> tuple[bytes, bytes]:
        """The response head up to the blank line, and what came after it."""
        data = self.buffer
        self.buffer = b""
        start = 0
        while True:
            found = _HEAD_END.search(data, start)
            if found is not None:
                return data[: found.start()], data[found.end() :]
            if len(data) > MAX_HEADER_BYTES:
                raise RemoteProtocolError(f"the response head is over {MAX_HEADER_BYTES} bytes")
            start = max(0, len(data) - 3)
            try:
                more = await self.recv()
            except ReadError:
                if reused and not data:
                    raise _Stale() from None
                raise
            if not more:
                if reused and not data:
                    raise _Stale()
                what = "before" if not data else "in the middle of"
                raise RemoteProtocolError(f"the server closed the connection {what} the response")
            data += more


def _parse_head(head: bytes) -> tuple[str, int, str, list[tuple[str, str]]]:
    lines = [line.removesuffix("\r") for line in head.decode("latin-1").split("\n")]
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
        raise RemoteProtocolError(f"not an HTTP/1.x status line: {lines[0][:80]!r}")
    items: list[tuple[str, str]] = []
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            raise RemoteProtocolError(f"a malformed header line: {line[:80]!r}")
        items.append((name, value.strip()))
    return parts[0], int(parts[1]), parts[2] if len(parts) > 2 else "", items


class Response:
    """One response whose body is read as it is iterated (once)."""

    def __init__(
        self,
        connection: _Connection,
        version: str,
        status: int,
        reason: str,
        headers: Headers,
        rest: bytes,
        bodiless: bool,
    ) -> None:
        self.status_code = status
        self.reason_phrase = reason
        self.http_version = version
        self.headers = headers
        self._connection = connection
        self._rest = rest
        self._length: int | None = None
        self._chunked = False
        self.complete = False
        tokens = {t.strip().lower() for t in headers.get("connection", "").split(",")}
        if version == "HTTP/1.0":
            self.keep_alive = "keep-alive" in tokens
        else:
            self.keep_alive = "close" not in tokens
        encoding = headers.get("transfer-encoding", "").lower()
        if bodiless:
            self._length = 0
        elif encoding:
            if encoding.rsplit(",", 1)[-1].strip() != "chunked":
                self.keep_alive = False  # framed by the end of the connection
            else:
                self._chunked = True
        elif "content-length" in headers:
            text = headers["content-length"].split(",")[0].strip()
            if not text.isdigit():
                raise RemoteProtocolError(f"a bad Content-Length: {text[:40]!r}")
            self._length = int(text)
        else:
            self.keep_alive = False
        self.reusable = False
        self._release: Callable[[Response], None] | None = None
        # A coding other than these is passed through as it came (httpx does the same).
        self.content_coding = _content_coding(headers)

    def release(self) -> None:
        """Give the connection back: to the pool when the body was read to the end and both
        sides allow it, else closed. Once; later calls do nothing."""
        release, self._release = self._release, None
        if release is not None:
            release(self)

    async def read(self, cap: int, *, truncate: bool = False) -> bytes:
        """The whole body. Over ``cap`` bytes: its first ``cap`` bytes when ``truncate``, else
        ``BodyTooLarge``. A body that came whole with the head is taken without a read."""
        length = self._length
        if length is not None and len(self._rest) >= length and self._inflater() is None:
            data, rest = self._rest[:length], self._rest[length:]
            self._rest = b""
            if len(data) > cap and not truncate:
                raise BodyTooLarge(cap)
            self._connection.buffer = rest
            self.complete = True
            self.reusable = self.keep_alive
            return data[:cap]
        chunks: list[bytes] = []
        size = 0
        body = self.aiter_bytes()
        try:
            async for chunk in body:
                if size + len(chunk) > cap:
                    if not truncate:
                        raise BodyTooLarge(cap)
                    chunks.append(chunk[: cap - size])
                    break
                size += len(chunk)
                chunks.append(chunk)
        finally:
            await body.aclose()
        return b"".join(chunks)

    def _inflater(self) -> _Inflater | None:
        coding = self.content_coding
        return _Inflater(coding) if coding in DECODED_CODINGS else None

    async def aiter_bytes(self) -> AsyncGenerator[bytes, None]:
        """The body's bytes, in pieces as they arrive (gzip and deflate decoded)."""
        if self._chunked:
            parts = self._chunks()
        elif self._length is not None:
            parts = self._counted(self._length)
        else:
            parts = self._to_close()
        inflater = self._inflater()
        try:
            async for part in parts:
                if not part:
                    continue
                if inflater is None:
                    yield part
                else:
                    for piece in inflater.feed(part):
                        yield piece
            if inflater is not None and (tail := inflater.flush()):
                yield tail
        finally:
            await parts.aclose()
        self.complete = True
        self.reusable = self.keep_alive

    async def aiter_lines(self) -> AsyncGenerator[str, None]:
        """The body as text lines (UTF-8, bad bytes replaced) without their line ends
        (``text_lines``)."""
        async with aclosing(text_lines(self.aiter_bytes())) as lines:
            async for line in lines:
                yield line

    async def _counted(self, length: int) -> AsyncGenerator[bytes, None]:
        connection = self._connection
        data, self._rest = self._rest, b""
        if len(data) > length:
            data, connection.buffer = data[:length], data[length:]
        left = length - len(data)
        yield data
        while left > 0:
            data = await connection.recv()
            if not data:
                raise RemoteProtocolError(
                    f"the server closed the connection {left} bytes before the end of the body"
                )
            if len(data) > left:
                data, connection.buffer = data[:left], data[left:]
            left -= len(data)
            yield data

    async def _to_close(self) -> AsyncGenerator[bytes, None]:
        data, self._rest = self._rest, b""
        yield data
        while data := await self._connection.recv():
            yield data

    async def _chunks(self) -> AsyncGenerator[bytes, None]:
        connection = self._connection
        data, self._rest = self._rest, b""

        async def more(what: str) -> bytes:
            got = await connection.recv()
            if not got:
                raise RemoteProtocolError(f"the server closed the connection in {what}")
            return got

        while True:
            while (end := data.find(b"\n")) < 0:
                if len(data) > MAX_CHUNK_LINE_BYTES:
                    raise RemoteProtocolError("a chunk-size line is too long")
                data += await more("a chunked body")
            size_text = data[:end].split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                raise RemoteProtocolError(f"a bad chunk size: {size_text[:20]!r}") from None
            data = data[end + 1 :]
            if size == 0:
                break
            while size > 0:
                if not data:
                    data = await more("a chunk")
                piece, data = data[:size], data[size:]
                size -= len(piece)
                yield piece
            while len(data) < 2 and data != b"\n":
                data += await more("a chunked body")
            if data[:2] == b"\r\n":
                data = data[2:]
            elif data[:1] == b"\n":
                data = data[1:]
            else:
                raise RemoteProtocolError("a chunk does not end with CRLF")
        # Trailers, if any, end with a blank line.
        while True:
            while (end := data.find(b"\n")) < 0:
                if len(data) > MAX_HEADER_BYTES:
                    raise RemoteProtocolError("the chunked trailers are too long")
                data += await more("the chunked trailers")
            line, data = data[:end].removesuffix(b"\r"), data[end + 1 :]
            if not line:
                break
        connection.buffer = data


async def text_lines(body: AsyncIterator[bytes]) -> AsyncGenerator[str, None]:
    """``body``'s bytes as text lines (UTF-8, bad bytes replaced) without their line ends. A
    line ends at CR, LF or CRLF and nowhere else (the server-sent-events rule), also when a
    CRLF arrives split across two pieces. httpx's ``aiter_lines`` splits as ``str.splitlines``
    does, at U+2028 and U+0085 too: a streamed answer holding one raw would reach the event
    parser as two broken lines, so both transports read lines through here."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    lines = _Lines()
    try:
        async for chunk in body:
            for line in lines.feed(decoder.decode(chunk)):
                yield line
    finally:
        aclose = getattr(body, "aclose", None)
        if aclose is not None:
            await aclose()
    for line in lines.feed(decoder.decode(b"", final=True)):
        yield line
    for line in lines.flush():
        yield line


_LINE_END = re.compile(r"\r\n|\r|\n")


class _Lines:
    """Incremental line splitting at CR, LF and CRLF: a trailing CR waits for a possible LF.

    Only the new text is searched for line ends; the start of an unfinished line is kept in
    pieces and joined once, when its end comes. Searching the whole unfinished line again on
    every piece made a long line quadratic: a 2 MB SSE line in 64 KB reads took 0.6 s of CPU,
    a 16 MB one in small chunks minutes."""

    def __init__(self) -> None:
        self._pending: list[str] = []  # the unfinished line, in pieces; never ends with CR
        self._cr = False

    def feed(self, text: str) -> list[str]:
        if self._cr:
            text, self._cr = "\r" + text, False
        if text.endswith("\r"):
            text, self._cr = text[:-1], True
        if not text:
            return []
        # A line end never straddles the pending text and this one: a trailing CR waits.
        lines = _LINE_END.split(text)
        if len(lines) == 1:
            self._pending.append(text)
            return []
        if self._pending:
            lines[0] = "".join(self._pending) + lines[0]
        last = lines.pop()
        self._pending = [last] if last else []
        return lines

    def flush(self) -> list[str]:
        if not self._pending and not self._cr:
            return []
        line, self._pending, self._cr = "".join(self._pending), [], False
        return [line]


class Pool:
    """Keep-alive connections per (host, port), at most ``max_connections`` open to each.

    One per event loop; safe to share between its tasks."""

    def __init__(
        self,
        *,
        connect_s: float | None = 10.0,
        read_s: float | None = 60.0,
        max_connections: int = 100,
        max_idle: int = 20,
    ) -> None:
        self.connect_s = connect_s
        self.read_s = read_s
        self.max_connections = max_connections
        self.max_idle = max_idle
        self._idle: dict[tuple[str, int], list[_Connection]] = {}
        self._slots: dict[tuple[str, int], asyncio.Semaphore] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._heads: dict[tuple[str, str, tuple[tuple[str, str], ...]], _Head] = {}
        self.connections_opened = 0

    @asynccontextmanager
    async def stream(
        self,
        method: str,
        url: str,
        content: bytes = b"",
        headers: Mapping[str, str] | None = None,
    ) -> AsyncGenerator[Response, None]:
        """Send one request; the response's body is read inside the block. The connection
        goes back to the pool when the body was read to the end and both sides allow it."""
        response = await self.send(method, url, content, headers)
        try:
            yield response
        finally:
            response.release()

    async def send(
        self,
        method: str,
        url: str,
        content: bytes = b"",
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        """``stream`` without the block: the caller reads the body (``Response.read``) and
        must call ``Response.release()`` whatever happens (the fast path of a whole body)."""
        host, port, head, closes = self._head(method, url, headers)
        key = (host, port)
        request = head + f"Content-Length: {len(content)}\r\n\r\n".encode("latin-1") + content
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # connections and slots belong to the loop that made them
            self._loop = loop
            self._idle, self._slots = {}, {}
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = asyncio.Semaphore(self.max_connections)
        if slot.locked():
            try:
                async with asyncio.timeout(self.connect_s):
                    await slot.acquire()
            except TimeoutError:
                raise PoolTimeout(f"no free connection within {self.connect_s:g}s") from None
        else:
            await slot.acquire()
        connection: _Connection | None = None
        try:
            connection, reused = self._pooled(key), True
            if connection is None:
                connection, reused = await self._connect(host, port), False
            try:
                response = await self._exchange(connection, request, method, reused)
            except _Stale:
                connection.close()
                connection = await self._connect(host, port)
                response = await self._exchange(connection, request, method, False)
        except BaseException:
            if connection is not None:
                connection.close()
            slot.release()
            raise

        def release(done: Response) -> None:
            if done.reusable and not closes:
                self._release(key, done._connection)
            else:
                done._connection.close()
            slot.release()

        response._release = release
        return response

    def _head(
        self, method: str, url: str, headers: Mapping[str, str] | None
    ) -> tuple[str, int, bytes, bool]:
        """Host, port, the request head up to its ``Content-Length`` line, and whether the
        request asks to close; made once per (method, URL, headers) and kept."""
        items = tuple((headers or {}).items())
        cache_key = (method, url, items)
        known = self._heads.get(cache_key)
        if known is not None:
            return known
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise ConnectError(f"only http:// URLs are supported, not {url[:80]!r}")
        host = parts.hostname
        port = parts.port or 80
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        authority = f"[{host}]" if ":" in host else host
        if port != 80:
            authority = f"{authority}:{port}"
        lines = [f"{method} {target} HTTP/1.1", f"Host: {authority}"]
        for name, value in items:
            if "\n" in value or "\r" in value or not name or ":" in name or "\n" in name:
                raise ValueError(f"header {name[:40]!r} has a line break or a bad name")
            lines.append(f"{name}: {value}")
        head = ("\r\n".join(lines) + "\r\n").encode("latin-1")
        closes = any(
            name.lower() == "connection" and "close" in value.lower() for name, value in items
        )
        if len(self._heads) >= MAX_HEADS:
            self._heads.clear()
        known = self._heads[cache_key] = (host, port, head, closes)
        return known

    def _pooled(self, key: tuple[str, int]) -> _Connection | None:
        idle = self._idle.get(key)
        while idle:
            connection = idle.pop()
            if connection.usable():
                return connection
            connection.close()
        return None

    def _release(self, key: tuple[str, int], connection: _Connection) -> None:
        idle = self._idle.setdefault(key, [])
        if len(idle) >= self.max_idle or not connection.usable():
            connection.close()
        else:
            idle.append(connection)

    async def _connect(self, host: str, port: int) -> _Connection:
        try:
            async with asyncio.timeout(self.connect_s):
                reader, writer = await asyncio.open_connection(host, port, limit=READ_SIZE)
        except TimeoutError:
            raise ConnectTimeout(
                f"no connection to {host}:{port} within {self.connect_s:g}s"
            ) from None
        except OSError as exc:
            raise ConnectError(str(exc) or type(exc).__name__) from exc
        self.connections_opened += 1
        return _Connection(reader, writer, self.read_s)

    async def _exchange(
        self, connection: _Connection, request: bytes, method: str, reused: bool
    ) -> Response:
        try:
            await connection.send(request)
        except ReadError:
            if reused:
                raise _Stale() from None
            raise
        while True:
            head, rest = await connection.read_head(reused)
            version, status, reason, items = _parse_head(head)
            if 100 <= status < 200 and status != 101:
                connection.buffer = rest  # an interim response; the real one follows
                reused = False
                continue
            bodiless = method == "HEAD" or status in (204, 304) or 100 <= status < 200
            return Response(connection, version, status, reason, Headers(items), rest, bodiless)

    async def aclose(self) -> None:
        """Close the idle connections (those in use close when their block ends)."""
        idle = [c for connections in self._idle.values() for c in connections]
        self._idle.clear()
        for connection in idle:
            connection.close()
        for connection in idle:
            with suppress(OSError):
                await connection.writer.wait_closed()


__all__ = [
    "BodyTooLarge",
    "ConnectError",
    "ConnectTimeout",
    "DECODED_CODINGS",
    "DecodingError",
    "Headers",
    "Pool",
    "PoolTimeout",
    "ReadError",
    "ReadTimeout",
    "RemoteProtocolError",
    "Response",
    "WireError",
    "WireTimeout",
    "WriteTimeout",
]
