"""Tool arguments nested deeper than ``ARGUMENT_DEPTH`` (32) levels are the model's malformed
call, refused like arguments that are not JSON — not a harness fault.

Before 2026-12-07 an OpenAI-compatible server whose tool calls carried arguments nested 300
levels deep (valid JSON, which ``json.loads`` reads) made recording the response raise
("Maximum serialization depth exceeded") inside the attempt: the attempt was a *harness fault*,
never charged to the entrant and left out of the score. On the public split a model doing so on
every tool task had 31 of 86 attempts left out, and its printed score counted only the other 55.
"""

from __future__ import annotations

import contextlib
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from bench.runner import RunRequest, start_run
from bench.targets.openai import ARGUMENT_DEPTH, tool_arguments

REPO = Path(__file__).resolve().parents[2]
TASK = "lh-pub-order-conditional"


def _nested(levels: int) -> str:
    """An object whose ``x`` is ``levels - 1`` arrays deep: ``levels`` levels in all."""
    return '{"x": ' + "[" * (levels - 1) + '"1"' + "]" * (levels - 1) + "}"


def test_arguments_up_to_the_limit_are_taken_and_deeper_ones_refused() -> None:
    taken, problem = tool_arguments(_nested(ARGUMENT_DEPTH))
    assert problem is None and taken["x"]
    for deeper in (ARGUMENT_DEPTH + 1, 300, 900):
        arguments, problem = tool_arguments(_nested(deeper))
        assert arguments == {}
        assert problem == f"the arguments are nested deeper than {ARGUMENT_DEPTH} levels"
    parsed = json.loads(_nested(300))
    assert tool_arguments(parsed) == ({}, problem)  # already parsed (an Anthropic ``input``)


class _Deep(BaseHTTPRequestHandler):
    """A chat-completions server whose first reply calls every tool with arguments nested 300
    levels deep, then says "Done."."""

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _send(self, payload: Any) -> None:
        body = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._send({"object": "list", "data": [{"id": "deep", "object": "model"}]})

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        names = [t["function"]["name"] for t in request.get("tools", [])]
        answered = any(m.get("role") == "tool" for m in request["messages"])
        message: dict[str, Any] = {"role": "assistant", "content": "Done."}
        if names and not answered:
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"c{at}",
                        "type": "function",
                        "function": {"name": name, "arguments": _nested(300)},
                    }
                    for at, name in enumerate(names)
                ],
            }
        self._send(
            {
                "id": "r",
                "object": "chat.completion",
                "model": "deep",
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "finish_reason": "tool_calls" if "tool_calls" in message else "stop",
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        )


@pytest.fixture
def deep_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Deep)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_a_model_nesting_its_arguments_300_deep_fails_its_attempt(
    deep_server: str, tmp_path: Path
) -> None:
    target = tmp_path / "deep.yaml"
    target.write_text(
        "format_version: 1\nkind: openai\nentrant: deep-args\ndisplay_name: deep args\n"
        f"model: deep\nbase_url: {deep_server}\nparams: {{temperature: 0}}\n",
        encoding="utf-8",
    )
    run, _ = start_run(
        RunRequest(
            tasks=REPO / "tasks" / "long-horizon.public.yaml",
            target_file=target,
            task_ids=[TASK],
            repeats=1,
            concurrency=1,
            runs_dir=tmp_path / "runs",
        )
    )
    (record,) = run.attempts()
    assert record.outcome == "scored", record.reason
    assert record.value == 0.0
    refused = [call for call in record.trace.tool_calls if call.error]
    assert refused and all(
        f"nested deeper than {ARGUMENT_DEPTH} levels" in call.error for call in refused
    )


class _DeepAgent(BaseHTTPRequestHandler):
    """An ``http-agent`` that posts every offered tool arguments nested 300 levels deep, then
    (the JSON reader's own limit) 5,000 deep, and answers "Done."."""

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        turn = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        for tool in turn.get("tools") or []:
            for levels in (300, 5000):
                call = urllib.request.Request(
                    f"{turn['tools_url']}/tools/{tool['name']}",
                    data=_nested(levels).encode(),
                    headers={"Content-Type": "application/json"},
                    method="POST",
                )
                with contextlib.suppress(urllib.error.HTTPError):
                    opener.open(call, timeout=30).read()
        body = json.dumps(
            {"answer": "Done.", "usage": {"prompt_tokens": 1, "completion_tokens": 1}}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_an_agent_posting_arguments_300_deep_fails_its_attempt_and_the_run_goes_on(
    tmp_path: Path,
) -> None:
    """Before 2026-12-07 writing such an attempt raised out of ``bench run``: the agent stopped
    the whole run with a traceback."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _DeepAgent)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        target = tmp_path / "agent.yaml"
        target.write_text(
            "format_version: 1\nkind: http-agent\nentrant: deep-agent\n"
            "display_name: deep agent\nmodel: deep-agent\n"
            f"base_url: http://127.0.0.1:{server.server_address[1]}/agent\n",
            encoding="utf-8",
        )
        run, _ = start_run(
            RunRequest(
                tasks=REPO / "tasks" / "long-horizon.public.yaml",
                target_file=target,
                task_ids=[TASK],
                repeats=1,
                concurrency=1,
                runs_dir=tmp_path / "runs",
            )
        )
    finally:
        server.shutdown()
        server.server_close()
    (record,) = run.attempts()
    assert record.outcome == "scored", record.reason
    assert record.value == 0.0
    errors = [call.error or "" for call in record.trace.tool_calls]
    assert errors and all("the arguments are not a JSON object" in e for e in errors)
    deep = f"nested deeper than {ARGUMENT_DEPTH} levels"
    assert sum(deep in e for e in errors) == len(errors) // 2
