"""A tiny OpenAI- and Anthropic-compatible app, served by real third-party HTTP servers in
tests/real/test_real_servers.py, so the harness's own HTTP client (bench.targets.wire) meets
their framing rather than our mock's.

The model is the mock server's deterministic policy (src/bench/testing/mock_server.py, standard
library only, loaded from its file): call the offered tools, then answer from their results.
This module is that answer behind each server's interface: plain ASGI (``asgi``, and
``asgi_gzip`` behind Starlette's ``GZipMiddleware``), WSGI (``wsgi``), aiohttp.web, Python's
``http.server`` and ``wsgiref`` (``python shim_app.py aiohttp|httpserver|wsgiref PORT``). It
runs in the litellm test venv (tests/real/engines.py), which has no bench installed;
tests/real/shim_node.js is the same app for Node's ``http``.

Modes: a first path segment of words joined by ``+`` in front of ``/v1/...`` (a target's
``base_url`` carries it). ``crlf``: SSE lines end in CRLF. ``gzip``: every body gzip-compressed
although the client asked for ``identity`` (a stream flushed per event). ``big``: a 2 MB field
in every plain answer, a 2 MB SSE comment in front of every stream. ``flaky``: the first time a
request body is seen it is HTTP 503 with ``Retry-After: 0``. ``close``: every response says
``Connection: close`` (ASGI and aiohttp; a WSGI app may not send hop-by-hop headers).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
import threading
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MOCK_FILE = Path(__file__).resolve().parents[2] / "src" / "bench" / "testing" / "mock_server.py"
BIG_BYTES = 2 * 1024 * 1024
MODES = ("crlf", "gzip", "big", "flaky", "close")


def _load_mock() -> Any:
    spec = importlib.util.spec_from_file_location("shim_mock_server", MOCK_FILE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


mock = _load_mock()
_seen: set[str] = set()
_seen_lock = threading.Lock()
_BIG = b""


def _big() -> bytes:
    """2 MB that gzip cannot shrink much (a bundle caps its attempts' gzip ratio)."""
    global _BIG
    if not _BIG:
        block, parts, size = b"shim", [], 0
        while size < BIG_BYTES:
            block = hashlib.sha256(block).hexdigest().encode()
            parts.append(block)
            size += len(block)
        _BIG = b"".join(parts)[:BIG_BYTES]
    return _BIG


@dataclass
class Reply:
    status: int
    headers: list[tuple[str, str]]
    chunks: list[bytes]  # the body in the pieces it is written in (one per event for a stream)
    stream: bool = False
    modes: frozenset[str] = field(default_factory=frozenset)

    @property
    def reason(self) -> str:
        return {200: "OK", 404: "Not Found", 400: "Bad Request", 503: "Service Unavailable"}.get(
            self.status, "Status"
        )


def _split(path: str) -> tuple[frozenset[str], str]:
    first, _, rest = path.lstrip("/").partition("/")
    words = frozenset(first.split("+"))
    if first and words <= set(MODES):
        return words, "/" + rest
    return frozenset(), path


def _json(status: int, payload: Any, modes: frozenset[str]) -> Reply:
    return _finish(Reply(status, [("Content-Type", "application/json")],
                         [json.dumps(payload).encode()], False, modes))  # fmt: skip


def respond(method: str, path: str, raw: bytes) -> Reply:
    """The reply to one request: status, headers and the body's pieces."""
    modes, path = _split(path)
    if method == "GET" and path == "/health":
        return _json(200, {"status": "ok"}, modes)
    if method == "GET" and path in ("/v1/models", "/models"):
        data = [{"id": "shim", "object": "model", "created": 0, "owned_by": "shim"}]
        return _json(200, {"object": "list", "data": data}, modes)
    anthropic = path == "/v1/messages"
    chat = path in ("/v1/chat/completions", "/chat/completions")
    if method != "POST" or not (chat or anthropic):
        return _json(404, {"error": {"message": f"no route {method} {path}"}}, modes)
    try:
        body = json.loads(raw)
    except ValueError:
        body = None
    if not isinstance(body, dict):
        return _json(400, {"error": {"message": "the body is not a JSON object"}}, modes)
    if "flaky" in modes:
        digest = hashlib.sha256(raw).hexdigest()
        with _seen_lock:
            first = digest not in _seen
            _seen.add(digest)
        if first:
            reply = _json(503, {"error": {"message": "shim: busy, try again",
                                          "type": "overloaded_error"}}, modes)  # fmt: skip
            reply.headers.append(("Retry-After", "0"))
            return reply
    build = mock.anthropic_reply if anthropic else mock.openai_reply
    whole, events = build(body, None)
    if body.get("stream") is not True:
        if "big" in modes:
            whole["x_shim_padding"] = _big().decode()
        return _json(200, whole, modes)
    if "crlf" in modes:
        events = [event.replace(b"\n", b"\r\n") for event in events]
    if "big" in modes:
        events = [b": " + _big() + (b"\r\n\r\n" if "crlf" in modes else b"\n\n"), *events]
    headers = [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")]
    return _finish(Reply(200, headers, events, True, modes))


def _finish(reply: Reply) -> Reply:
    if "gzip" in reply.modes:
        packer = zlib.compressobj(9, zlib.DEFLATED, 31)
        pieces = [packer.compress(c) + packer.flush(zlib.Z_SYNC_FLUSH) for c in reply.chunks]
        pieces.append(packer.flush())
        reply.chunks = [b"".join(pieces)] if not reply.stream else pieces
        reply.headers.append(("Content-Encoding", "gzip"))
    if not reply.stream:
        reply.headers.append(("Content-Length", str(sum(len(c) for c in reply.chunks))))
    if "close" in reply.modes:
        reply.headers.append(("Connection", "close"))
    return reply


# -- ASGI ----------------------------------------------------------------------------------


async def asgi(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] != "http":
        return
    raw = b""
    while True:
        message = await receive()
        raw += message.get("body", b"")
        if not message.get("more_body"):
            break
    reply = respond(scope["method"], scope["path"], raw)
    headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in reply.headers]
    await send({"type": "http.response.start", "status": reply.status, "headers": headers})
    for chunk in reply.chunks:
        await send({"type": "http.response.body", "body": chunk, "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


def _gzip_middleware() -> Any:
    try:
        from starlette.middleware.gzip import GZipMiddleware
    except ImportError:  # only the servers that use it need it
        return None
    return GZipMiddleware(asgi, minimum_size=100)


asgi_gzip = _gzip_middleware()


# -- WSGI ----------------------------------------------------------------------------------


def wsgi(environ: dict[str, Any], start_response: Any) -> Iterator[bytes] | list[bytes]:
    length = int(environ.get("CONTENT_LENGTH") or 0)
    raw = environ["wsgi.input"].read(length) if length else b""
    reply = respond(environ["REQUEST_METHOD"], environ.get("PATH_INFO", "/"), raw)
    headers = [(k, v) for k, v in reply.headers if k.lower() != "connection"]
    start_response(f"{reply.status} {reply.reason}", headers)
    return list(reply.chunks)


# -- aiohttp.web, http.server, wsgiref -----------------------------------------------------


def serve_aiohttp(port: int, keepalive_s: float) -> None:
    from aiohttp import web

    async def handle(request: web.Request) -> web.StreamResponse:
        reply = respond(request.method, request.path, await request.read())
        headers = [(k, v) for k, v in reply.headers if k.lower() != "connection"]
        response = web.StreamResponse(status=reply.status, headers=headers)
        if "close" in reply.modes:
            response.force_close()
        await response.prepare(request)
        for chunk in reply.chunks:
            await response.write(chunk)
        await response.write_eof()
        return response

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    web.run_app(app, host="127.0.0.1", port=port, keepalive_timeout=keepalive_s,
                print=None, access_log=None)  # fmt: skip


def serve_http_server(port: int) -> None:
    """Python's own server: HTTP/1.0 replies, one request per connection, a stream framed by
    the end of the connection."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def _any(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            reply = respond(self.command, self.path, raw)
            self.send_response(reply.status)
            for name, value in reply.headers:
                self.send_header(name, value)
            self.end_headers()
            for chunk in reply.chunks:
                self.wfile.write(chunk)
                self.wfile.flush()

        do_GET = do_POST = _any  # noqa: N815 - http.server's names

        def log_message(self, *args: object) -> None:
            pass

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


def serve_wsgiref(port: int) -> None:
    """The standard library's WSGI server: HTTP/1.0, close-framed when no length is known."""
    from socketserver import ThreadingMixIn
    from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    class Threading(ThreadingMixIn, WSGIServer):
        daemon_threads = True

    make_server("127.0.0.1", port, wsgi, server_class=Threading,
                handler_class=Quiet).serve_forever()  # fmt: skip


if __name__ == "__main__":
    kind, port = sys.argv[1], int(sys.argv[2])
    if kind == "aiohttp":
        serve_aiohttp(port, float(sys.argv[3]) if len(sys.argv) > 3 else 75.0)
    elif kind == "httpserver":
        serve_http_server(port)
    elif kind == "wsgiref":
        serve_wsgiref(port)
    else:
        raise SystemExit(f"unknown server {kind!r}")
