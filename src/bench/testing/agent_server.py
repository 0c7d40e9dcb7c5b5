"""An example ``http-agent`` entrant: a tiny agent that runs its own loop, loopback only.

Per turn it reads ``{"task_id", "messages", "tools", "tools_url"}``; when ``search_docs`` is
offered it calls ``POST {tools_url}/tools/search_docs`` with the last user message as the
query and answers with the top passage and its citation (``text [id]``); otherwise it calls
each offered tool once, in order (``*_id`` string arguments get the first number in the
question), and says what it did. It reports deterministic usage (4 characters a token).

The path it is reached on picks a behaviour, for tests:

    /agent                 the behaviour above
    /agent/empty           answers ``{}`` (no answer: the attempt is errored)
    /agent/unknown-tool    first calls ``no_such_tool``, keeps its error, then as ``/agent``
    /agent/extra           as ``/agent`` plus keys the harness does not know
    /agent/bad-args        first sends ``[1, 2]`` as search_docs arguments, then as ``/agent``
    /agent/fail            HTTP 500

    python -m bench.testing.agent_server --port 0      # prints the URL, serves until killed

Standard library only.
"""

from __future__ import annotations

import argparse
import json
import re
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LOOPBACK = ("127.0.0.1", "localhost", "::1")
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never via a proxy


def call_tool(tools_url: str, name: str, arguments: Any) -> Any:
    """POST one tool call to the harness; the JSON it answers (an error body included)."""
    data = json.dumps(arguments).encode("utf-8")
    request = urllib.request.Request(
        f"{tools_url}/tools/{name}",
        data=data,
        method="POST",
        headers={"content-type": "application/json"},
    )
    try:
        with _OPENER.open(request, timeout=30) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        with exc:
            return json.loads(exc.read() or b"{}")


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


def answer_turn(body: dict[str, Any], mode: str) -> dict[str, Any]:
    """The agent's whole loop for one turn."""
    if mode == "empty":
        return {}
    tools_url = str(body["tools_url"])
    messages = body.get("messages") or []
    question = next(
        (m.get("content", "") for m in reversed(messages) if m.get("role") == "user"), ""
    )
    names = [tool["name"] for tool in body.get("tools") or []]
    steps: list[dict[str, Any]] = []
    if mode == "unknown-tool":
        steps.append({"tool": "no_such_tool", "result": call_tool(tools_url, "no_such_tool", {})})
    if mode == "bad-args":
        steps.append({"tool": "search_docs", "result": call_tool(tools_url, "search_docs", [1, 2])})
    if "search_docs" in names:
        found = call_tool(tools_url, "search_docs", {"query": question})
        steps.append({"tool": "search_docs", "result": found})
        if isinstance(found, list) and found:
            answer = f"{found[0]['text']} [{found[0]['id']}]"
        else:
            answer = "I don't know."
    else:
        number = re.search(r"\d+", question)
        for tool in body.get("tools") or []:
            properties = (tool.get("parameters") or {}).get("properties") or {}
            arguments = {
                key: number.group(0) if number else ""
                for key, schema in properties.items()
                if key.endswith("_id") and schema.get("type") == "string"
            }
            steps.append(
                {"tool": tool["name"], "result": call_tool(tools_url, tool["name"], arguments)}
            )
        answer = f"Done: called {', '.join(names) or 'no tools'}."
    reply: dict[str, Any] = {
        "answer": answer,
        "usage": {"prompt_tokens": _tokens(json.dumps(body)), "completion_tokens": _tokens(answer)},
    }
    if mode in ("extra", "unknown-tool"):
        reply["steps"] = steps
        reply["agent_version"] = "example-1"
    return reply


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        path = self.path.split("?", 1)[0].rstrip("/")
        mode = path.rsplit("/", 1)[-1] if path.count("/") >= 2 else "agent"
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send(400, {"error": "the body is not JSON"})
            return
        with self.server.lock:
            self.server.received.append({"path": path, "body": body})
        if mode == "fail":
            self._send(500, {"error": {"message": "the example agent fails on purpose"}})
            return
        try:
            reply = answer_turn(body, mode)
        except Exception as exc:  # an agent bug becomes an HTTP 500, as a real agent's would
            self._send(500, {"error": {"message": f"{type(exc).__name__}: {exc}"}})
            return
        self._send(200, reply)

    def _send(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = False  # server_close waits for handlers: nothing left running
    received: list[dict[str, Any]]
    lock: threading.Lock


class AgentServer:
    """``with AgentServer() as agent: ... agent.url ...``; loopback only."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        if host not in LOOPBACK:
            raise ValueError(f"the example agent serves loopback only, not {host}")
        self._server = _Server((host, port), _Handler)
        self._server.received = []
        self._server.lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/agent"

    def received(self) -> list[dict[str, Any]]:
        """Every turn request that reached the agent (path and body)."""
        with self._server.lock:
            return list(self._server.received)

    def start(self) -> AgentServer:
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> AgentServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    server = AgentServer(port=args.port).start()
    print(server.url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()


if __name__ == "__main__":
    main()
