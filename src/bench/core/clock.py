"""UTC time, always timezone-aware; and the clock of one attempt (queue time apart)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime


def utc_now() -> datetime:
    return datetime.now(UTC)


def iso_z(moment: datetime) -> str:
    """``2026-12-02T11:40:29Z`` (seconds precision, always UTC)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class AttemptClock:
    """What one attempt's model calls spent waiting for a free request slot (``queued_s``):
    another attempt's abandoned request the server was still answering, or the target's
    ``max_in_flight``. That wait is queue time, not the entrant's latency, so it is kept out of
    latency and the attempt's own timeout stands still while it lasts (docs/TARGETS.md,
    "Requests in flight"). The runner sets one per attempt in ``ATTEMPT_CLOCK``; the HTTP
    targets wait through ``queued``."""

    queued_s: float = 0.0
    timeout: asyncio.Timeout | None = None


@asynccontextmanager
async def queued(*timeouts: asyncio.Timeout | None) -> AsyncIterator[None]:
    """Wait in the body as queue time: the current attempt's timeout and ``timeouts`` stand
    still (are pushed back by the wait) and the attempt's clock records it."""
    clock = ATTEMPT_CLOCK.get()
    paused = [t for t in (*timeouts, clock.timeout if clock else None) if t is not None]
    whens = [(t, t.when()) for t in paused if not t.expired()]
    for t, _ in whens:
        t.reschedule(None)
    began = time.monotonic()
    try:
        yield
    finally:
        waited = time.monotonic() - began
        for t, when in whens:
            t.reschedule(None if when is None else when + waited)
        if clock is not None:
            clock.queued_s += waited


ATTEMPT_CLOCK: ContextVar[AttemptClock | None] = ContextVar("bench_attempt_clock", default=None)


def queued_so_far() -> float:
    """The current attempt's queue time so far (0 outside an attempt)."""
    clock = ATTEMPT_CLOCK.get()
    return clock.queued_s if clock is not None else 0.0


__all__ = ["ATTEMPT_CLOCK", "AttemptClock", "iso_z", "queued", "queued_so_far", "utc_now"]
