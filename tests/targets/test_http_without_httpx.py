"""Issue 19: an endpoint that goes over ``wire`` (loopback ``http://``) never needs httpx, for
its answers or for its failures; httpx is imported only by an endpoint that uses it."""

from __future__ import annotations

import json
import subprocess
import sys

# Run in a fresh interpreter where importing httpx fails from the start: the targets, the
# runner and the probe's module import it only when an endpoint or a probe uses it.
CODE = """
import sys
sys.modules["httpx"] = None
import asyncio, json, socket
from pathlib import Path
from bench.core.errors import EntrantError
from bench.core.trace import Message
from bench.targets import ModelRequest, TargetSpec, build_target
from bench.testing.mock_server import MockServer
import bench.runner, bench.targets.probe, bench.cli.run_cmd

def spec(url, **fields):
    return TargetSpec.model_validate({
        "kind": "openai", "entrant": "w", "display_name": "w", "model": "bench-mock",
        "base_url": url, "retry": {"max_attempts": 2, "base_s": 0.01, "cap_s": 0.02, "seed": 1},
        "timeouts": {"connect_s": 2, "read_s": 5, "request_s": 5, "deadline_s": 10}, **fields})

REQUEST = ModelRequest(model="bench-mock", messages=[Message(role="user", content="Hi")])

async def ask(url, stream):
    target = build_target(spec(url, stream=stream), Path("."), Path("w.yaml"), env={})
    try:
        try:
            response = await target.complete(REQUEST)
        except EntrantError as exc:
            return ["failed", exc.code, target.http.transport]
        return ["answered", bool(response.content), target.http.transport]
    finally:
        await target.aclose()

with socket.socket() as sock:
    sock.bind(("127.0.0.1", 0))
    closed = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
with MockServer(max_seconds=60) as server:
    out = [asyncio.run(ask(server.url + "/v1", stream)) for stream in (False, True)]
out.append(asyncio.run(ask(closed, False)))
import bench.targets.http as module
out.append(hasattr(module, "httpx"))  # the module holds no httpx of its own to fall back on
print(json.dumps(out))
"""


def test_a_loopback_endpoint_answers_and_fails_without_httpx() -> None:
    result = subprocess.run(
        [sys.executable, "-c", CODE], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [
        ["answered", True, "wire"],
        ["answered", True, "wire"],
        ["failed", "ENDPOINT_UNREACHABLE", "wire"],
        False,
    ]
