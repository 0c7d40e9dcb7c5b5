"""Starting and resuming runs: everything is validated before anything is written."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import gc
import os
from collections.abc import Callable, Coroutine, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from bench import HARNESS_VERSION
from bench.core.budget import Budget
from bench.core.clock import utc_now
from bench.core.errors import InputError, RunStoreError, UsageError
from bench.core.ids import new_run_id
from bench.core.rng import DEFAULT_SEED, MAX_SEED
from bench.corpus import CorpusLibrary
from bench.records.run import (
    AttemptRecord,
    RunConfig,
    RunStatus,
    TaskSetRef,
    TaskSubset,
    attempt_filename,
)
from bench.records.store import RunDir, RunLock, RunStore
from bench.targets.base import Target, TargetSpec
from bench.targets.load import build_target, read_target_spec
from bench.targets.probe import server_identity
from bench.tasks.load import TaskSet, load_task_set
from bench.world import World, check_task_set

from .engine import RunPlan, execute
from .progress import ProgressSink
from .shards import Shard, ShardInfo, empty_shard, read_shard_info, write_shard_info

if TYPE_CHECKING:  # the judge's client and calibration load only for a run with a judge
    from bench.scorers.judge.service import RunJudge

T = TypeVar("T")


@dataclass(frozen=True)
class RunRequest:
    """What ``bench run`` was asked to do."""

    tasks: Path
    target_file: Path | None = None
    replay: str | None = None
    corpus_root: Path | None = None
    split: str | None = None
    task_ids: tuple[str, ...] | None = None
    repeats: int = 1
    concurrency: int = 4
    attempt_timeout_s: float | None = None
    task_budget: Budget = field(default_factory=Budget)
    run_budget: Budget = field(default_factory=Budget)
    seed: int = DEFAULT_SEED
    runs_dir: Path = Path("runs")
    judge_file: Path | None = None
    judge_cache: Path | None = None
    target_overrides: Mapping[str, str | None] | None = None
    dotenv: Path | None = None
    # Run only this slice of the selection (docs/RUNS.md, Shards).
    shard: Shard | None = None
    # Only tasks written in this language (e.g. "tr").
    language: str | None = None
    # How long to wait for an HTTP target's server that refuses connections (not started
    # yet) or says it is loading (HTTP 503), before anything is written.
    wait_ready_s: float = 120.0
    # Refuse a server that accepts no connection (after wait_ready_s) before anything is
    # written. The live verifier's re-run turns it off: it reports an unreachable endpoint from
    # the attempts themselves.
    require_connection: bool = True
    # Stop the run, resumable, after this many attempts in a row could not connect to the
    # endpoint at all (runner.engine.EndpointWatch; docs/DECISIONS.md 52); 0: never.
    stop_unreachable: int = 5
    # Told once when the run waits for its server (``bench run`` prints it to stderr).
    on_notice: Callable[[str], None] | None = None


@dataclass(frozen=True)
class Prepared:
    config: RunConfig
    tasks: TaskSet
    target: Target
    judge: RunJudge | None = None
    shard: ShardInfo | None = None
    # The corpora as the task set's check read and indexed them; the run uses them again
    # instead of reading and indexing each one a second time. None: read when the run starts.
    corpora: CorpusLibrary | None = None
    # Each task's world as the check built it (by task id): the run starts from these instead
    # of building each world a second time. None: built when the run starts.
    worlds: dict[str, World] | None = None

    def first_status(self) -> RunStatus:
        """The status a new run is created with: started, nothing done yet."""
        now = utc_now()
        return RunStatus(
            run_id=self.config.run_id,
            status="started",
            config_fingerprint=self.config.fingerprint(),
            started_at=now,
            updated_at=now,
            attempts_total=len(self.tasks.tasks) * self.config.repeats,
        )

    def close(self) -> None:
        if self.judge is not None:
            self.judge.close()


def _judge(request: RunRequest) -> RunJudge | None:
    if request.judge_file is None:
        return None
    from bench.scorers.judge.service import open_judge

    cache = request.judge_cache or request.runs_dir / "judge-cache.sqlite3"
    cache.parent.mkdir(parents=True, exist_ok=True)
    return open_judge(request.judge_file, cache_path=cache)


EVENT_LOOP_ENV = "BENCH_EVENT_LOOP"


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The run's event loop: uvloop's where it is installed (a dependency except on Windows),
    the standard library's otherwise or with ``BENCH_EVENT_LOOP=asyncio``. A run spends most
    of its own time in asyncio's machinery (sockets, timers, callbacks); uvloop's took 5-6 %
    off the time and the CPU of a 1,000-attempt run (docs/DECISIONS.md 26). Nothing recorded
    depends on which loop ran."""
    if os.environ.get(EVENT_LOOP_ENV, "").strip().lower() == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def _run_on_loop(coroutine: Coroutine[Any, Any, T]) -> T:
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(coroutine)


def _in_loop(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine to the end from sync code, in a thread when a loop already runs here
    (a notebook, a Playwright session)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run_on_loop(make())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(_run_on_loop, make()).result()


def _target(request: RunRequest, store: RunStore) -> tuple[Target, str, dict[str, Any] | None]:
    """The entrant, how it was named, and what its server declared (docs/TARGETS.md)."""
    if (request.target_file is None) == (request.replay is None):
        raise UsageError("give exactly one of --target FILE or --replay RUN")
    if request.target_file is not None:
        spec = read_target_spec(request.target_file)
        built = build_target(
            spec,
            request.target_file.parent,
            request.target_file,
            dotenv=request.dotenv,
            overrides=request.target_overrides,
        )
        identity = _in_loop(
            lambda: server_identity(
                built.spec,
                wait_s=request.wait_ready_s,
                on_wait=request.on_notice,
                refuse_unreachable=request.require_connection,
            )
        )
        server = identity.model_dump(mode="json") if identity is not None else None
        return built, str(request.target_file), server
    original = store.resolve(request.replay or "")
    if original.config().target_kind == "http-agent":
        raise UsageError(
            f"run {original.run_id} is an http-agent run: an agent's own loop has no cassette "
            "to replay (its turns are recorded in the traces)",
            code="REPLAY_AGENT",
            field="--replay",
        )
    recorded = dict(original.config().target)
    recorded.update({"kind": "cassette", "callable": None, "cassette": str(original.path)})
    spec = TargetSpec.model_validate(recorded)
    # A replay keeps what the recorded server declared: it belongs to the same cohort.
    built = build_target(spec, Path("."), original.path)
    return built, f"replay:{original.run_id}", original.config().server


def _subset(whole: TaskSet, chosen: TaskSet, request: RunRequest) -> TaskSubset | None:
    """What a ``--task``/``--language`` selection left out of the split, if anything."""
    if len(chosen.tasks) == len(whole.tasks):
        return None
    filters = (("task", request.task_ids), ("language", request.language))
    by = [name for name, used in filters if used]
    return TaskSubset(
        tasks=len(chosen.tasks), of=len(whole.tasks), of_hash=whole.content_hash(), by=by
    )


def prepare(
    request: RunRequest, store: RunStore, run_id: str | None = None, created: Any = None
) -> Prepared:
    """Load and check the tasks and the target and build the run's config. Writes nothing."""
    if request.repeats < 1:
        raise UsageError("--repeats must be at least 1")
    if request.concurrency < 1:
        raise UsageError("--concurrency must be at least 1")
    if request.stop_unreachable < 0:
        raise UsageError("--stop-unreachable must be 0 (never) or more")
    if not 0 <= request.seed <= MAX_SEED:
        raise UsageError(
            f"--seed must be a whole number from 0 to 2**53 - 1, got {request.seed}",
            code="SEED_INVALID",
            field="--seed",
        )
    whole = load_task_set(request.tasks, request.corpus_root).select(request.split)
    task_set = whole.select(None, request.task_ids, request.language)
    if request.task_ids:
        missing = sorted(set(request.task_ids) - set(task_set.by_id()))
        if missing:
            raise InputError(
                f"no task(s) {', '.join(missing)} in the selected set",
                code="TASK_NOT_FOUND",
                path=request.tasks,
            )
    if not task_set.tasks:
        chosen = [f"split '{request.split}'"] if request.split else []
        chosen += [f"language '{request.language}'"] if request.language else []
        languages = sorted({task.language for task in whole.tasks})
        known = f" (its languages: {', '.join(languages)})" if request.language else ""
        raise InputError(
            f"no tasks with {' and '.join(chosen) or 'the selection given'}{known}",
            code="TASKS_EMPTY",
            path=request.tasks,
        )
    # A judge decides only `judge` expectations: a run of a selection with none claims no
    # judge (bench verify refuses a claim that decided nothing). The whole selection decides,
    # so every shard of a run agrees.
    judged = any(e.type == "judge" for task in task_set.tasks for e in task.expectations)
    selection_hash = task_set.content_hash()  # a shard keeps the whole selection's hash
    subset = _subset(whole, task_set, request)
    shard: ShardInfo | None = None
    if request.shard is not None:
        all_ids = [task.id for task in task_set.tasks]
        mine = request.shard.select(all_ids)
        if not mine:
            raise empty_shard(request.shard, len(all_ids), request.tasks)
        task_set = task_set.select(None, mine)
        shard = ShardInfo(
            index=request.shard.index,
            count=request.shard.count,
            task_set_hash=selection_hash,
            task_ids=mine,
            all_task_ids=all_ids,
        )
    target, target_file, server = _target(request, store)
    worlds: dict[str, World] = {}
    # every corpus document parses and every world builds (and the run keeps the worlds)
    corpora = check_task_set(task_set, worlds)
    spec = target.spec
    judge = _judge(request) if judged else None
    if request.judge_file is not None and not judged and request.on_notice is not None:
        request.on_notice(
            "--judge: no task of this selection has a judge expectation, so the run is made "
            "without a judge and claims none"
        )
    config = RunConfig(
        run_id=run_id or new_run_id(),
        harness_version=HARNESS_VERSION,
        created_at=created or utc_now(),
        entrant=spec.entrant,
        display_name=spec.display_name,
        target_kind=spec.kind,
        target_file=target_file,
        target=spec.recorded(),  # no key; the base URL cut to scheme://host plus an endpoint id
        comparable=spec.comparable(),
        task_set=TaskSetRef(
            path=str(request.tasks),
            content_hash=selection_hash,
            split=request.split,
            task_ids=[task.id for task in task_set.tasks],
            language=request.language,
            subset=subset,
            suite=whole.suite.ref(),
        ),
        repeats=request.repeats,
        concurrency=request.concurrency,
        attempt_timeout_s=request.attempt_timeout_s,
        task_budget=request.task_budget,
        run_budget=request.run_budget,
        seed=request.seed,
        judge=judge.describe() if judge is not None else None,
        server=server,
    )
    return Prepared(config, task_set, target, judge, shard, corpora, worlds)


def start_run(
    request: RunRequest, progress: ProgressSink | None = None
) -> tuple[RunDir, RunStatus]:
    store = RunStore(request.runs_dir)
    prepared = prepare(request, store)
    status = prepared.first_status()
    try:
        with RunLock() as lock:  # held from before its config is written to its end
            run = store.create(prepared.config, status, lock)
            if prepared.shard is not None:
                write_shard_info(run.path, prepared.shard)
            return run, _go(run, prepared, progress, request.stop_unreachable, request.on_notice)
    finally:
        prepared.close()


def resume_run(
    ref: str, request: RunRequest, progress: ProgressSink | None = None
) -> tuple[RunDir, RunStatus]:
    """Continue a killed run: only missing attempts run; a changed config is refused."""
    store = RunStore(request.runs_dir)
    run = store.resolve(ref)
    with RunLock() as lock:
        # Before anything is read or written: a second resume of a run still running is
        # refused at once (RUN_LOCKED), not found out when an attempt file is already there.
        lock.acquire(run.path)
        old = run.config()
        recorded_shard = read_shard_info(run.path)
        if request.shard is None and recorded_shard is not None:
            request = dataclasses.replace(request, shard=recorded_shard.shard)  # same slice
        prepared = prepare(request, store, run_id=old.run_id, created=old.created_at)
        try:
            return run, _resume(
                run, old, prepared, progress, request.stop_unreachable, request.on_notice
            )
        finally:
            prepared.close()


def _resume(
    run: RunDir,
    old: RunConfig,
    prepared: Prepared,
    progress: ProgressSink | None,
    stop_unreachable: int,
    on_notice: Callable[[str], None] | None = None,
) -> RunStatus:
    before, after = old.resume_key(), prepared.config.resume_key()
    changed = sorted(key for key in before if before[key] != after.get(key))
    if changed:
        raise RunStoreError(
            f"the config changed since this run started ({', '.join(changed)}); "
            "start a new run instead",
            code="CONFIG_CHANGED",
            path=run.path,
        )
    by_id = prepared.tasks.by_id()
    records = run.attempts()
    for record in records:
        task = by_id.get(record.task_id)
        if task is None or prepared.tasks.fingerprint(task) != record.task_fingerprint:
            raise RunStoreError(
                f"task '{record.task_id}' changed since it was attempted",
                code="CONFIG_CHANGED",
                path=run.path,
            )
    status = run.status()
    _check_nothing_removed(run, old, status, records)
    run.write_status(
        status.model_copy(
            update={
                "status": "started",
                "sessions": status.sessions + 1,
                "skipped": [],
                "partial_reason": None,
                "run_budget": None
                if prepared.config.run_budget == old.run_budget
                else prepared.config.run_budget,
                "finished_at": None,
                "updated_at": utc_now(),
            }
        )
    )
    return _go(run, prepared, progress, stop_unreachable, on_notice)


def _check_nothing_removed(
    run: RunDir, config: RunConfig, status: RunStatus, records: list[AttemptRecord]
) -> None:
    """Refuse to resume a run whose status counted attempt files that are gone.

    ``attempts_done`` never counts a file before it is on disk (a kill leaves it lagging, never
    ahead), so fewer files than it counts means finished attempts were removed, and resuming
    would run them again: a failed attempt deleted and re-rolled until it passes
    (``ATTEMPT_REMOVED``). A crash is never confused with it: what a kill loses was never
    written, so never counted."""
    if len(records) >= status.attempts_done:
        return
    have = {record.key for record in records}
    gone = [
        attempt_filename(tid, r)
        for tid in config.task_set.task_ids
        for r in range(config.repeats)
        if (tid, r) not in have
    ]
    named = f" (of {', '.join(gone[:3])}{', ...' if len(gone) > 3 else ''})"
    raise RunStoreError(
        f"its status counts {status.attempts_done} attempt file(s) but {len(records)} are on "
        f"disk: {status.attempts_done - len(records)} finished attempt(s) were removed"
        f"{named if status.status == 'complete' else ''}, and a resume never runs a finished "
        "attempt again (that would re-roll it); start a new run",
        code="ATTEMPT_REMOVED",
        path=run.path / "attempts",
    )


def _go(
    run: RunDir,
    prepared: Prepared,
    progress: ProgressSink | None,
    stop_unreachable: int,
    on_notice: Callable[[str], None] | None = None,
) -> RunStatus:
    plan = RunPlan(
        run=run,
        config=prepared.config,
        tasks=prepared.tasks.tasks,
        target=prepared.target,
        corpora=prepared.corpora
        if prepared.corpora is not None
        else CorpusLibrary(prepared.tasks.corpus_root),
        judge=prepared.judge,
        stop_unreachable=stop_unreachable,
        on_notice=on_notice,
        fingerprint_of=prepared.tasks.fingerprint,
        built_worlds=prepared.worlds,
    )

    async def main() -> RunStatus:
        try:
            return await execute(plan, progress)
        finally:
            await prepared.target.aclose()

    with _paced_collector():
        return _in_loop(main)


@contextlib.contextmanager
def _paced_collector() -> Iterator[None]:
    """The cyclic garbage collector paced for a run: what exists before the run (modules, the
    task set, the corpora) is frozen out of its scans, and the youngest generation is collected
    every 50,000 net allocations instead of 700. A run allocates many short-lived objects that
    reference counting frees at once; at the default pace the collector kept re-scanning them.
    Alternating runs of ``benchmarks/bench_live.py --latency-run`` took 8.1-9.7 s with this and
    10.6-11.0 s without (docs/PERFORMANCE.md). Both settings are restored afterwards."""
    before = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(before[0], 50_000), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


__all__ = ["Prepared", "RunRequest", "prepare", "resume_run", "start_run"]
