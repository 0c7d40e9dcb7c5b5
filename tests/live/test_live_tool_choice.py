"""Endpoints that do not enforce ``tool_choice: required`` are detected: the exchange carries a
warning, the run's summary counts it, the terminal report says it. An endpoint that enforces
it (the mock server) raises none."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from bench.reports import summarize
from bench.reports.terminal import render_summary
from bench.runner import RunRequest, start_run
from bench.targets.base import TOOL_CHOICE_NOT_ENFORCED
from bench.testing.mock_server import MockServer


class _Lax(BaseHTTPRequestHandler):
    """Answers every chat completion with plain text, whatever tool_choice says."""

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        length = int(self.headers.get("content-length", "0"))
        json.loads(self.rfile.read(length))
        body = json.dumps(
            {
                "id": "lax-1",
                "object": "chat.completion",
                "model": "lax",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": "Refunds take 14 days."},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            }
        ).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        return None


@pytest.fixture
def lax_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Lax)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def _run(mini: Path, target: Path) -> Any:
    run_dir, status = start_run(
        RunRequest(
            tasks=mini / "tasks",
            target_file=target,
            runs_dir=mini / "runs",
            split="public",
            task_ids=("qa-0001", "tool-0001"),
        )
    )
    assert status.status == "complete"
    return run_dir


def test_an_endpoint_that_ignores_required_is_flagged(
    mini: Path, lax_url: str, target_file: Callable[..., Path]
) -> None:
    run_dir = _run(mini, target_file("lax", lax_url, tool_choice="required", model="lax"))
    exchanges = [e for r in run_dir.attempts() for e in r.trace.exchanges]
    assert exchanges and all(
        e.response["raw"]["warnings"] == [TOOL_CHOICE_NOT_ENFORCED] for e in exchanges
    )
    summary = summarize(run_dir)
    calls = len(exchanges)
    assert summary.endpoint_warnings == {"calls": calls, TOOL_CHOICE_NOT_ENFORCED: calls}
    text = "\n".join(render_summary(summary))
    assert (
        f"endpoint warning: tool_choice=required was not enforced (the model answered without "
        f"a tool call) in {calls} of {calls} model call(s)"
    ) in text


def test_auto_and_an_enforcing_endpoint_raise_no_warning(
    mini: Path, lax_url: str, server: MockServer, target_file: Callable[..., Path]
) -> None:
    auto = _run(mini, target_file("lax-auto", lax_url, model="lax"))
    assert summarize(auto).endpoint_warnings == {}
    # The mock server keeps calling a tool while tool_choice is required, until the turn
    # limit ends the attempt: never a warning.
    strict = _run(mini, target_file("strict", server.url + "/v1", tool_choice="required"))
    assert all(
        "warnings" not in e.response["raw"] for r in strict.attempts() for e in r.trace.exchanges
    )
    assert TOOL_CHOICE_NOT_ENFORCED not in summarize(strict).endpoint_warnings
