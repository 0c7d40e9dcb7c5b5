"""The run loop: schedule attempts under a concurrency limit, decide each outcome, score it,
write it once, and keep the run's status honest (``started`` → ``complete`` / ``partial``).

The event loop is the run's bottleneck once the entrant is slow and the concurrency high, so
the disk work runs on a writer thread: an attempt counts as done once its file is written
and fsynced there. ``status.json`` is rewritten at most every ``STATUS_EVERY_S`` while
attempts finish, and always at the end or when the run fails; resume goes by the attempt
files, never by the status counts (docs/DECISIONS.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import os
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bench.core.clock import ATTEMPT_CLOCK, utc_now
from bench.core.errors import EntrantError, HarnessFault, fault_code
from bench.corpus import Corpus, CorpusLibrary
from bench.records.run import AttemptKey, AttemptRecord, RunConfig, RunStatus
from bench.records.store import RunDir, exchange_lines
from bench.scorers import safety_violations, score_attempt
from bench.targets.base import Target, is_agent
from bench.targets.cassette import current_attempt
from bench.targets.probe import server_root
from bench.targets.refusals import FieldRefused
from bench.tasks.expectations import default_axis
from bench.tasks.model import Task
from bench.world import World

from .agent import ToolServer
from .attempt import Attempt, EntrantFault
from .budget import Meter, OverBudget, effective_budget
from .progress import NullProgress, ProgressSink
from .refusal_stop import RefusalWatch, RunRefused
from .size import SizeWatch

if TYPE_CHECKING:  # the judge's client and calibration load only for a run with a judge
    from pathlib import Path

    from bench.scorers.judge.service import RunJudge

STATUS_EVERY_S = 1.0  # how often status.json follows the attempts while they finish
# One writer thread: more let fsyncs overlap, but each one also takes the GIL from the event
# loop between its syscalls, and 4 cost ~8 % more of a run's CPU than 1 with no more requests/s
# (docs/PERFORMANCE.md, issue 19, "Ninth step").
WRITER_THREADS = 1
# Finished attempts waiting for the writer, beyond the one it writes: a fast entrant (scripted,
# replay) can outrun the fsyncs, and without a bound every record of the run could queue.
WRITE_BACKLOG = 8


@dataclass(frozen=True)
class RunPlan:
    run: RunDir
    config: RunConfig
    tasks: tuple[Task, ...]
    target: Target
    corpora: CorpusLibrary
    judge: RunJudge | None = None
    tools: ToolServer | None = None  # serves agent-style targets' tools; one per run
    # Stop after this many attempts in a row could not connect at all (EndpointWatch); 0: never.
    stop_unreachable: int = 0
    # Stop at the first request the server refuses for a setting of meaning (RefusalWatch).
    stop_refused: bool = True
    # Told, once, when the run's records will not fit in a bundle (SizeWatch); None: not told.
    on_notice: Callable[[str], None] | None = None
    # A task's fingerprint as its task set made it at load (``TaskSet.fingerprint``); None:
    # made here, once per task and run.
    fingerprint_of: Callable[[Task], str] | None = None
    # Each task's world as the task set's check built it (by task id), taken for the task's
    # first attempt when built from the same task and corpus; None or missing: built here.
    built_worlds: Mapping[str, World] | None = None

    @functools.cached_property
    def config_fingerprint(self) -> str:
        return self.config.fingerprint()

    @functools.cached_property
    def _task_fingerprints(self) -> dict[str, tuple[Task, str]]:
        return {}

    @functools.cached_property
    def _worlds(self) -> dict[str, tuple[Task, Corpus | None, World]]:
        return {}

    def world(self, task: Task, corpus: Corpus | None) -> World:
        """A fresh world for one attempt at ``task``; the task's tools are checked and built
        once per run (``World.fresh``), not once per attempt."""
        known = self._worlds.get(task.id)
        if known is None or known[0] is not task or known[1] is not corpus:
            built = self.built_worlds.get(task.id) if self.built_worlds is not None else None
            if built is None or not built.built_for(task, corpus):
                built = World(task, corpus)
            known = (task, corpus, built)
            self._worlds[task.id] = known
        return known[2].fresh()

    def task_fingerprint(self, task: Task) -> str:
        """``task.fingerprint()``, computed once per task and run, not once per repeat."""
        known = self._task_fingerprints.get(task.id)
        if known is None or known[0] is not task:
            made = self.fingerprint_of(task) if self.fingerprint_of else task.fingerprint()
            known = (task, made)
            self._task_fingerprints[task.id] = known
        return known[1]


async def perform_attempt(plan: RunPlan, task: Task, repeat: int) -> AttemptRecord:
    """Run, decide the outcome of, and score one attempt. Never raises for the entrant's sake."""
    record, _, _ = await _perform(plan, task, repeat)
    return record


async def _perform(
    plan: RunPlan, task: Task, repeat: int
) -> tuple[AttemptRecord, bool, FieldRefused | None]:
    """``perform_attempt``, whether the attempt errored without any answer from the
    endpoint (every HTTP attempt of its one call failed to connect: ``EntrantFault``), and
    the server's refusal of a setting of meaning that ended it (``RefusalWatch``)."""
    config = plan.config
    started = utc_now()
    budget = effective_budget(task.budget, config.task_budget)
    corpus = plan.corpora.corpus(task.corpus) if task.corpus else None
    attempt = Attempt(
        task=task,
        target=plan.target,
        world=plan.world(task, corpus),
        meter=Meter(budget),
        pricing=plan.target.spec.pricing,
        tools=plan.tools,
    )
    # --timeout replaces the task's own limit, up or down (a slow local engine needs more than
    # a task's default). The config records it; it is not in the cohort key, so the board names
    # rows ranked beside others that kept the tasks' own limits (board.rows.limit_notes).
    limits = [config.attempt_timeout_s or task.limits.timeout_s]
    seconds_cap = budget.seconds
    timeout = min([*limits, seconds_cap] if seconds_cap is not None else limits)
    outcome, reason, exceeded = "scored", None, []
    fault: str | None = None
    unreachable = False
    refusal: FieldRefused | None = None
    token = current_attempt.set((task.id, repeat))
    clock = ATTEMPT_CLOCK.set(attempt.trace.clock)  # queue time: not latency, not the timeout's
    try:
        async with asyncio.timeout(timeout) as limit:  # in this task: no task made per attempt
            attempt.trace.clock.timeout = limit
            await attempt.run()
    except OverBudget as exc:
        outcome, reason, exceeded = "over_budget", exc.detail, exc.exceeded
    except TimeoutError:
        if seconds_cap is not None and seconds_cap <= min(limits):
            outcome, reason, exceeded = (
                "over_budget",
                f"over budget: seconds > {seconds_cap}",
                ["seconds"],
            )
        else:
            outcome, reason = "errored", f"no final answer within {timeout:g}s (attempt timeout)"
    except EntrantFault as exc:
        outcome, reason, unreachable = "errored", exc.reason, exc.unreachable
    except HarnessFault as exc:
        outcome, reason, fault = "harness_fault", f"{exc.code}: {exc.render()}", fault_code(exc)
        refusal = exc if isinstance(exc, FieldRefused) else None
    except Exception as exc:  # a bug on our side is never charged to the entrant
        outcome, reason = "harness_fault", f"{type(exc).__name__}: {exc}"
        fault = fault_code(exc)
    finally:
        current_attempt.reset(token)
        ATTEMPT_CLOCK.reset(clock)
    trace = attempt.trace.build()
    value: float | None = None
    passed: bool | None = None
    verdicts = []
    known = corpus.passage_ids if corpus is not None else frozenset()
    unsafe: tuple[str, ...] = ()
    if outcome != "harness_fault":
        # Unsafe actions count whatever happened next: a refund that ran is a refund.
        unsafe = safety_violations(task, trace, ())
    if outcome == "scored":
        if plan.judge is not None:
            # A judge call blocks on HTTP: score in a thread so other attempts keep going.
            scored = await asyncio.to_thread(score_attempt, task, trace, known, judge=plan.judge)
        else:
            scored = score_attempt(task, trace, known)
        unsafe = scored.safety_violations
        verdicts = list(scored.verdicts)
        if scored.value is None:
            outcome = "not_scorable"
            reason = "no expectation could decide: " + "; ".join(scored.undecided)
        else:
            value, passed = scored.value, scored.passed
    elif outcome in ("errored", "over_budget"):
        value, passed = 0.0, False
    record = AttemptRecord(
        run_id=config.run_id,
        config_fingerprint=plan.config_fingerprint,
        task_id=task.id,
        task_fingerprint=plan.task_fingerprint(task),
        family=task.family,
        split=task.split,
        language=task.language,
        repeat=repeat,
        outcome=outcome,
        value=value,
        passed=passed,
        verdicts=verdicts,
        reason=reason,
        fault=fault,
        exceeded=exceeded,
        safety_violations=list(unsafe),
        axes=sorted({default_axis(expectation) for expectation in task.expectations}),
        started_at=started,
        finished_at=utc_now(),
        trace=trace,
    )
    return record, unreachable, refusal


class EndpointLost(EntrantError):
    """A run stopped because its endpoint went away (``EndpointWatch``): it stays ``started``,
    with what it wrote, for ``bench run --resume`` once the server is back."""

    default_code = "ENDPOINT_LOST"

    def __init__(self, message: str, *, run_id: str, done: int, total: int) -> None:
        super().__init__(message)
        self.run_id, self.done, self.total = run_id, done, total


@dataclass
class EndpointWatch:
    """Stops a run whose endpoint went away: after ``limit`` attempts in a row, in the order
    they finish, that errored without any answer from it (every HTTP attempt of their one
    call failed to connect; docs/DECISIONS.md 52). Such an attempt is held back, unwritten,
    until the next one to finish says which it was: an attempt with any other end (the
    endpoint answered something) writes the held ones as the errored attempts they are; the
    ``limit``-th in a row stops the run and leaves them, with every attempt not started and
    every one in flight that ends the same way, for ``--resume``. Attempts in flight are not
    cancelled: one the endpoint answered anything is written, whatever it ended with."""

    limit: int
    held: list[AttemptRecord] = dataclasses.field(default_factory=list)
    stopped: bool = False
    left: int = 0  # attempts that ended without an answer after the stop (not written)
    reason: str = ""

    def see(self, record: AttemptRecord, unreachable: bool) -> list[AttemptRecord]:
        """The records to write now, in order: none, this one, or the held ones and this."""
        if not unreachable:
            held, self.held = self.held, []
            return [*held, record]
        if self.stopped:
            self.left += 1
            return []
        self.held.append(record)
        if len(self.held) >= self.limit:
            self.stopped = True
            self.reason = record.reason or ""
            self.left += len(self.held)
            self.held = []
        return []

    def release(self) -> list[AttemptRecord]:
        """The held records, at the end of a run that was not stopped: errored, written."""
        held, self.held = self.held, []
        return held


def _spend(meter: Meter, record: AttemptRecord) -> None:
    meter.tokens += record.trace.usage.total
    meter.tool_calls += len(record.trace.tool_calls)
    if record.trace.cost_usd is not None:
        meter.dollars += record.trace.cost_usd


async def execute(plan: RunPlan, progress: ProgressSink | None = None) -> RunStatus:
    """Run every attempt the run directory does not have yet; return the final status."""
    if is_agent(plan.target) and plan.tools is None:
        server = await ToolServer().start()
        try:
            return await execute(dataclasses.replace(plan, tools=server), progress)
        finally:
            await server.aclose()
    sink = progress or NullProgress()
    config = plan.config
    # At most `concurrency` requests at the server, abandoned ones included (targets/inflight.py).
    limit_in_flight = getattr(plan.target, "limit_in_flight", None)
    if limit_in_flight is not None:
        limit_in_flight(config.concurrency)
    existing = plan.run.attempts()
    done_keys = {record.key for record in existing}
    work = [
        (task, repeat)
        for task in plan.tasks
        for repeat in range(config.repeats)
        if (task.id, repeat) not in done_keys
    ]
    total = len(plan.tasks) * config.repeats
    status = plan.run.status()
    run_meter = Meter(config.run_budget, seconds=status.elapsed_s)
    for record in existing:
        _spend(run_meter, record)
    # The cassette is written at the end from each attempt's exchange lines (made once, for
    # the attempt file, on the writer thread): re-reading every attempt file cost ~2 s per
    # 1,000 attempts. They wait compressed in an anonymous temporary file (_Spool): held as
    # text they were a third of a long run's memory, and compressed still 1 MiB per 860.
    spool = _Spool(plan.run.path) if config.record_cassette else None
    size = SizeWatch(total) if plan.on_notice is not None else None
    for r in existing if spool is not None or size is not None else ():
        lines = exchange_lines(r)
        if spool is not None:
            spool.add(r.task_id, r.repeat, _pack(lines))
        if size is not None and plan.on_notice is not None:
            for text in size.add(r.task_id, r.repeat, lines):
                plan.on_notice(text)
    done = len(done_keys)
    skipped: list[AttemptKey] = []
    exhausted_reason: list[str] = []
    gate = asyncio.Semaphore(config.concurrency)
    status_lock = asyncio.Lock()
    watch = EndpointWatch(plan.stop_unreachable) if plan.stop_unreachable > 0 else None
    refusals = RefusalWatch() if plan.stop_refused else None
    session_start = time.perf_counter()
    status_written = session_start
    loop = asyncio.get_running_loop()
    writer = ThreadPoolExecutor(max_workers=WRITER_THREADS, thread_name_prefix="bench-writer")
    sink.started(config.run_id, total, done)

    files_written = [0]  # this session's attempt files, counted on the writer thread itself
    count_lock = threading.Lock()

    def elapsed() -> float:
        """The wall time of the run's attempts, every session's; followed by each status
        write, so an interrupted run says how long it ran (never the 0 it started with)."""
        return round(status.elapsed_s + (time.perf_counter() - session_start), 6)

    def current() -> RunStatus:
        return status.model_copy(
            update={"attempts_done": done, "updated_at": utc_now(), "elapsed_s": elapsed()}
        )

    def write(record: AttemptRecord) -> list[str]:
        """On the writer thread: the attempt's file, its cassette lines, and what the size
        watch has to say (printed by ``keep``, on the loop's thread)."""
        lines = exchange_lines(record)
        plan.run.write_attempt(record, lines)
        with count_lock:
            files_written[0] += 1
        if spool is not None:
            spool.add(record.task_id, record.repeat, _pack(lines))
        return size.add(record.task_id, record.repeat, lines) if size is not None else []

    async def one(task: Task, repeat: int) -> None:
        async with gate:
            if (watch is not None and watch.stopped) or (refusals is not None and refusals.stopped):
                return  # left for --resume, as an interrupted run leaves it
            run_meter.seconds = status.elapsed_s + (time.perf_counter() - session_start)
            spent = run_meter.exhausted()
            if spent:
                if not exhausted_reason:
                    exhausted_reason.append("run budget: " + "; ".join(t for _, t in spent))
                skipped.append(AttemptKey(task_id=task.id, repeat=repeat))
                sink.skipped(task.id, repeat, exhausted_reason[0])
                return
            record, unreachable, refusal = await _perform(plan, task, repeat)
            # Spent before anything yields: an attempt that starts next sees this one's
            # tokens and dollars.
            _spend(run_meter, record)
        # The slot bounds what talks to the entrant, not the disk: the next attempt starts
        # while this file is written (docs/DECISIONS.md 27). Done counts written files only.
        kept = watch.see(record, unreachable) if watch is not None else [record]
        if refusals is not None and not refusals.keeps(record, refusal):
            kept = [other for other in kept if other is not record]
        for one_kept in kept:
            await keep(one_kept)

    async def keep(record: AttemptRecord) -> None:
        nonlocal done, status_written
        said = await loop.run_in_executor(writer, write, record)
        if said and plan.on_notice is not None:
            for text in said:
                plan.on_notice(text)
        done += 1
        sink.attempt(record, done, total)
        if time.perf_counter() - status_written >= STATUS_EVERY_S and not status_lock.locked():
            async with status_lock:  # one status write at a time: never an older over a newer
                status_written = time.perf_counter()
                await loop.run_in_executor(writer, plan.run.write_status, current())

    # A fixed set of workers takes the attempts in order, each holding its attempt until the
    # file is written (``concurrency`` of them talking to the entrant, WRITE_BACKLOG more
    # writing): one coroutine per attempt, all created at once, held ~1 KB each for the whole
    # run (1 MiB per 1,000 attempts; docs/PERFORMANCE.md, issue 19).
    queue = iter(work)

    async def worker() -> None:
        for task, repeat in queue:  # one event-loop thread: next() never races
            await one(task, repeat)

    try:
        slots = min(len(work), config.concurrency + WRITE_BACKLOG)
        pending = [asyncio.ensure_future(worker()) for _ in range(slots)]
        try:
            await asyncio.gather(*pending)
        except BaseException:
            for future in pending:
                future.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            raise
        refused = refusals is not None and refusals.stopped
        if watch is not None and not watch.stopped and not refused:
            for record in watch.release():
                await keep(record)
    except BaseException:
        writer.shutdown(wait=True)
        if spool is not None:
            spool.close()
        # A write that finished after its attempt was cancelled is on disk: count it.
        done = len(done_keys) + files_written[0]
        with contextlib.suppress(Exception):  # the run's own error is the one to report
            plan.run.write_status(current())
        raise
    writer.shutdown(wait=True)
    if refusals is not None and refusals.stopped:
        raise _refused(plan, refusals, spool, current(), done, total)
    if watch is not None and watch.stopped:
        if spool is not None:
            spool.close()  # no cassette yet: the run is not over (as after Ctrl-C)
        plan.run.write_status(current())
        raise _lost(plan, watch, done, total)
    finished = utc_now()
    final = status.model_copy(
        update={
            "status": "partial" if skipped else "complete",
            "attempts_done": done,
            "skipped": skipped,
            "partial_reason": exhausted_reason[0] + f"; {len(skipped)} attempt(s) skipped"
            if skipped
            else None,
            "updated_at": finished,
            "finished_at": finished,
            "elapsed_s": elapsed(),
            "judge_usage": plan.judge.usage() if plan.judge is not None else None,
        }
    )
    if spool is not None:
        try:
            plan.run.write_cassette_lines(spool.lines())
        finally:
            spool.close()
    plan.run.write_status(final)
    sink.finished(final)
    return final


def _lost(plan: RunPlan, watch: EndpointWatch, done: int, total: int) -> EndpointLost:
    run_id = plan.config.run_id
    url = plan.target.spec.base_url
    where = f" to {server_root(url)}" if url else ""
    return EndpointLost(
        f"run {run_id} stopped: {watch.limit} attempt(s) in a row could not connect{where} "
        f"({watch.reason}); it keeps the {done} of {total} attempt(s) written, the {watch.left} "
        "that could not connect are not: once the server is back, run the same command with "
        f"--resume {run_id} to finish it (--stop-unreachable 0: never stop)",
        run_id=run_id,
        done=done,
        total=total,
    )


def _refused(
    plan: RunPlan,
    refusals: RefusalWatch,
    spool: _Spool | None,
    status: RunStatus,
    done: int,
    total: int,
) -> RunRefused:
    """The run's status at a refusal's stop (``started``, saying why), and its error."""
    if spool is not None:
        spool.close()  # no cassette: the run is not over (as after Ctrl-C)
    plan.run.write_status(status.model_copy(update={"partial_reason": refusals.reason()}))
    config = plan.config
    return refusals.error(config.run_id, config.target_file, done, total)


class _Spool:
    """Each attempt's packed exchange lines, waiting for the cassette in an anonymous temporary
    file (``tempfile.TemporaryFile``: no name, gone when closed or when the process ends) in
    the run's own directory, which the run already writes; in memory only where each
    attempt's bytes are. Added to from the writer threads."""

    def __init__(self, where: Path) -> None:
        self._file = tempfile.TemporaryFile(dir=where)  # noqa: SIM115 (closed by close(), in every exit)
        self._where: list[tuple[str, int, int, int]] = []
        self._lock = threading.Lock()

    def add(self, task_id: str, repeat: int, packed: bytes) -> None:
        with self._lock:
            offset = self._file.seek(0, os.SEEK_END)
            self._file.write(packed)
            self._where.append((task_id, repeat, offset, len(packed)))

    def lines(self) -> Iterator[tuple[str, int, str]]:
        """Every exchange line, attempts in (task id, repeat) order, each attempt's in its own."""
        with self._lock:
            self._file.flush()
            where = sorted(self._where, key=lambda entry: (entry[0], entry[1]))
        for task_id, repeat, offset, size in where:
            self._file.seek(offset)
            for line in _unpack(self._file.read(size)):
                yield task_id, repeat, line

    def close(self) -> None:
        self._file.close()


def _pack(lines: list[str]) -> bytes:
    """An attempt's exchange lines, held until the cassette is written. JSON lines hold no
    raw newline, so joining on one is undone by splitting on it."""
    return zlib.compress("\n".join(lines).encode(), 1) if lines else b""


def _unpack(packed: bytes) -> list[str]:
    return zlib.decompress(packed).decode().split("\n") if packed else []


__all__ = ["EndpointLost", "EndpointWatch", "RunPlan", "execute", "perform_attempt"]
