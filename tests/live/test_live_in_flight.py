"""Requests in flight at the server, abandoned ones included (targets/inflight.py), against the
mock server in its llama-cpp-python-like ``serial`` mode: one answer at a time, and a plain
answer worked out to the end after the client has gone.

Before this, an attempt that timed out mid-call left the server busy and the next attempt's
request waited behind that leftover work inside the server, its clock running: it was charged
the wait, and usually timed out too. Waiting is now queue time, outside latency and outside the
attempt's timeout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.records.run import AttemptRecord
from bench.reports.tracetext import trace_text
from bench.runner import RunRequest, start_run
from bench.testing.mock_server import MockServer

from .conftest import TargetWriter


def run(mini: Path, target: Path, **options: Any) -> list[AttemptRecord]:
    run_dir, status = start_run(
        RunRequest(tasks=mini / "tasks", target_file=target, runs_dir=mini / "runs", **options)
    )
    assert status.status == "complete"
    return sorted(run_dir.attempts(), key=lambda record: record.repeat)


def test_an_abandoned_plain_request_holds_its_slot_and_the_next_attempt_is_not_charged(
    mini: Path, target_file: TargetWriter
) -> None:
    # The first model request takes 2 s; the attempt gives up after 0.5 s. The server keeps
    # working on it for 1.5 s more.
    with MockServer(serial=True, faults=["delay,s=2,times=1"], max_seconds=60) as server:
        target = target_file("serial", server.url + "/v1")
        first, second = run(
            mini, target, task_ids=("qa-0001",), repeats=2, concurrency=1, attempt_timeout_s=0.5
        )
        assert server.max_in_flight_seen == 1
    assert first.outcome == "errored"
    assert first.reason is not None and "attempt timeout" in first.reason
    # The second attempt waited for the server to finish the first one's answer (queue time),
    # then ran with its whole 0.5 s: without the slot it queued inside the server and timed out.
    assert second.outcome == "scored", second.reason
    assert second.trace.queue_s > 0.5
    assert second.trace.latency_s < 0.5
    assert all(e.latency_s < 0.5 for e in second.trace.exchanges)
    # What a reader of the attempt sees: queue time apart from latency.
    shown = trace_text(second)
    assert f"latency {second.trace.latency_s:.3f}s (+{second.trace.queue_s:.3f}s queued)" in shown


def test_an_abandoned_stream_is_closed_and_the_server_stops(
    mini: Path, target_file: TargetWriter
) -> None:
    # Closing a stream stops a serial server's work, so nothing is left to wait for.
    with MockServer(serial=True, faults=["delay,s=2,times=1"], max_seconds=60) as server:
        target = target_file("serial-stream", server.url + "/v1", stream=True)
        first, second = run(
            mini, target, task_ids=("qa-0001",), repeats=2, concurrency=1, attempt_timeout_s=0.5
        )
    assert first.outcome == "errored"
    assert second.outcome == "scored", second.reason
    assert second.trace.queue_s == 0.0


def test_max_in_flight_bounds_the_requests_at_the_server_and_the_wait_is_queue_time(
    mini: Path, target_file: TargetWriter
) -> None:
    with MockServer(latency=0.2, max_seconds=60) as server:
        target = target_file("one-at-a-time", server.url + "/v1", max_in_flight=1)
        records = run(mini, target, task_ids=("qa-0001",), repeats=3, concurrency=3)
        assert server.max_in_flight_seen == 1
    assert all(record.outcome == "scored" for record in records)
    assert sum(record.trace.queue_s for record in records) > 0.2
    for record in records:
        # Latency is the attempt's wall time less its queue time.
        wall = (record.finished_at - record.started_at).total_seconds()
        assert record.trace.latency_s + record.trace.queue_s <= wall + 0.01


def test_without_max_in_flight_the_run_s_concurrency_reaches_the_server(
    mini: Path, target_file: TargetWriter
) -> None:
    # The control for the test above: the bound is what kept the server at one.
    with MockServer(latency=0.2, max_seconds=60) as server:
        target = target_file("three-at-a-time", server.url + "/v1")
        records = run(mini, target, task_ids=("qa-0001",), repeats=3, concurrency=3)
        assert server.max_in_flight_seen == 3
    assert all(record.trace.queue_s == 0.0 for record in records)


def test_a_request_past_its_own_request_s_is_closed_not_drained() -> None:
    """The bound a target file sets for one HTTP attempt is not stretched: that request is
    closed (the retry may then wait inside the server, as that call's own time)."""
    import asyncio

    from bench.core.trace import Message
    from bench.targets import ModelRequest, TargetSpec, build_target

    spec = TargetSpec.model_validate(
        {"kind": "openai", "entrant": "bound", "display_name": "bound", "model": "bench-mock",
         "retry": {"max_attempts": 4, "base_s": 0.01, "cap_s": 0.02, "seed": 1},
         "timeouts": {"connect_s": 2, "read_s": 5, "request_s": 0.5, "deadline_s": 10}}
    )  # fmt: skip
    request = ModelRequest(model="bench-mock", messages=[Message(role="user", content="Hi")])

    async def ask(url: str) -> tuple[list[str], int]:
        target = build_target(
            spec.model_copy(update={"base_url": url}), Path("."), Path("b.yaml"), env={}
        )
        target.limit_in_flight(1)  # type: ignore[attr-defined]  # what a run does
        try:
            response = await target.complete(request)
            assert response.raw is not None
            codes = [attempt["code"] for attempt in response.raw["attempts"]]
            return codes, target.http.in_flight.abandoned  # type: ignore[attr-defined]
        finally:
            await target.aclose()

    with MockServer(serial=True, faults=["delay,s=1,times=1"], max_seconds=60) as server:
        codes, abandoned = asyncio.run(ask(server.url + "/v1"))
    # The first attempt (and, on a loaded machine, maybe a retry behind it) timed out; a later
    # one was answered. None was kept open past its own bound.
    assert codes and set(codes) == {"ENDPOINT_TIMEOUT"}
    assert abandoned == 0
