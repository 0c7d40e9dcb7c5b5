"""A real OpenAI-compatible judge on 127.0.0.1 (threaded ``http.server``) that returns scripted
verdicts, can fail with an HTTP status, sleep past the deadline or trickle its reply, and
counts the requests it receives. Nothing in these tests patches a function."""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

import bench.scorers as scorers
from bench.scorers.base import REGISTRY

# Importing the judge package registers its scorer. Until ``bench.scorers`` imports it itself,
# keep the registry as the package gives it, so the registry tests elsewhere see no change;
# ``judge_scorer`` installs it for the tests that score through ``score_attempt``.
_WIRED = "judge" in scorers.REGISTRY
from bench.scorers.judge.scorer import score_judge  # noqa: E402

if not _WIRED:
    REGISTRY.pop("judge", None)

API_KEY = "sk-test-DO-NOT-LEAK-7f3a9c2e51"
KEY_ENV = "BENCH_TEST_JUDGE_KEY"


@dataclass
class Reply:
    """One scripted response."""

    content: str | None = "PASS: the answer meets the rubric."
    status: int = 200
    raw: bytes | None = None
    """Sent as the body instead of a chat completion."""
    delay_s: float = 0.0
    """Sleep this long before answering (ended early when the server shuts down)."""
    trickle_s: float = 0.0
    """Send the body one byte at a time, this long apart."""
    usage: dict[str, Any] | None = None
    echo_auth: bool = False
    """Put the request's Authorization header in the body (a careless server's error page)."""


DEFAULT_USAGE = {"prompt_tokens": 1000, "completion_tokens": 200}


class FakeJudge:
    Reply = Reply

    def __init__(self) -> None:
        self.queue: deque[Reply] = deque()
        self.responder: Callable[[dict[str, Any]], Reply] | None = None
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.release = threading.Event()
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                fake.handle(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = False
        self.server.block_on_close = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    @property
    def count(self) -> int:
        with self._lock:
            return len(self.bodies)

    def script(self, *replies: Reply) -> None:
        self.queue.extend(replies)

    def user_messages(self) -> list[str]:
        return [body["messages"][-1]["content"] for body in self.bodies]

    def _pick(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self.queue:
                return self.queue.popleft()
        if self.responder is not None:
            return self.responder(body)
        return Reply()

    def handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length", "0"))
        body = json.loads(handler.rfile.read(length))
        with self._lock:
            self.bodies.append(body)
            self.headers.append(dict(handler.headers.items()))
        reply = self._pick(body)
        if reply.delay_s and self.release.wait(reply.delay_s):
            return
        if reply.raw is not None:
            data = reply.raw
        elif reply.status >= 300:
            data = b'{"error": {"message": "the judge fell over"}}'
        else:
            data = json.dumps(
                {
                    "id": "chatcmpl-1",
                    "object": "chat.completion",
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": reply.content}}
                    ],
                    "usage": DEFAULT_USAGE if reply.usage is None else reply.usage,
                }
            ).encode()
        if reply.echo_auth:
            data += b" you sent: " + handler.headers.get("Authorization", "").encode()
        try:
            handler.send_response(reply.status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            if reply.trickle_s:
                for index in range(len(data)):
                    if self.release.wait(reply.trickle_s):
                        return
                    handler.wfile.write(data[index : index + 1])
                    handler.wfile.flush()
            else:
                handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its deadline passed): that is the point of the test

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Requests to 127.0.0.1 go straight to the fake judge whatever the environment says."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("all_proxy", raising=False)


@pytest.fixture
def server() -> Iterator[FakeJudge]:
    fake = FakeJudge()
    try:
        yield fake
    finally:
        fake.close()


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, API_KEY)
    return API_KEY


JudgeFile = Callable[..., Path]


@pytest.fixture
def judge_file(tmp_path: Path, server: FakeJudge, api_key: str) -> JudgeFile:
    """``judge_file(**overrides)``: a judge.yaml pointing at the fake judge."""

    def write(name: str = "judge.yaml", **overrides: Any) -> Path:
        data: dict[str, Any] = {
            "format_version": 1,
            "base_url": server.url,
            "model": "fake-judge-1",
            "temperature": 0,
            "api_key_env": KEY_ENV,
            "timeout_s": 2,
        }
        data.update(overrides)
        data = {key: value for key, value in data.items() if value is not None}
        path = tmp_path / name
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        return path

    return write


@pytest.fixture
def judge_scorer() -> Iterator[None]:
    """The ``judge`` scorer registered for one test (and removed after, unless the scorers
    package registers it itself)."""
    installed = "judge" not in REGISTRY
    if installed:
        REGISTRY["judge"] = score_judge  # type: ignore[assignment]
    try:
        yield
    finally:
        if installed:
            REGISTRY.pop("judge", None)
