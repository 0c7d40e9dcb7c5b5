"""The small HTTP/1.1 client against framings that real servers produce and our mock does not
(tests/real/test_real_servers.py runs ``bench run`` through those servers; a bug found there
is pinned here against a raw loopback socket server, byte for byte)."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from bench.targets import wire

from .test_wire import read_request, run, serving

LONG_LINE = 1024 * 1024  # characters of one SSE data line
PIECE = 4096  # bytes per chunk the server writes, as an ASGI app streaming small pieces


class CountingPattern:
    """``wire._LINE_END`` that counts the characters its ``split`` scans."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.scanned = 0

    def split(self, text: str) -> list[str]:
        self.scanned += len(text)
        return self.pattern.split(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pattern, name)


@pytest.mark.parametrize("ending", [b"\n", b"\r\n"])
def test_a_long_sse_line_in_small_chunks_is_read_in_linear_work(
    monkeypatch: pytest.MonkeyPatch, ending: bytes
) -> None:
    """A 2 MB answer streamed as one SSE line (granian, wsgiref in test_real_servers.py) in
    4 KB chunks: the line splitter searched the whole unfinished line again for every piece,
    so reading it scanned ~LONG_LINE²/PIECE characters (0.6 s of CPU for 2 MB in 64 KB reads;
    minutes for a 16 MB body in small chunks). Now every character is scanned about once."""
    counter = CountingPattern(wire._LINE_END)
    monkeypatch.setattr(wire, "_LINE_END", counter)
    line = b'data: {"x": "' + b"a" * LONG_LINE + b'"}'
    events = line + ending + ending + b"data: [DONE]" + ending + ending

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n")  # fmt: skip
        for start in range(0, len(events), PIECE):
            piece = events[start : start + PIECE]
            writer.write(b"%x\r\n%b\r\n" % (len(piece), piece))
            await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()

    async def go() -> list[str]:
        async with serving(handler) as server:
            pool = wire.Pool()
            try:
                async with pool.stream("POST", server.url + "/x", b"{}") as response:
                    return [text async for text in response.aiter_lines()]
            finally:
                await pool.aclose()

    lines = run(go())
    assert lines == [line.decode(), "", "data: [DONE]", ""]
    assert counter.scanned <= 2 * len(events), counter.scanned


@pytest.mark.parametrize(
    "pieces",
    [
        ["ab", "c\r", "\nd", "e\rf\r", "\r\ng", ""],
        ["", "abc", "", "\r", "", "\n", "x"],
        ["\r", "\r", "\n\n"],
    ],
)
def test_lines_split_the_same_whatever_the_pieces(pieces: list[str]) -> None:
    """The splitter keeps an unfinished line in pieces: the lines are those of the whole text."""
    splitter = wire._Lines()
    got = [line for piece in pieces for line in splitter.feed(piece)] + splitter.flush()
    expected = re.split(r"\r\n|\r|\n", "".join(pieces))
    if expected[-1] == "":  # the text ends with a line end: no unfinished line after it
        expected.pop()
    assert got == expected
