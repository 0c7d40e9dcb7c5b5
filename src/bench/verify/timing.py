"""The times a run records, held to what its own recording and its bundle allow.

Latency and clock times are the submitter's own measurements (docs/LIMITS.md): verification
cannot say they are true. It can say they agree with each other, so that the board's p95
latency and the transcript page's times are not lower or later than the very records beside
them say:

* an attempt's ``trace.latency_s`` (the board's latency, queue time excluded) is at least the
  sum of its model calls' own ``latency_s``, less ``SLACK_PER_CALL_S`` per call: the harness
  times the calls one after another inside the attempt, less the same queue time
  (``runner.attempt.TraceBuilder``) (``RECORD_INCONSISTENT``);
* an attempt finishes no earlier than it starts (``RECORD_INCONSISTENT``);
* an attempt its time limit stopped (its reason says so: the attempt's limit, or its seconds
  budget; the re-drive binds that reason to a recording that just ends) has a ``latency_s`` of
  at least that limit, less ``TIME_LIMIT_SLACK_S`` (``RECORD_INCONSISTENT``): the attempt is
  timed from before its limit starts, less only its queue time, and the limit stands still
  while the attempt queues (``core.clock.queued``). Such attempts are a slow model's slowest,
  so they set the board's p95; without this their latency could be lowered by hand while the
  reason beside them still named the limit. (No upper bound: an in-process agent that never
  yields is not stopped at its limit, and a busy event loop fires the limit late.)
* every time of the status and of every attempt is UTC (``RECORD_INVALID``, as config.json's
  ``created_at``) and not after the bundle that holds it was made (the manifest's
  ``created_at``, with the clock skew verify allows: ``CREATED_IN_FUTURE``), and neither is
  the time its run id names.

No lower bound: a merged run's shards may start before the first shard's ``created_at``.

The order of status.json's own times (``started_at`` after ``finished_at``, or a run finished
before its last attempt did) is not checked: nothing the board or the transcript page shows
reads them. The row's date and the "latest run" choice come from config.json's
``created_at`` and the run id, the latency figures from each attempt's ``trace.latency_s``,
and the transcript page's times from the attempt itself (checked above). Only a local
report (``bench report`` of one's own run) prints a status time and wall time. A shipped merged
run (``smollm2-135m-llamacpp``) has a ``started_at`` before its config's ``created_at``, so
an order between the two would refuse honest merges.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from bench.records.bundle import ATTEMPTS, MANIFEST, STATUS, BundleManifest

from .codes import Code
from .failure import VerifyFailure
from .manifest import CLOCK_SKEW
from .records import BundleRun

if TYPE_CHECKING:
    from bench.records.run import AttemptRecord

SLACK_PER_CALL_S = 0.001
"""How far a call's recorded latency may pass its share of the attempt's. The harness rounds
each figure to the microsecond, so a real run needs a millionth of this; a millisecond per
call is the resolution of any clock, and what the adversarial fixtures need (they pin every
latency, the attempt's and each call's alike, to 0.001 s). Lowering every latency of a run
by a millisecond a call moves no figure the board prints (p95 in milliseconds)."""

TIME_LIMIT_SLACK_S = 0.1
"""How much sooner than its limit an attempt the limit stopped may say it stopped. asyncio
runs a timer up to its clock's resolution early, and the limit is kept by ``time.monotonic``
while latency is timed by ``time.perf_counter``: one nanosecond apart on Linux, but up to
about 16 ms each on Windows. A tenth of a second is a sliver of a real limit (a task's is
60 s unless it sets one), so a p95 lowered by it moves little."""


def _utc(value: datetime, path: Path, field: str) -> datetime:
    if value.utcoffset() != timedelta(0):
        raise VerifyFailure(
            Code.RECORD_INVALID,
            f"'{value.isoformat()}' is not a UTC time (bench run writes one ending in Z)",
            path=str(path),
            field=field,
        )
    return value


def _not_after(value: datetime, bundled: datetime, path: Path, field: str) -> None:
    if value > bundled + CLOCK_SKEW:
        raise VerifyFailure(
            Code.CREATED_IN_FUTURE,
            f"{value.isoformat()} is after the bundle that holds it was made "
            f"({bundled.isoformat()})",
            path=str(path),
            field=field,
        )


def _run_id_not_after(bundle: Path, run_id: str, bundled: datetime) -> None:
    """A run id names the time its run started (a merged run's: the merge), so a bundle
    cannot be made before it: a run id of 2999 in a bundle signed today is a name chosen to
    read as the newest run (the board shows it on the row; ids sort by time). No lower
    bound, as for every time here: a run id may look older than the run's ``created_at``.
    Digits that name no calendar time (``20261399T…``, ``99999999T…``: the id rule checks
    digits, not dates) are refused: they sort after every real time, so they were the way
    around the bound."""
    try:
        named = datetime.strptime(run_id[:16], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    except ValueError:
        raise VerifyFailure(
            Code.RECORD_INVALID,
            f"run id {run_id} names no calendar time (bench run names a run by the UTC time "
            "it started: YYYYMMDDTHHMMSSZ)",
            path=str(bundle / MANIFEST),
            field="run_id",
        ) from None
    _not_after(named, bundled, bundle / MANIFEST, "run_id")


def check_times(bundle: Path, run: BundleRun, manifest: BundleManifest) -> None:
    """Every recorded time UTC and not after the bundle; every attempt's latency at least
    that of its own model calls, and its end not before its start."""
    bundled = datetime.strptime(manifest.created_at, "%Y-%m-%dT%H:%M:%S%z")
    _run_id_not_after(bundle, manifest.run_id, bundled)
    status = run.status
    for name in ("started_at", "updated_at", "finished_at"):
        value = getattr(status, name)
        if value is not None:
            _not_after(_utc(value, bundle / STATUS, name), bundled, bundle / STATUS, name)
    for record in run.attempts:
        where = f"{record.task_id}#{record.repeat}"
        started = _utc(record.started_at, bundle / ATTEMPTS, f"{where}.started_at")
        finished = _utc(record.finished_at, bundle / ATTEMPTS, f"{where}.finished_at")
        _not_after(finished, bundled, bundle / ATTEMPTS, f"{where}.finished_at")
        if finished < started:
            raise VerifyFailure(
                Code.RECORD_INCONSISTENT,
                f"the attempt finished ({finished.isoformat()}) before it started "
                f"({started.isoformat()})",
                path=str(bundle / ATTEMPTS),
                field=f"{where}.finished_at",
            )
        trace = record.trace
        calls = sum(exchange.latency_s for exchange in trace.exchanges)
        if trace.latency_s + SLACK_PER_CALL_S * len(trace.exchanges) < calls:
            raise VerifyFailure(
                Code.RECORD_INCONSISTENT,
                f"the attempt's latency ({trace.latency_s:g} s) is less than its own model "
                f"calls took ({calls:g} s in all)",
                path=str(bundle / ATTEMPTS),
                field=f"{where}.trace.latency_s",
            )


def check_time_limit(bundle: Path, record: AttemptRecord, limit_s: float, reason: str) -> None:
    """An errored or over-budget attempt whose reason is ``reason``, the words its time limit
    of ``limit_s`` seconds gives when it stops an attempt (``binding._timeout_reason``), ran
    at least that long: its ``trace.latency_s`` is at least ``limit_s`` less
    ``TIME_LIMIT_SLACK_S`` (``RECORD_INCONSISTENT`` otherwise)."""
    if record.outcome not in ("errored", "over_budget") or record.reason != reason:
        return
    latency = record.trace.latency_s
    if latency + TIME_LIMIT_SLACK_S < limit_s:
        raise VerifyFailure(
            Code.RECORD_INCONSISTENT,
            f"its time limit ({limit_s:g} s) stopped the attempt (its reason says so), yet "
            f"its latency is {latency:g} s: an attempt is timed from before its limit starts "
            "(less only queue time, which stops the limit too), so it ran at least its limit",
            path=str(bundle / ATTEMPTS),
            field=f"{record.task_id}#{record.repeat}.trace.latency_s",
        )


__all__ = ["SLACK_PER_CALL_S", "TIME_LIMIT_SLACK_S", "check_time_limit", "check_times"]
