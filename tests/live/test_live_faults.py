"""Every way an endpoint fails, served for real by the mock server: what is retried, what fails
at once, how long anything may take, and the code an errored attempt carries."""

from __future__ import annotations

import asyncio
import json
import random
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench.core.errors import EntrantError
from bench.core.trace import Message, ToolDef
from bench.runner import RunRequest, start_run
from bench.targets import ModelRequest, ModelResponse, TargetSpec, build_target
from bench.testing.mock_server import MockServer

FAST = {
    "retry": {"max_attempts": 4, "base_s": 0.01, "cap_s": 0.05, "seed": 3},
    "timeouts": {"connect_s": 2, "read_s": 5, "request_s": 5, "deadline_s": 10},
}
SEARCH = ToolDef(
    name="search_docs",
    parameters={
        "type": "object",
        "properties": {"query": {"type": "string"}},
        "required": ["query"],
    },
)
REQUEST = ModelRequest(
    model="bench-mock",
    messages=[Message(role="user", content="How long do refunds take?")],
    tools=[SEARCH],
)


def spec(base_url: str, **changes: Any) -> TargetSpec:
    values: dict[str, Any] = {
        "kind": "openai",
        "entrant": "faults",
        "display_name": "faults",
        "model": "bench-mock",
        "base_url": base_url,
        **FAST,
    }
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(values.get(key), dict):
            values[key] = {**values[key], **value}
        else:
            values[key] = value
    return TargetSpec.model_validate(values)


def complete(target_spec: TargetSpec, request: ModelRequest = REQUEST) -> ModelResponse:
    async def go() -> ModelResponse:
        target = build_target(target_spec, Path("."), Path("live.yaml"), env={})
        try:
            return await target.complete(request)
        finally:
            await target.aclose()

    return asyncio.run(go())


def failure(target_spec: TargetSpec) -> EntrantError:
    with pytest.raises(EntrantError) as info:
        complete(target_spec)
    return info.value


def codes(response: ModelResponse) -> list[str]:
    assert response.raw is not None
    return [attempt["code"] for attempt in response.raw["attempts"]]


@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
def test_429_with_retry_after_is_honoured_then_succeeds(server: MockServer, streamed: bool) -> None:
    base = server.fault_url("429,retry-after=1,times=1") + "/v1"
    response = complete(spec(base, stream=streamed))
    assert [c.name for c in response.tool_calls] == ["search_docs"]
    assert codes(response) == ["ENDPOINT_RATE_LIMITED"]
    assert response.raw is not None and response.raw["attempts"][0]["retry_after_s"] == 1.0
    first, second = server.model_requests()
    assert second.at - first.at >= 1.0


def test_after_a_429_every_request_of_the_target_waits(server: MockServer) -> None:
    base = server.fault_url("429,retry-after=1,times=1") + "/v1"

    async def go() -> None:
        target = build_target(spec(base), Path("."), Path("live.yaml"), env={})
        try:
            first = asyncio.create_task(target.complete(REQUEST))
            while not server.model_requests():
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.2)  # the 429 is back; the target has paused
            others = [target.complete(REQUEST) for _ in range(3)]
            await asyncio.gather(first, *others)
        finally:
            await target.aclose()

    asyncio.run(go())
    seen = server.model_requests()
    assert len(seen) == 5
    assert all(later.at - seen[0].at >= 1.0 for later in seen[1:])


def test_a_retry_after_past_the_deadline_gives_up_at_once(server: MockServer) -> None:
    began = time.monotonic()
    error = failure(
        spec(server.fault_url("429,retry-after=30") + "/v1", timeouts={"deadline_s": 3})
    )
    assert time.monotonic() - began < 1.0
    assert error.code == "ENDPOINT_RATE_LIMITED"
    assert "would pass the deadline" in error.message
    assert len(server.model_requests()) == 1


def test_a_5xx_burst_is_retried_then_succeeds(server: MockServer) -> None:
    response = complete(spec(server.fault_url("503,times=2+500,times=1") + "/v1"))
    assert codes(response) == ["ENDPOINT_SERVER_ERROR"] * 3
    assert response.raw is not None and [a["status"] for a in response.raw["attempts"]] == [
        503,
        503,
        500,
    ]
    assert len(server.model_requests()) == 4


def test_a_408_is_retried_as_a_timeout(server: MockServer) -> None:
    response = complete(spec(server.fault_url("408,times=1") + "/v1"))
    assert codes(response) == ["ENDPOINT_TIMEOUT"]
    assert len(server.model_requests()) == 2


def test_5xx_for_ever_errors_the_attempt_with_its_code(
    mini: Path, server: MockServer, target_file: Callable[..., Path]
) -> None:
    target = target_file("down", server.fault_url("503") + "/v1")
    run_dir, status = start_run(
        RunRequest(
            tasks=mini / "tasks",
            target_file=target,
            runs_dir=mini / "runs",
            task_ids=("qa-0001",),
        )
    )
    assert status.status == "complete"
    [record] = run_dir.attempts()
    assert record.outcome == "errored"
    assert record.value == 0.0
    assert record.reason is not None
    assert record.reason.startswith("ENDPOINT_SERVER_ERROR: HTTP 503: mock fault: HTTP 503")
    assert "gave up after 4 attempts" in record.reason
    assert len(server.model_requests()) == 4


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (400, "ENDPOINT_REJECTED"),
        (401, "ENDPOINT_AUTH"),
        (403, "ENDPOINT_AUTH"),
        (404, "ENDPOINT_REJECTED"),
        (422, "ENDPOINT_REJECTED"),
    ],
)
def test_client_errors_fail_fast(server: MockServer, status: int, code: str) -> None:
    error = failure(spec(server.fault_url(str(status)) + "/v1"))
    assert error.code == code
    assert error.message == f"HTTP {status}: mock fault: HTTP {status} (not retried)"
    assert len(server.model_requests()) == 1


@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
def test_a_slow_drip_is_cut_off_by_the_deadline(server: MockServer, streamed: bool) -> None:
    base = server.fault_url("drip,bps=20") + "/v1"
    began = time.monotonic()
    error = failure(
        spec(
            base,
            stream=streamed,
            timeouts={"read_s": 30, "request_s": 0.4, "deadline_s": 1.0},
            retry={"max_attempts": 10},
        )
    )
    elapsed = time.monotonic() - began
    assert error.code == "ENDPOINT_TIMEOUT"
    assert elapsed < 2.5  # the deadline (1 s) plus its grace, not 10 attempts × 0.4 s
    assert 2 <= len(server.model_requests()) <= 4


@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
@pytest.mark.parametrize(
    ("plan", "code"),
    [("reset,times=1", "ENDPOINT_DISCONNECTED"), ("truncate,times=1", "ENDPOINT_BAD_JSON")],
    ids=["reset", "truncated"],
)
def test_a_broken_body_is_retried(server: MockServer, streamed: bool, plan: str, code: str) -> None:
    response = complete(spec(server.fault_url(plan) + "/v1", stream=streamed))
    assert codes(response) == [code]
    assert [c.name for c in response.tool_calls] == ["search_docs"]
    assert len(server.model_requests()) == 2


@pytest.mark.parametrize(
    ("kind", "suffix"), [("openai", "/v1"), ("anthropic", "")], ids=["openai", "anthropic"]
)
def test_an_error_event_in_a_stream_is_retried(server: MockServer, kind: str, suffix: str) -> None:
    response = complete(spec(server.fault_url("inband,times=1") + suffix, kind=kind, stream=True))
    assert codes(response) == ["ENDPOINT_STREAM_ERROR"]
    assert response.raw is not None
    assert "an error in a 200" in response.raw["attempts"][0]["error"]
    assert len(server.model_requests()) == 2


@pytest.mark.parametrize(
    ("kind", "suffix"), [("openai", "/v1"), ("anthropic", "")], ids=["openai", "anthropic"]
)
def test_an_error_body_in_a_200_fails_at_once(server: MockServer, kind: str, suffix: str) -> None:
    error = failure(spec(server.fault_url("inband") + suffix, kind=kind))
    assert error.code == "ENDPOINT_BAD_RESPONSE"
    assert "mock fault: an error in a 200" in error.message
    assert len(server.model_requests()) == 1


def test_a_reset_for_ever_gives_up_with_its_code(server: MockServer) -> None:
    error = failure(spec(server.fault_url("reset") + "/v1"))
    assert error.code == "ENDPOINT_DISCONNECTED"
    assert "gave up after 4 attempts" in error.message


def test_nothing_listening_is_unreachable() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    error = failure(spec(f"http://127.0.0.1:{port}/v1", retry={"max_attempts": 2}))
    assert error.code == "ENDPOINT_UNREACHABLE"
    assert "gave up after 2 attempts" in error.message


def test_an_empty_answer_is_the_entrants_error(server: MockServer) -> None:
    error = failure(spec(server.fault_url("empty") + "/v1"))
    assert error.code == "ENTRANT_EMPTY_RESPONSE"
    assert "neither content nor tool calls" in error.message
    assert len(server.model_requests()) == 1  # an answer, not a fault: never retried


def test_added_latency_is_waited_for(server: MockServer) -> None:
    began = time.monotonic()
    response = complete(spec(server.fault_url("delay,s=0.3") + "/v1"))
    assert time.monotonic() - began >= 0.3
    assert codes(response) == []


@pytest.mark.parametrize(
    ("kind", "root_suffix", "streamed"),
    [("openai", "/v1", False), ("openai", "/v1", True), ("anthropic", "", True)],
    ids=["openai", "openai-streamed", "anthropic-streamed"],
)
def test_invalid_tool_json_is_the_models_error_and_the_attempt_is_scored(
    mini: Path,
    server: MockServer,
    target_file: Callable[..., Path],
    kind: str,
    root_suffix: str,
    streamed: bool,
) -> None:
    target = target_file(
        "badargs", server.fault_url("badargs") + root_suffix, kind=kind, stream=streamed
    )
    run_dir, _ = start_run(
        RunRequest(
            tasks=mini / "tasks",
            target_file=target,
            runs_dir=mini / "runs",
            task_ids=("qa-0001",),
        )
    )
    [record] = run_dir.attempts()
    assert record.outcome == "scored"
    asked = record.trace.exchanges[0].response["tool_calls"][0]
    assert asked["arguments"] == {}
    assert asked["arguments_error"].startswith("Expecting")
    [call] = record.trace.tool_calls
    assert call.error is not None
    assert call.error.startswith("the arguments are not a JSON object: Expecting")
    # The model was told, and answered.
    tool_message = json.loads(record.trace.messages[2].content)
    assert "not a JSON object" in tool_message["error"]
    assert record.trace.answer.startswith("search_docs failed:")


def test_the_jitter_is_seeded(server: MockServer) -> None:
    plan = "503,times=3"
    waits = []
    for _ in range(2):
        with MockServer(max_seconds=30) as fresh:
            response = complete(spec(fresh.fault_url(plan) + "/v1", retry={"seed": 11}))
            assert response.raw is not None
            waits.append([a["wait_s"] for a in response.raw["attempts"]])
    assert waits[0] == waits[1]
    expected = random.Random(11)
    assert waits[0] == [round(expected.uniform(0, min(0.05, 0.01 * 2**n)), 3) for n in range(3)]
