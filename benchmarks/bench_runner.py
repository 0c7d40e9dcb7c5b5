"""Harness overhead: what ``bench.runner.start_run`` costs per attempt around an instant entrant.

Generates a synthetic task set in a temp dir (grounded-qa tasks over a small generated corpus,
plus a few tool-trajectory tasks, in the YAML format of ``examples/tasks``), runs it with an
in-process scripted entrant that answers at once (``respond`` below, loaded through a target
file like any entrant), and prints attempts/second, ms per attempt and bytes written per
attempt, at concurrency 1 and 4 and with repeats.

Every figure is set against baselines measured in the same process, in the same rounds,
because these machines are shared and noisy:

* responder only: the same responder called on the same requests (parsed from the run's own
  cassette before the clock starts), with no harness around it;
* fsync floor: the run's attempt records serialised with ``json.dumps`` and written to as
  many small files, each fsynced: the floor of a write-once run directory.

Two more rows attribute the harness time (they are not baselines): the run directory's
write protocol alone (``write_once`` of each attempt file and ``write_atomic`` of
``status.json``, with bytes prepared in advance), and serialising each ``AttemptRecord`` the
way the store does; one line prices the worker-thread hop ``ScriptedTarget`` makes for a
plain-function entrant, and a table times the pieces of a run one at a time. It also times
``bench.reports.summarize`` on a finished run and reports the peak RSS of a fresh process
that runs one ``start_run`` against one that only imports the same modules.

Prints figures; asserts nothing. Writes only under a temp dir (or ``--keep DIR``), offline.

    .venv/bin/python benchmarks/bench_runner.py               # 1-2 minutes on 2 cores
    .venv/bin/python benchmarks/bench_runner.py --quick       # smoke run, ~15 seconds
    .venv/bin/python benchmarks/bench_runner.py --profile     # + cProfile of one run
    .venv/bin/python benchmarks/bench_runner.py --with-async  # + a coroutine-entrant row
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import json
import os
import platform
import pstats
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from argparse import SUPPRESS
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator
from synthetic import NoAliases, refund_task, task_file_text

from bench.core.atomic import write_atomic, write_once
from bench.core.files import read_structured
from bench.core.trace import ToolCallRequest, Usage
from bench.corpus import CorpusLibrary
from bench.records import AttemptRecord, RunDir, RunStore
from bench.reports import summarize
from bench.runner import RunPlan, RunRequest, perform_attempt, prepare, start_run
from bench.targets import ModelRequest, ModelResponse, resolve_callable
from bench.tasks import BuiltinTool
from bench.world import SEARCH_DOCS_PARAMETERS, World, check_task_set

HERE = Path(__file__).resolve()

# --------------------------------------------------------------------------------------------
# The entrant: answers every request at once. Loaded by the harness through a target file
# (``callable: <this file>:respond``) and, for the baseline, through the same loader.
# --------------------------------------------------------------------------------------------

USAGE = Usage(prompt_tokens=120, completion_tokens=30)
_ORDER_RE = re.compile(r"order (\d+)")


def _call(request: ModelRequest, name: str, arguments: dict[str, Any]) -> ModelResponse:
    call = ToolCallRequest(id=f"c{len(request.messages)}", name=name, arguments=arguments)
    return ModelResponse(tool_calls=[call], usage=USAGE)


def respond(request: ModelRequest) -> ModelResponse:
    """Search then cite the top passage; or get_order then issue_refund then confirm."""
    last = request.messages[-1]
    if last.role == "user":
        if request.tools and request.tools[0].name == "search_docs":
            return _call(request, "search_docs", {"query": last.content})
        match = _ORDER_RE.search(last.content)
        return _call(request, "get_order", {"order_id": match.group(1) if match else ""})
    result = json.loads(last.content)
    if last.name == "search_docs":
        if not result:
            return ModelResponse(content="I don't know.", usage=USAGE)
        top = result[0]
        return ModelResponse(content=f"{top['text']} [{top['id']}]", usage=USAGE)
    if last.name == "get_order":
        return _call(request, "issue_refund", {"order_id": result["order_id"]})
    return ModelResponse(
        content=f"Refunded {result['amount']:.2f} EUR for order {result['order_id']} "
        f"({result['refund_id']}).",
        usage=USAGE,
    )


async def respond_async(request: ModelRequest) -> ModelResponse:
    """``respond`` as a coroutine: the harness awaits it instead of using a worker thread."""
    return respond(request)


# --------------------------------------------------------------------------------------------
# The synthetic task set.
# --------------------------------------------------------------------------------------------

_SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]


def _word(rng: random.Random, syllables: int) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(syllables))


@dataclass(frozen=True)
class TaskSetFiles:
    tasks_dir: Path
    target_sync: Path
    target_async: Path
    qa_tasks: int
    tool_tasks: int
    passages: int

    @property
    def total(self) -> int:
        return self.qa_tasks + self.tool_tasks


def generate(root: Path, qa_tasks: int, tool_tasks: int, docs: int, per_doc: int) -> TaskSetFiles:
    """Corpus under ``root/corpora``, tasks under ``root/tasks``, target files beside them."""
    rng = random.Random(20261202)
    common = [_word(rng, 2) for _ in range(300)]
    corpora, tasks_dir, targets = root / "corpora", root / "tasks", root / "targets"
    for directory in (corpora, tasks_dir, targets):
        directory.mkdir(parents=True)
    facts: list[tuple[str, str, str]] = []  # (passage id, unique name, code)
    used: set[str] = set()
    for d in range(docs):
        doc = f"doc-{d:02d}.md"
        lines = [f"# Generated document {d}", ""]
        for p in range(per_doc):
            name = _word(rng, 4)
            while name in used:
                name = _word(rng, 4)
            used.add(name)
            code = (
                f"{rng.choice('ABCDEFGHJK')}{rng.choice('LMNPQRSTUV')}-{rng.randrange(10**4):04d}"
            )
            filler = " ".join(rng.choice(common) for _ in range(rng.randint(30, 70)))
            title = f"Section {d}-{p} {name.capitalize()}"
            lines += [f"## {title}", "", f"The {name} code is {code}. {filler}.", ""]
            facts.append((f"{doc}#section-{d}-{p}-{name}", name, code))
        (corpora / doc).write_text("\n".join(lines), encoding="utf-8")
    corpus = [f"doc-{d:02d}.md" for d in range(docs)]
    qa: list[dict[str, Any]] = []
    for i in range(qa_tasks):
        passage, name, code = facts[i % len(facts)]
        qa.append(
            {
                "id": f"gqa-{i:04d}",
                "family": "grounded-qa",
                "split": "public",
                # Repeats of a fact get a different phrasing, so no two tasks are the same.
                "input": [{"role": "user", "content": f"What is the {name} code? ({i})"}],
                "tools": [{"builtin": "search_docs", "k": 3}],
                "corpus": corpus,
                "expectations": [
                    {"type": "contains", "value": code},
                    {"type": "citations", "required": [passage]},
                ],
                "because": "Synthetic benchmark task: one fact in one generated passage.",
                "budget": {"tool_calls": 2},
            }
        )
    tools = [refund_task(i) for i in range(tool_tasks)]
    for name, batch in (("grounded-qa.yaml", qa), ("tool-trajectory.yaml", tools)):
        if batch:
            (tasks_dir / name).write_text(task_file_text(batch), encoding="utf-8")
    paths = []
    for kind, function in (("sync", "respond"), ("async", "respond_async")):
        target = {
            "format_version": 1,
            "kind": "scripted",
            "entrant": f"bench-instant-{kind}",
            "display_name": f"bench instant responder ({kind})",
            "model": "bench-instant",
            "callable": f"{HERE}:{function}",
            "pricing": {"prompt_per_mtok": 0.15, "completion_per_mtok": 0.6},
            "params": {"temperature": 0},
        }
        path = targets / f"instant-{kind}.yaml"
        path.write_text(yaml.dump(target, Dumper=NoAliases, sort_keys=False), encoding="utf-8")
        paths.append(path)
    return TaskSetFiles(tasks_dir, paths[0], paths[1], qa_tasks, tool_tasks, len(facts))


# --------------------------------------------------------------------------------------------
# Measuring.
# --------------------------------------------------------------------------------------------


def _wchar() -> int | None:
    """Bytes this process passed to write(2) so far (Linux ``/proc/self/io``), else None."""
    try:
        for line in Path("/proc/self/io").read_text().splitlines():
            if line.startswith("wchar:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def _peak_rss_mib() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def _disk_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


@dataclass(frozen=True)
class Config:
    label: str
    concurrency: int
    repeats: int
    asynchronous: bool = False


@dataclass
class Sample:
    """One harness run and the baselines measured right after it on the same data."""

    seconds: float
    attempts: int
    calls: int
    wchar: int | None
    disk: int
    disk_attempts: int
    disk_cassette: int
    responder_s: float
    # Measured once per round, on the concurrency-1, repeats-1 run (None on the others):
    floor_s: float | None = None
    protocol_s: float | None = None
    serialise_s: float | None = None
    threaded_s: float | None = None  # the responder calls, each through asyncio.to_thread


@dataclass
class Series:
    config: Config
    samples: list[Sample] = field(default_factory=list)
    outcomes: dict[str, int] = field(default_factory=dict)


def _requests(run: RunDir) -> list[ModelRequest]:
    lines = (run.path / "cassette.jsonl").read_text(encoding="utf-8").splitlines()
    return [ModelRequest.model_validate(json.loads(line)["request"]) for line in lines if line]


def time_responder(responder: Callable[[ModelRequest], Any], requests: list[ModelRequest]) -> float:
    began = _clock()
    for request in requests:
        responder(request)
    return time.perf_counter() - began


def time_threaded(responder: Callable[[ModelRequest], Any], requests: list[ModelRequest]) -> float:
    """The responder calls as ScriptedTarget makes them for a plain function: in a thread."""

    async def calls() -> None:
        for request in requests:
            await asyncio.to_thread(responder, request)

    began = _clock()
    asyncio.run(calls())
    return time.perf_counter() - began


def time_fsync_floor(directory: Path, records: list[dict[str, Any]]) -> float:
    """json.dumps each record and write it to its own new file, fsynced: the floor."""
    directory.mkdir(parents=True)
    began = _clock()
    for index, record in enumerate(records):
        data = (json.dumps(record, indent=2, ensure_ascii=False) + "\n").encode()
        with open(directory / f"a{index:05d}.json", "xb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    return time.perf_counter() - began


def time_write_protocol(directory: Path, attempts: list[bytes], status: bytes) -> float:
    """What the store does per attempt, bytes ready: write_once + write_atomic(status)."""
    (directory / "attempts").mkdir(parents=True)
    began = _clock()
    for index, data in enumerate(attempts):
        write_once(directory / "attempts" / f"a{index:05d}.json", data)
        write_atomic(directory / "status.json", status)
    return time.perf_counter() - began


def time_serialise(records: list[AttemptRecord]) -> float:
    """What the store does to each record before writing it (``_pretty`` in records.store)."""
    began = _clock()
    for record in records:
        (json.dumps(record.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n").encode()
    return time.perf_counter() - began


def measure(
    files: TaskSetFiles,
    config: Config,
    scratch: Path,
    responder: Callable[[ModelRequest], Any],
    write_baselines: bool,
) -> tuple[Sample, RunDir, dict[str, int]]:
    runs = scratch / "runs"
    request = RunRequest(
        tasks=files.tasks_dir,
        target_file=files.target_async if config.asynchronous else files.target_sync,
        repeats=config.repeats,
        concurrency=config.concurrency,
        runs_dir=runs,
    )
    written = _wchar()
    began = _clock()
    run, status = start_run(request)
    seconds = time.perf_counter() - began
    after = _wchar()
    if status.status != "complete":
        raise SystemExit(f"benchmark run did not complete: {status.status}")
    # Everything the baselines need is read from the run before any clock starts.
    records = run.attempts()
    requests = _requests(run)
    raw = [json.loads(f.read_text(encoding="utf-8")) for f in sorted(run.path.glob("attempts/*"))]
    blobs = [f.read_bytes() for f in sorted(run.path.glob("attempts/*"))]
    status_bytes = (run.path / "status.json").read_bytes()
    outcomes: dict[str, int] = {}
    for record in records:
        outcomes[record.outcome] = outcomes.get(record.outcome, 0) + 1
    sample = Sample(
        seconds=seconds,
        attempts=len(records),
        calls=len(requests),
        wchar=after - written if written is not None and after is not None else None,
        disk=_disk_bytes(run.path),
        disk_attempts=_disk_bytes(run.path / "attempts"),
        disk_cassette=(run.path / "cassette.jsonl").stat().st_size,
        responder_s=time_responder(responder, requests),
    )
    if write_baselines:
        sample.floor_s = time_fsync_floor(scratch / "floor", raw)
        sample.protocol_s = time_write_protocol(scratch / "protocol", blobs, status_bytes)
        sample.serialise_s = time_serialise(records)
        sample.threaded_s = time_threaded(responder, requests)
    return sample, run, outcomes


@dataclass(frozen=True)
class Parts:
    """Pieces of a concurrency-1, repeats-1 run, each timed alone: seconds over the task set."""

    prepare: float  # bench.runner.prepare: everything before the run directory exists
    read_yaml: float  # bench.core.files.read_structured of every task file
    read_yaml_libyaml: float | None  # yaml.CSafeLoader on the same text, for comparison only
    check: float  # check_task_set: every corpus and every World built once
    world: float  # World(task, corpus) for every task, corpora already built
    check_schema: float  # Draft202012Validator.check_schema of every tool's schema
    attempts: float  # perform_attempt for every task: nothing written
    reread: float  # RunDir.attempts() of a finished run (the engine does it at the end)
    cassette: float  # RunDir.write_cassette of that run's exchanges


def time_parts(files: TaskSetFiles, root: Path, finished: RunDir) -> Parts:
    request = RunRequest(tasks=files.tasks_dir, target_file=files.target_sync, concurrency=1)
    began = _clock()
    prepared = prepare(request, RunStore(root / "unused"))
    prepare_s = time.perf_counter() - began
    task_files = sorted(files.tasks_dir.glob("*.yaml"))
    began = _clock()
    for file in task_files:
        read_structured(file)
    read_yaml = time.perf_counter() - began
    libyaml: float | None = None
    c_loader = getattr(yaml, "CSafeLoader", None)
    if c_loader is not None:
        texts = [file.read_text(encoding="utf-8") for file in task_files]
        began = _clock()
        for text in texts:
            yaml.load(text, Loader=c_loader)  # noqa: S506 - a safe loader
        libyaml = time.perf_counter() - began
    task_set = prepared.tasks
    began = _clock()
    check_task_set(task_set)
    check = time.perf_counter() - began
    library = CorpusLibrary(task_set.corpus_root)
    corpora = [library.corpus(task.corpus) if task.corpus else None for task in task_set.tasks]
    # World and check_schema taken in turn, task by task, so a burst of noise hits both alike.
    world = check_schema = 0.0
    gc.collect()
    for task, corpus in zip(task_set.tasks, corpora, strict=True):
        began = time.perf_counter()
        World(task, corpus)
        world += time.perf_counter() - began
        schemas = [
            SEARCH_DOCS_PARAMETERS if isinstance(tool, BuiltinTool) else tool.parameters
            for tool in task.tools
        ]
        began = time.perf_counter()
        for schema in schemas:
            Draft202012Validator.check_schema(schema)
        check_schema += time.perf_counter() - began
    plan = RunPlan(
        run=RunDir(root / "never-written"),
        config=prepared.config,
        tasks=prepared.tasks.tasks,
        target=prepared.target,
        corpora=library,
    )

    async def every_attempt() -> None:
        for task in plan.tasks:
            await perform_attempt(plan, task, 0)

    began = _clock()
    asyncio.run(every_attempt())
    attempts = time.perf_counter() - began
    began = _clock()
    records = finished.attempts()
    reread = time.perf_counter() - began
    exchanges = [(r.task_id, r.repeat, e) for r in records for e in r.trace.exchanges]
    (root / "cassette").mkdir(parents=True)
    began = _clock()
    RunDir(root / "cassette").write_cassette(exchanges)
    cassette = time.perf_counter() - began
    return Parts(
        prepare_s, read_yaml, libyaml, check, world, check_schema, attempts, reread, cassette
    )


def _clock() -> float:
    """``perf_counter`` after a full collection, so no timed piece pays for earlier garbage."""
    gc.collect()
    return time.perf_counter()


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _spread(values: list[float]) -> str:
    """Median with the min-max range, so the noise is visible."""
    if len(values) < 2:
        return f"{_median(values):8.3f}"
    return f"{_median(values):8.3f} ({min(values):.3f}-{max(values):.3f})"


def profile_one(files: TaskSetFiles, scratch: Path, limit: int) -> None:
    request = RunRequest(
        tasks=files.tasks_dir, target_file=files.target_sync, concurrency=1, runs_dir=scratch
    )
    profiler = cProfile.Profile()
    profiler.enable()
    start_run(request)
    profiler.disable()
    print(f"\n--- cProfile of one run (concurrency 1, repeats 1), top {limit} by own time ---")
    stats = pstats.Stats(profiler, stream=sys.stdout)
    stats.sort_stats("tottime").print_stats(limit)
    print(f"--- top {limit} by cumulative time ---")
    stats.sort_stats("cumulative").print_stats(limit)


def print_parts(tasks: int, parts: list[Parts], base: list[Sample]) -> None:
    """Where the time of a concurrency-1, repeats-1 run goes, in ms per attempt."""

    # The fastest round of each piece: contention on a shared machine only ever adds time,
    # and a median of three lets a sub-piece come out above the piece it is part of.
    def ms(pick: Callable[[Parts], float | None]) -> float:
        values = [value for p in parts if (value := pick(p)) is not None]
        return 1000 * min(values) / tasks if values else float("nan")

    def per_attempt(pick: Callable[[Sample], float]) -> float:
        return min(1000 * pick(s) / s.attempts for s in base)

    total = per_attempt(lambda s: s.seconds)
    serialise = per_attempt(lambda s: s.serialise_s or 0.0)
    protocol = per_attempt(lambda s: s.protocol_s or 0.0)
    libyaml = ms(lambda p: p.read_yaml_libyaml)
    top: list[tuple[str, float]] = [
        ("prepare (load, validate, check tasks; import the entrant)", ms(lambda p: p.prepare)),
        (
            "attempt: perform_attempt (world, loop, search, score; no disk)",
            ms(lambda p: p.attempts),
        ),
        ("write: serialise each AttemptRecord", serialise),
        ("write: write_once attempt + write_atomic status (4 fsyncs)", protocol),
        ("end: RunDir.attempts(), re-read + validate for the cassette", ms(lambda p: p.reread)),
        ("end: write_cassette (canonical JSON of every exchange)", ms(lambda p: p.cassette)),
    ]
    detail: dict[str, list[tuple[str, float]]] = {
        top[0][0]: [
            ("read the task YAML (strict loader, bench.core.files)", ms(lambda p: p.read_yaml)),
            ("    [the same text through yaml.CSafeLoader, for comparison]", libyaml),
            ("check_task_set (build every corpus and World once)", ms(lambda p: p.check)),
        ],
        top[1][0]: [
            ("World(task, corpus)", ms(lambda p: p.world)),
            ("    of which Draft202012Validator.check_schema", ms(lambda p: p.check_schema)),
        ],
    }
    print()
    print(
        f"where the time goes, c=1 r=1, {tasks} attempts: each piece timed alone, ms/attempt, "
        f"fastest of {len(parts)} round(s)"
    )
    for label, value in top:
        print(f"  {label:<68} {value:8.3f}")
        for sub, sub_value in detail.get(label, []):
            print(f"      {sub:<64} {sub_value:8.3f}")
    accounted = sum(value for _, value in top)
    print(f"  {'sum of the rows above (not indented)':<68} {accounted:8.3f}")
    print(f"  {'measured: start_run end to end':<68} {total:8.3f}")
    print(f"  {'difference: noise + what is not timed alone (loop, threads, GC)':<68} "
          f"{total - accounted:8.3f}")  # fmt: skip


def child(tasks: str, target: str, runs: str) -> int:
    """``--child``: one start_run (or none, with RUNS ``-``), then print the peak RSS in KiB."""
    if runs != "-":
        start_run(RunRequest(tasks=Path(tasks), target_file=Path(target), runs_dir=Path(runs)))
    print(_own_peak_kib())
    return 0


def _own_peak_kib() -> int:
    """This process's peak RSS in KiB: ``VmHWM`` on Linux, else ``ru_maxrss``.

    ``VmHWM`` belongs to the process's own address space; on Linux ``ru_maxrss`` of a process
    started by fork + exec also counts the parent's peak, so it cannot tell a child's size.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak


def rss_children(files: TaskSetFiles, runs: Path) -> tuple[float, float]:
    """Peak RSS (MiB) of two fresh interpreters running this file with ``--child``, side by
    side: one runs start_run (concurrency 4, repeats 1), the other only imports and stops."""
    env = {**os.environ, "PYTHONPYCACHEPREFIX": sys.pycache_prefix or str(runs / "pycache")}
    base = [sys.executable, str(HERE), "--child", str(files.tasks_dir), str(files.target_sync)]
    children = [
        subprocess.Popen([*base, where], stdout=subprocess.PIPE, text=True, env=env)
        for where in (str(runs), "-")
    ]
    peaks = []
    for process in children:
        out, _ = process.communicate()
        if process.returncode != 0:
            raise SystemExit(f"--child failed with exit code {process.returncode}")
        peaks.append(int(out.split()[-1]) / 1024)
    return peaks[0], peaks[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--qa-tasks", type=int, default=200)
    parser.add_argument("--tool-tasks", type=int, default=8)
    parser.add_argument("--docs", type=int, default=4, help="generated corpus documents")
    parser.add_argument("--per-doc", type=int, default=25, help="passages per document")
    parser.add_argument("--rounds", type=int, default=3, help="measurements per configuration")
    parser.add_argument("--repeats", type=int, default=2, help="repeats for the repeats rows")
    parser.add_argument("--quick", action="store_true", help="40 tasks, 1 round: a smoke run")
    parser.add_argument("--profile", action="store_true", help="also cProfile one run")
    parser.add_argument(
        "--with-async", action="store_true", help="add a row with a coroutine entrant"
    )
    parser.add_argument("--keep", type=Path, help="work here (e.g. build/bench) and keep it")
    parser.add_argument("--child", nargs=3, metavar=("TASKS", "TARGET", "RUNS"), help=SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(*args.child)
    if args.quick:
        args.qa_tasks, args.tool_tasks, args.rounds = 36, 4, 1

    if args.keep is not None:
        if args.keep.exists() and any(args.keep.iterdir()):
            print(f"{args.keep} is not empty; pick an empty or new directory", file=sys.stderr)
            return 2
        args.keep.mkdir(parents=True, exist_ok=True)
        root = args.keep.resolve()
    else:
        root = Path(tempfile.mkdtemp(prefix="bench-runner-"))
    # The harness imports this file as the entrant: keep its bytecode cache in the scratch dir.
    sys.pycache_prefix = str(root / "pycache")
    try:
        return _run(args, root)
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


def _run(args: argparse.Namespace, root: Path) -> int:
    files = generate(root / "set", args.qa_tasks, args.tool_tasks, args.docs, args.per_doc)
    responder = resolve_callable(f"{HERE}:respond", HERE.parent, HERE)
    rss_before = _peak_rss_mib()
    configs = [
        Config("c=1 r=1", 1, 1),
        Config("c=4 r=1", 4, 1),
        Config(f"c=4 r={args.repeats}", 4, args.repeats),
    ]
    if args.with_async:
        configs.append(Config("c=1 r=1 async", 1, 1, asynchronous=True))
    print("bench_runner: harness overhead around an instant scripted entrant")
    print(
        f"  machine: {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}; "
        f"{datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}"
    )
    print(
        f"  task set: {files.qa_tasks} grounded-qa + {files.tool_tasks} tool-trajectory tasks, "
        f"corpus of {files.passages} passages in {args.docs} documents; "
        f"{args.rounds} round(s), median (min-max) shown"
    )
    print(f"  scratch: {root}")

    # Warm-up, not counted: imports, first-use caches, the page cache.
    warm = RunRequest(
        tasks=files.tasks_dir,
        target_file=files.target_sync,
        task_ids=("gqa-0000", "gqa-0001", "tool-0000"),
        runs_dir=root / "warmup",
    )
    start_run(warm)
    parts: list[Parts] = []
    series = {config.label: Series(config) for config in configs}
    last_run: RunDir | None = None
    for round_index in range(args.rounds):
        base_run: RunDir | None = None
        for config in configs:
            scratch = root / f"r{round_index}-{config.label.replace(' ', '_').replace('=', '')}"
            sample, run, outcomes = measure(
                files, config, scratch, responder, write_baselines=config is configs[0]
            )
            series[config.label].samples.append(sample)
            series[config.label].outcomes = outcomes
            if config.repeats > 1:
                last_run = run
            if config is configs[0]:
                base_run = run
        assert base_run is not None
        parts.append(time_parts(files, root / f"r{round_index}-parts", base_run))
    rss_after = _peak_rss_mib()

    print()
    print("harness: start_run end to end (load + check tasks, run, write, cassette)")
    header = (
        f"  {'config':<16} {'attempts':>8} {'calls':>6} {'attempts/s':>20} {'ms/attempt':>20} "
        f"{'written B/att':>13} {'on disk B/att':>13}"
    )
    print(header)
    for label, item in series.items():
        samples = item.samples
        n = samples[0].attempts
        rates = [s.attempts / s.seconds for s in samples]
        ms = [1000 * s.seconds / s.attempts for s in samples]
        wrote = [s.wchar / s.attempts for s in samples if s.wchar is not None]
        written = f"{_median(wrote):13.0f}" if wrote else f"{'n/a':>13}"
        disk = _median([s.disk / s.attempts for s in samples])
        print(
            f"  {label:<16} {n:>8} {samples[0].calls:>6} {_spread(rates):>20} "
            f"{_spread(ms):>20} {written} {disk:13.0f}"
        )
    base = series[configs[0].label].samples
    attempts_b = _median([s.disk_attempts / s.attempts for s in base])
    cassette_b = _median([s.disk_cassette / s.attempts for s in base])
    print(
        f"  on disk, c=1 r=1: attempt files {attempts_b:.0f} B/att, cassette.jsonl "
        f"{cassette_b:.0f} B/att, config + status the rest"
    )
    seen: dict[str, int] = {}
    for item in series.values():
        for outcome, count in item.outcomes.items():
            seen[outcome] = seen.get(outcome, 0) + count
    print(f"  outcomes in the last round, all configs: {seen} (all should be 'scored')")

    print()
    print("same-run baselines and attribution (per attempt, ms; same attempts, same requests)")
    print(
        f"  {'config':<16} {'harness':>8} {'responder':>10} {'x resp.':>8} {'fsync floor':>12} "
        f"{'x floor':>8} {'write protocol':>15} {'serialise':>10}"
    )
    for label, item in series.items():
        # Ratios are taken within a round: the run and its baselines measured back to back.
        per = [
            (
                1000 * run.seconds / run.attempts,
                1000 * run.responder_s / run.attempts,
                1000 * (ref.floor_s or 0.0) / ref.attempts,
                1000 * (ref.protocol_s or 0.0) / ref.attempts,
                1000 * (ref.serialise_s or 0.0) / ref.attempts,
            )
            for run, ref in zip(item.samples, base, strict=True)
        ]
        x_resp = _median([p[0] / p[1] for p in per if p[1] > 0])
        x_floor = _median([p[0] / p[2] for p in per if p[2] > 0])
        harness, responder_ms, floor, protocol, serialise = (
            _median([p[k] for p in per]) for k in range(5)
        )
        print(
            f"  {label:<16} {harness:8.3f} {responder_ms:10.4f} {x_resp:8.0f} {floor:12.3f} "
            f"{x_floor:8.1f} {protocol:15.3f} {serialise:10.3f}"
        )
    print("  responder: the entrant called on the run's own requests, no harness around it")
    print("  fsync floor: json.dumps + write + fsync of one new file per attempt record")
    print("  write protocol: write_once (attempt) + write_atomic (status.json), bytes ready")
    print("  serialise: model_dump + json.dumps(indent=2) of each AttemptRecord, as the store does")
    print("  (the last three are measured once per round, on that round's c=1 r=1 records)")
    base = series[configs[0].label].samples
    hop = _median(
        [1e6 * ((s.threaded_s or 0.0) - s.responder_s) / s.calls for s in base if s.threaded_s]
    )
    print(
        f"  thread hop: the same responder calls through asyncio.to_thread (as ScriptedTarget "
        f"calls a plain function) cost {hop:.0f} us more per call"
    )

    print_parts(files.total, parts, series[configs[0].label].samples)

    if last_run is not None:
        times = []
        for _ in range(max(3, args.rounds)):
            began = _clock()
            summary = summarize(last_run)
            times.append(time.perf_counter() - began)
        n = len(summary.records)
        print()
        print(
            f"summarize: {_spread([1000 * t for t in times])} ms for {n} attempts "
            f"({len(summary.task_scores)} tasks; {1000 * _median(times) / n:.3f} ms/attempt); "
            f"headline {summary.headline.score.value if summary.headline else None}"
        )
    print()
    busy, idle = rss_children(files, root / "rss")
    print(
        f"peak RSS (VmHWM of a fresh process): {busy:.1f} MiB running start_run c=4 "
        f"r=1 on the {files.total} tasks, {idle:.1f} MiB importing the same "
        f"modules and stopping; difference {busy - idle:.1f} MiB"
    )
    print(
        f"  (this benchmark process, which also holds every baseline's data: "
        f"{rss_before:.1f} MiB after set-up, {rss_after:.1f} MiB at the end)"
    )
    if args.profile:
        profile_one(files, root / "profile", 25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
