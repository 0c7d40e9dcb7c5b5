"""Requests in flight at one server, abandoned ones included.

Why: a server such as llama-cpp-python answers one request at a time and does not stop
generating a plain (non-streamed) answer when the client goes away. An attempt that timed out
mid-call therefore leaves the server busy, and the next attempt's request used to wait behind
that leftover work inside the server, its clock running: it was charged latency, often a
timeout, for work it never asked for.

What ``InFlight`` does, once a run has sized it (``size_for``, the run's concurrency, lowered
by the target's ``max_in_flight``):

- every HTTP attempt of a model call takes a slot first and gives it back when its response is
  read; waiting for a slot is *queue time*: recorded on the attempt's clock
  (``bench.core.clock.AttemptClock``), kept out of latency, and the attempt's timeout and the
  call's deadline are pushed back by as much;
- a plain request abandoned from outside its call (the attempt's timeout, a stopped agent
  session) is not closed: it keeps its slot and is read to the end in the background
  (``draining``), for at most what is left of its own ``timeouts.request_s``, so the next
  request reaches an idle server. Its answer is discarded;
- a streamed request is closed at once: closing a stream stops the server's generation
  (llama-cpp-python, vLLM, and the gateways in front of them);
- a request abandoned by its own ``request_s`` is closed too, as before: the bound the target
  file sets for one HTTP attempt is not stretched, and a retry of the same call that then waits
  inside the server is that call's own time.

Unsized (a target used outside a run: ``bench probe``, direct calls) and without
``max_in_flight``, nothing is limited and nothing drains.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from bench.core.clock import queued


class InFlight:
    """The request slots of one endpoint. Shared by the concurrent attempts of a run (one
    event loop)."""

    def __init__(self, max_in_flight: int | None) -> None:
        self._fixed = max_in_flight
        self.limit: int | None = max_in_flight
        self._slots: asyncio.Semaphore | None = None
        self.draining: set[asyncio.Task[Any]] = set()
        self.abandoned = 0
        """Plain requests abandoned from outside their call and read out in the background."""

    def size_for(self, concurrency: int) -> None:
        """Before a run: at most ``concurrency`` requests at the server, or fewer when the
        target says so (``max_in_flight``). Abandoned requests count until they drain."""
        self.limit = min(concurrency, self._fixed) if self._fixed else concurrency
        self._slots = None

    @property
    def drains(self) -> bool:
        """Whether abandoned plain requests are read out (only when the slots are limited)."""
        return self.limit is not None

    async def take(self, *timeouts: asyncio.Timeout | None) -> float:
        """Take a slot; the seconds waited for it (0.0 when one was free). A wait is queue
        time: the current attempt's timeout and ``timeouts`` stand still while it lasts, and
        the attempt's clock records it (``bench.core.clock.queued``)."""
        if self.limit is None:
            return 0.0
        slots = self._slots
        if slots is None:
            slots = self._slots = asyncio.Semaphore(self.limit)
        if not slots.locked():
            await slots.acquire()  # free: returns without yielding
            return 0.0
        began = time.monotonic()
        async with queued(*timeouts):
            await slots.acquire()
        return time.monotonic() - began

    def give(self) -> None:
        if self._slots is not None:
            self._slots.release()

    def settled(self, task: asyncio.Task[Any]) -> None:
        """A slotted request finished (answered, failed, or drained): its slot is free. Its
        exception is retrieved here, so a drained request's failure is never logged."""
        self.give()
        if not task.cancelled():
            task.exception()

    def abandon(self, task: asyncio.Task[Any], drain_s: float) -> None:
        """Keep reading ``task``'s response in the background for at most ``drain_s`` more,
        holding its slot; then close it."""
        self.abandoned += 1
        if drain_s <= 0:
            task.cancel()
            return
        handle = asyncio.get_running_loop().call_later(drain_s, task.cancel)
        self.draining.add(task)

        def drained(done: asyncio.Task[Any]) -> None:
            handle.cancel()
            self.draining.discard(done)

        task.add_done_callback(drained)

    async def aclose(self) -> None:
        """The run is over: close whatever is still draining."""
        pending = list(self.draining)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)


__all__ = ["InFlight"]
