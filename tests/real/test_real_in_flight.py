"""What a real llama-cpp-python engine does with a request the client gave up on, and what the
harness does about it (targets/inflight.py, issue 17).

The engine answers one request at a time. A plain (non-streamed) answer is generated to the end
after the client has closed the connection, so the next request waits inside the engine and
its clock runs: that wait used to be charged to the next attempt as latency (or a timeout).
A streamed answer stops when the client closes the stream.

With the run's request slots, an abandoned plain request is read out in the background and
keeps its slot: the next request waits for the slot instead, and that wait is queue time, kept
out of latency. The engine's generation time varies with the machine's load, so every check
compares the routes measured here side by side, never a fixed number of seconds.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from bench.core.clock import ATTEMPT_CLOCK, AttemptClock
from bench.core.trace import Message
from bench.targets import ModelRequest, TargetSpec, build_target

from .conftest import Servers

GIVE_UP_S = 1.5
LONG = ModelRequest(
    model="smollm2",
    messages=[
        Message(
            role="user",
            content="Write a very long story about a lighthouse keeper, in many chapters.",
        )
    ],
    params={"temperature": 0, "max_tokens": 400},
)
SHORT = ModelRequest(
    model="smollm2",
    messages=[Message(role="user", content="Say hello.")],
    params={"temperature": 0, "max_tokens": 4},
)


def _spec(servers: Servers, *, stream: bool) -> TargetSpec:
    return TargetSpec.model_validate(
        {"format_version": 1, "kind": "openai", "entrant": "in-flight",
         "display_name": "in flight", "model": "smollm2", "stream": stream,
         "base_url": servers.engines["a"].url + "/v1"}
    )  # fmt: skip


async def _abandon_then_ask(servers: Servers, *, stream: bool, slots: bool) -> tuple[float, float]:
    """Give up on a long answer after GIVE_UP_S, then ask a short question: its latency and
    its queue time."""
    target = build_target(_spec(servers, stream=stream), Path("."), Path("real.yaml"), env={})
    if slots:
        target.limit_in_flight(1)  # type: ignore[attr-defined]  # what a run does
    try:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(GIVE_UP_S):
                await target.complete(LONG)
        clock = AttemptClock()
        token = ATTEMPT_CLOCK.set(clock)
        try:
            began = time.monotonic()
            await target.complete(SHORT)
            wall = time.monotonic() - began
        finally:
            ATTEMPT_CLOCK.reset(token)
        return wall - clock.queued_s, clock.queued_s
    finally:
        await target.aclose()


def test_a_request_given_up_on_is_not_charged_to_the_next(servers: Servers) -> None:
    async def measure() -> dict[str, tuple[float, float]]:
        # The long answer whole, first: how long the engine works on it.
        target = build_target(_spec(servers, stream=False), Path("."), Path("r.yaml"), env={})
        try:
            began = time.monotonic()
            await target.complete(LONG)
            whole = time.monotonic() - began
        finally:
            await target.aclose()
        assert whole > GIVE_UP_S + 2, f"the long answer took only {whole:.1f}s"
        return {
            "closed": await _abandon_then_ask(servers, stream=False, slots=False),
            "slots": await _abandon_then_ask(servers, stream=False, slots=True),
            "stream": await _abandon_then_ask(servers, stream=True, slots=True),
        }

    seen = asyncio.run(measure())
    closed_latency, closed_queue = seen["closed"]
    slot_latency, slot_queue = seen["slots"]
    stream_latency, stream_queue = seen["stream"]
    # The defect, on the real engine: a plain request closed by the client is still generated,
    # and the next request's latency carries the rest of it.
    assert closed_queue == 0.0
    assert closed_latency > slot_latency + 1.0, seen
    # With slots the same wait is queue time, and the short answer's latency is its own.
    assert slot_queue > 1.0, seen
    # A closed stream stops the engine: nothing left to wait for, inside or outside.
    assert stream_queue == 0.0, seen
    assert stream_latency < closed_latency - 1.0, seen
