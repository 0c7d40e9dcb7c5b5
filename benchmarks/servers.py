"""Two small OpenAI-compatible chat-completions servers for ``bench_process.py``: not the
project's mock (``bench.testing.mock_server``), and shaped like servers people run.

* ``typical``: HTTP/1.1 keep-alive, each response (head and body) handed to the kernel in one
  ``send()``, ``TCP_NODELAY`` on (what asyncio, uvicorn and most event-loop servers do).
* ``split``: the same answers, but the head and the body go out in two ``send()`` calls with
  Nagle's algorithm on (``TCP_NODELAY`` off), as cpp-httplib (llama.cpp's server) does by
  default. The body waits in the kernel until the head is acknowledged; a keep-alive client
  whose kernel delays that acknowledgement (delayed ACK, about 40 ms on Linux) stalls that long
  per request.

Answers, for both: a request with tools whose last message is not a tool result (and whose
``tool_choice`` is not ``none``) gets one call of its first tool (or the one ``tool_choice``
names), with arguments made from that tool's JSON schema (required properties: the first
``enum`` value, ``"1041"`` for strings, ``1`` for numbers, ``true``, ``[]``, ``{}``); anything
else gets a short text answer. ``"stream": true`` gets server-sent events (a role delta, the
content or tool-call delta, a finish chunk, a usage chunk, ``[DONE]``), framed by
``Content-Length`` like the JSON answers. ``GET /v1/models`` lists one model; other paths 404.
``GET /__stats`` returns the counts (not counted itself).

    python benchmarks/servers.py --kind split [--port 0]   # prints its URL, serves until killed

Standard library only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import socket
import sys
import time
from collections import Counter
from typing import Any

MODEL = "bench-process-model"
KINDS = ("typical", "split")


def _value(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return "1041"
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "object":
        return _arguments(schema)
    return {"integer": 1, "number": 1, "boolean": True, "array": []}.get(str(kind), "1041")


def _arguments(schema: Any) -> dict[str, Any]:
    if not isinstance(schema, dict):
        return {}
    properties = schema.get("properties") or {}
    return {name: _value(properties.get(name)) for name in schema.get("required") or []}


def answer(request: dict[str, Any], number: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The completion (message, finish reason, usage) for one request, and its SSE chunks."""
    messages = request.get("messages") or []
    tools = request.get("tools") or []
    choice = request.get("tool_choice")
    last = messages[-1].get("role") if messages and isinstance(messages[-1], dict) else None
    wants_tool = bool(tools) and last != "tool" and choice != "none"
    created = int(time.time())
    ident = f"chatcmpl-{number}"
    usage = {"prompt_tokens": 120, "completion_tokens": 12, "total_tokens": 132}
    if wants_tool:
        function = tools[0].get("function", {})
        if isinstance(choice, dict):
            named = choice.get("function", {}).get("name")
            function = next(
                (
                    t.get("function", {})
                    for t in tools
                    if t.get("function", {}).get("name") == named
                ),
                function,
            )
        call = {
            "id": f"call_{number}",
            "type": "function",
            "function": {
                "name": function.get("name", "tool"),
                "arguments": json.dumps(_arguments(function.get("parameters"))),
            },
        }
        message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
        finish = "tool_calls"
        delta: dict[str, Any] = {"tool_calls": [{"index": 0, **call}]}
    else:
        text = "I have checked that. The order 1041 was refunded in full."
        message = {"role": "assistant", "content": text}
        finish = "stop"
        delta = {"content": text}
    completion = {
        "id": ident,
        "object": "chat.completion",
        "created": created,
        "model": MODEL,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": usage,
    }
    base = {"id": ident, "object": "chat.completion.chunk", "created": created, "model": MODEL}
    chunks = [
        {**base, "choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
        {**base, "choices": [], "usage": usage},
    ]
    return completion, chunks


class Http(asyncio.Protocol):
    """One connection: HTTP/1.1 requests with ``Content-Length`` bodies, kept alive."""

    counts: Counter[str] = Counter()
    split = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.buffer = b""
        sock = transport.get_extra_info("socket")
        if sock is not None:
            # asyncio turns Nagle off on every TCP socket; the split server turns it back on.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 0 if self.split else 1)
        self.counts["connections"] += 1

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buffer[:end].decode("latin-1").split("\r\n")
            fields = {}
            for line in head[1:]:
                name, _, value = line.partition(":")
                fields[name.strip().lower()] = value.strip()
            length = int(fields.get("content-length", "0"))
            if len(self.buffer) < end + 4 + length:
                return
            body = self.buffer[end + 4 : end + 4 + length]
            self.buffer = self.buffer[end + 4 + length :]
            method, path = (head[0].split(" ") + ["", ""])[:2]
            closes = "close" in fields.get("connection", "").lower()
            self.respond(method, path, body, closes)
            if closes:
                return

    def respond(self, method: str, path: str, body: bytes, closes: bool) -> None:
        kind = "application/json"
        status = "200 OK"
        if method == "POST" and path.rstrip("/").endswith("/chat/completions"):
            self.counts["chat"] += 1
            try:
                request = json.loads(body)
            except ValueError:
                request = {}
            completion, chunks = answer(request, self.counts["chat"])
            if request.get("stream"):
                self.counts["chat_streamed"] += 1
                kind = "text/event-stream"
                events = [f"data: {json.dumps(c)}\n\n" for c in chunks] + ["data: [DONE]\n\n"]
                payload = "".join(events).encode()
            else:
                payload = json.dumps(completion).encode()
        elif method == "GET" and path == "/__stats":
            payload = json.dumps(dict(self.counts)).encode()
        elif method == "GET" and path.rstrip("/").endswith("/models"):
            self.counts["models"] += 1
            listing = {
                "object": "list",
                "data": [{"id": MODEL, "object": "model", "owned_by": "x"}],
            }
            payload = json.dumps(listing).encode()
        else:
            self.counts[f"other: {method} {path}"] += 1
            status = "404 Not Found"
            payload = b'{"error": {"message": "not found"}}'
        head = (
            f"HTTP/1.1 {status}\r\ncontent-type: {kind}\r\ncontent-length: {len(payload)}\r\n"
            f"connection: {'close' if closes else 'keep-alive'}\r\n\r\n"
        ).encode("latin-1")
        if self.split:
            self.transport.write(head)
            self.transport.write(payload)
        else:
            self.transport.write(head + payload)
        if closes:
            self.transport.close()


async def serve(kind: str, port: int) -> None:
    Http.split = kind == "split"
    loop = asyncio.get_running_loop()
    server = await loop.create_server(Http, "127.0.0.1", port, backlog=256)
    bound = server.sockets[0].getsockname()[1]
    print(f"http://127.0.0.1:{bound}", flush=True)
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    async with server:
        await stop.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", choices=KINDS, default="typical")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    asyncio.run(serve(args.kind, args.port))
    return 0


if __name__ == "__main__":
    sys.exit(main())
