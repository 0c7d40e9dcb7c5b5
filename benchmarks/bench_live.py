"""Live entrants: client CPU per chat request against the shipped mock server, ours beside
tool-eval-bench 3.0.0, and a 1,000-attempt run against a mock that takes 100 ms per call.

Part 1, client CPU. The mock server (``python -m bench.testing.mock_server``) runs in its own
process on 127.0.0.1 and answers at once, so its CPU is not the client's. For each client and
each concurrency (1, 8, 32), a fresh child process sends ``--requests`` identical chat
requests (one user message, two tools; the mock answers with one tool call) through that
client's own code path, and measures its own CPU (``getrusage(RUSAGE_SELF)``, user + sys)
and wall time around the request loop only: interpreter start, imports, building the client
and a warm-up of ``--warmup`` requests are outside the clock. The clients:

* ours: ``OpenAITarget.complete(ModelRequest)`` of a target loaded from a target file with
  ``bench.targets.load_target``: the call the harness makes for one model call (request body,
  ``HttpEndpoint.post`` with its retry loop and deadlines, scrubbing, ``parse_completion``).
* tool-eval-bench: ``OpenAICompatibleAdapter.chat_completion(...)`` from
  ``tool_eval_bench.adapters.factory.build_adapter(base_url)``, with the arguments its
  orchestrator passes for one scenario turn. It runs in its own venv
  (``build/bench-venvs/teb``, created on first use with ``pip install
  tool-eval-bench==3.0.0``), never in the project's ``.venv``.
* httpx floor: a bare ``httpx.AsyncClient.post`` of the same bytes, then ``json.loads``.
* asyncio floor: the same request written to an ``asyncio.open_connection`` socket by hand,
  a new connection per request (``Connection: close``, read to EOF), ``json.loads`` of the
  body: the cost of one exchange without a client library or a connection pool.

Part 2, latency. 1,000 attempts through ``bench.runner.start_run`` at concurrency 64, with an
``openai`` target pointing at a second mock server started with ``--fault delay,s=0.1``; each
tool-trajectory task makes exactly 3 model calls (``get_order``, ``issue_refund``, answer), so
the ideal time is ``attempts x 3 x 0.1 s / 64``. The same run against the instant mock is the
same-run baseline: what the harness costs when the endpoint takes no time at all. The
synchronous pieces the engine runs on the event loop (``World``, ``score_attempt``, the record
serialisation and the fsynced writes) are timed by wrapping them, behaviour unchanged.

Prints figures; asserts nothing. Writes under a temp dir (or ``--keep DIR``), plus the
tool-eval-bench venv under ``build/bench-venvs/``; offline apart from that one pip install.

    .venv/bin/python benchmarks/bench_live.py                 # about 3 minutes on 2 cores
    .venv/bin/python benchmarks/bench_live.py --quick         # smoke run, under a minute
    .venv/bin/python benchmarks/bench_live.py --latency-run   # only part 2
    .venv/bin/python benchmarks/bench_live.py --profile       # + cProfile of both parts
    .venv/bin/python benchmarks/bench_live.py --stub-sniffio --no-latency   # a what-if

Only the standard library is imported at module level: the tool-eval-bench child runs this
file with the other venv's interpreter, where ``bench`` is not installed. That is also why it
is one file above the 800-line soft cap: the children of all four clients run this same file.
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
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from argparse import SUPPRESS
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
ROOT = HERE.parent.parent
TEB_VERSION = "3.0.0"
DEFAULT_TEB_VENV = ROOT / "build" / "bench-venvs" / "teb"
CLIENTS = ("ours", "teb", "httpx", "asyncio")
LABELS = {
    "ours": "ours (OpenAITarget.complete)",
    "teb": f"tool-eval-bench {TEB_VERSION}",
    "httpx": "floor: bare httpx POST",
    "asyncio": "floor: asyncio socket",
}
CONCURRENCY = (1, 8, 32)
MODEL = "bench-mock"
PROMPT = "Please refund order 1041."
MAX_TOKENS = 4096
DELAY_S = 0.1
CALLS_PER_ATTEMPT = 3

_ORDER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"order_id": {"type": "string"}},
    "required": ["order_id"],
    "additionalProperties": False,
}
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_order",
            "description": "Look up one order by its number.",
            "parameters": _ORDER_SCHEMA,
        },
    },
    {
        "type": "function",
        "function": {
            "name": "issue_refund",
            "description": "Refund an order in full.",
            "parameters": _ORDER_SCHEMA,
        },
    },
]


# --------------------------------------------------------------------------------------------
# The child: one client, one concurrency, one process. Standard library until the client's
# own imports.
# --------------------------------------------------------------------------------------------

Call = Callable[[], Awaitable[bool]]


async def _ours(base_url: str, target_file: Path, stream: bool) -> tuple[Call, Callable[[], Any]]:
    from bench.core.trace import Message, ToolDef
    from bench.targets import ModelRequest, load_target

    target = load_target(target_file)
    request = ModelRequest(
        model=MODEL,
        messages=[Message(role="user", content=PROMPT)],
        tools=[ToolDef(**tool["function"]) for tool in TOOLS],
        params={"temperature": 0, "max_tokens": MAX_TOKENS},
    )

    async def call() -> bool:
        response = await target.complete(request)
        return len(response.tool_calls) == 1

    return call, target.aclose


async def _teb(base_url: str, target_file: Path, stream: bool) -> tuple[Call, Callable[[], Any]]:
    from tool_eval_bench.adapters.factory import build_adapter  # type: ignore[import-not-found]

    adapter: Any = build_adapter(base_url)
    messages = [{"role": "user", "content": PROMPT}]

    async def call() -> bool:
        # The arguments its orchestrator passes for one scenario turn (runner/orchestrator.py).
        result = await adapter.chat_completion(
            model=MODEL,
            messages=messages,
            tools=TOOLS,
            tool_choice="auto",
            temperature=0.0,
            max_tokens=MAX_TOKENS,
            timeout_seconds=120.0,
            api_key=None,
            base_url=base_url,
            extra_params=None,
            stream=stream,
            response_format=None,
            conversation_id=None,
        )
        return len(result.tool_calls) == 1 and result.transport_error_status is None

    return call, adapter.aclose


def _body() -> bytes:
    body = {
        "model": MODEL,
        "messages": [{"role": "user", "content": PROMPT}],
        "tools": TOOLS,
        "temperature": 0,
        "max_tokens": MAX_TOKENS,
    }
    return json.dumps(body).encode()


def _one_call(data: dict[str, Any]) -> bool:
    return len(data["choices"][0]["message"].get("tool_calls") or []) == 1


async def _httpx(base_url: str, target_file: Path, stream: bool) -> tuple[Call, Callable[[], Any]]:
    import httpx

    client = httpx.AsyncClient(trust_env=False, timeout=120.0)
    url = base_url + "/chat/completions"
    payload = _body()
    headers = {"content-type": "application/json"}

    async def call() -> bool:
        response = await client.post(url, content=payload, headers=headers)
        return response.status_code == 200 and _one_call(json.loads(response.content))

    return call, client.aclose


async def _asyncio(
    base_url: str, target_file: Path, stream: bool
) -> tuple[Call, Callable[[], Any]]:
    from urllib.parse import urlsplit

    parts = urlsplit(base_url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    payload = _body()
    head = (
        f"POST {parts.path}/chat/completions HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode()

    async def call() -> bool:
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(head + payload)
        raw = await reader.read()  # we asked to close: the body ends at EOF
        writer.close()
        status, _, body = raw.partition(b"\r\n\r\n")
        return status.startswith(b"HTTP/1.1 200") and _one_call(json.loads(body))

    async def close() -> None:
        return None

    return call, close


BUILDERS = {"ours": _ours, "teb": _teb, "httpx": _httpx, "asyncio": _asyncio}


def _cpu() -> tuple[float, float]:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime, usage.ru_stime


async def _drive(
    client: str,
    base_url: str,
    target_file: Path,
    requests: int,
    concurrency: int,
    warmup: int,
    stream: bool,
    profile: Path | None,
) -> dict[str, Any]:
    call, close = await BUILDERS[client](base_url, target_file, stream)
    failures = 0
    left = 0

    async def worker() -> None:
        nonlocal left, failures
        while left > 0:
            left -= 1
            try:
                ok = await call()
            except Exception:
                ok = False
            failures += 0 if ok else 1

    left = warmup
    await asyncio.gather(*(worker() for _ in range(min(concurrency, warmup))))
    warm_failures, failures, left = failures, 0, requests
    gc.collect()
    profiler = cProfile.Profile() if profile is not None else None
    user0, sys0 = _cpu()
    began = time.perf_counter()
    if profiler is not None:
        profiler.enable()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    if profiler is not None:
        profiler.disable()
    wall = time.perf_counter() - began
    user1, sys1 = _cpu()
    await close()
    if profiler is not None and profile is not None:
        profiler.dump_stats(str(profile))
    return {
        "client": client,
        "concurrency": concurrency,
        "requests": requests,
        "failures": failures,
        "warmup_failures": warm_failures,
        "user_s": user1 - user0,
        "sys_s": sys1 - sys0,
        "wall_s": wall,
    }


def child(args: argparse.Namespace) -> int:
    if args.stub_sniffio and "sniffio" not in sys.modules:
        # httpcore tries ``import sniffio`` on every lock and event it sets up; when sniffio is
        # not installed each try searches sys.path again. None in sys.modules fails at once.
        sys.modules["sniffio"] = None  # type: ignore[assignment]
    result = asyncio.run(
        _drive(
            args.child,
            args.url,
            Path(args.target or "-"),
            args.requests,
            args.concurrency,
            args.warmup,
            args.stream,
            Path(args.child_profile) if args.child_profile else None,
        )
    )
    print(json.dumps(result))
    return 0


# --------------------------------------------------------------------------------------------
# The parent: servers, the tool-eval-bench venv, rounds of children.
# --------------------------------------------------------------------------------------------


@dataclass
class Server:
    process: subprocess.Popen[str]
    url: str

    def cpu_s(self) -> float:
        """utime + stime of the server process so far (clock ticks, so 10 ms steps)."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_server(*faults: str) -> Server:
    command = [sys.executable, "-m", "bench.testing.mock_server", "--port", "0"]
    command += ["--max-seconds", "1800"]
    for fault in faults:
        command += ["--fault", fault]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert process.stdout is not None
    url = process.stdout.readline().strip()
    if not url.startswith("http://"):
        process.kill()
        raise SystemExit(f"the mock server did not start: {url!r}")
    return Server(process, url)


@dataclass
class Teb:
    python: Path | None
    versions: str
    problem: str | None = None


def _versions(python: Path, *packages: str) -> str:
    """``python``'s version and the named packages' versions, as that interpreter sees them."""
    names = (*packages, "httpx", "httpcore", "anyio", "h11")
    code = (
        "import importlib.metadata as m, platform; print(platform.python_version(), "
        f"*[n + ' ' + m.version(n) for n in {names!r}], sep=', ')"
    )
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr else "failed")
    return done.stdout.strip()


def ensure_teb(venv: Path) -> Teb:
    """The venv with tool-eval-bench==3.0.0, created (python -m venv + pip) when missing."""
    python = venv / "bin" / "python"
    try:
        if python.exists():
            versions = _versions(python, "tool-eval-bench")
            if f"tool-eval-bench {TEB_VERSION}" in versions:
                return Teb(python, versions)
        print(f"  creating {venv} and installing tool-eval-bench=={TEB_VERSION} (once) ...")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(python), "-m", "pip", "install", "-q", f"tool-eval-bench=={TEB_VERSION}"]
        done = subprocess.run(pip, capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
            raise RuntimeError(f"pip install failed:\n{tail}")
        return Teb(python, _versions(python, "tool-eval-bench"))
    except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
        return Teb(None, "", f"{type(exc).__name__}: {exc}")


def _child_env() -> dict[str, str]:
    # tool-eval-bench's client honours proxy variables (httpx trust_env); ours skips them for
    # loopback. Neither should meet a proxy on the way to 127.0.0.1.
    drop = {"http_proxy", "https_proxy", "all_proxy"}
    env = {k: v for k, v in os.environ.items() if k.lower() not in drop}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run_child(
    args: argparse.Namespace,
    python: Path,
    client: str,
    server: Server,
    target: Path,
    concurrency: int,
    profile: Path | None = None,
) -> dict[str, Any]:
    command = [str(python), str(HERE), "--child", client, "--url", server.url + "/v1"]
    command += ["--target", str(target), "--requests", str(args.requests)]
    command += ["--concurrency", str(concurrency), "--warmup", str(args.warmup)]
    command += ["--stream"] if args.stream else []
    command += ["--stub-sniffio"] if args.stub_sniffio else []
    command += ["--child-profile", str(profile)] if profile is not None else []
    before = server.cpu_s()
    done = subprocess.run(command, capture_output=True, text=True, env=_child_env(), cwd=ROOT)
    after = server.cpu_s()
    if done.returncode != 0:
        raise SystemExit(f"{client} child failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["server_s"] = after - before
    result["server_requests"] = args.requests + args.warmup
    return result


def write_target(path: Path, base_url: str, stream: bool, name: str = "live") -> Path:
    import yaml

    data: dict[str, Any] = {
        "format_version": 1,
        "kind": "openai",
        "entrant": f"bench-{name}",
        "display_name": f"bench {name} (mock server)",
        "model": MODEL,
        "base_url": base_url,
        "params": {"temperature": 0, "max_tokens": MAX_TOKENS},
        "stream": stream,
        "pricing": {"prompt_per_mtok": 0.15, "completion_per_mtok": 0.6},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _median(values: list[float]) -> float:
    return float(statistics.median(values)) if values else float("nan")


def _spread(values: list[float], digits: int = 0) -> str:
    if not values:
        return "n/a"
    if len(values) < 2:
        return f"{values[0]:.{digits}f}"
    return f"{_median(values):.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def cpu_part(args: argparse.Namespace, root: Path, teb: Teb) -> float:
    """Print the tables; return our client's median CPU per request (us) at c=32."""
    clients = [c for c in CLIENTS if c != "teb" or teb.python is not None]
    results: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for round_index in range(args.rounds):
        # A fresh server per round: the mock keeps every request it has seen in memory.
        server = start_server()
        try:
            url = server.url + "/v1"
            target = write_target(root / f"live-{round_index}.yaml", url, args.stream)
            for concurrency in CONCURRENCY:
                # Rotate the order each round, so no client always runs first or last.
                shift = (round_index + concurrency) % len(clients)
                for client in clients[shift:] + clients[:shift]:
                    python = teb.python if client == "teb" and teb.python else Path(sys.executable)
                    result = run_child(args, python, client, server, target, concurrency)
                    results.setdefault((client, concurrency), []).append(result)
        finally:
            server.stop()
        print(f"  round {round_index + 1}/{args.rounds} done", flush=True)
    print_cpu(args, clients, results)
    if args.profile:
        server = start_server()
        try:
            target = write_target(root / "live-profile.yaml", server.url + "/v1", args.stream)
            run_child(args, Path(sys.executable), "ours", server, target, 8, root / "ours.prof")
        finally:
            server.stop()
        print("\n--- cProfile of ours, c=8, the request loop only, top 30 by own time ---")
        stats = pstats.Stats(str(root / "ours.prof"), stream=sys.stdout)
        stats.sort_stats("tottime").print_stats(30)
        print("--- top 30 by cumulative time ---")
        stats.sort_stats("cumulative").print_stats(30)
    ours = results[("ours", CONCURRENCY[-1])]
    return _median([1e6 * float(r["user_s"] + r["sys_s"]) / r["requests"] for r in ours])


def print_cpu(
    args: argparse.Namespace,
    clients: list[str],
    results: dict[tuple[str, int], list[dict[str, Any]]],
) -> None:
    def cpu_us(r: dict[str, Any]) -> float:
        return 1e6 * float(r["user_s"] + r["sys_s"]) / int(r["requests"])

    width = 36
    head = "".join(f"{'c=' + str(c):>24}" for c in CONCURRENCY)

    def table(title: str, rows: dict[str, Callable[[int], list[float]]], digits: int) -> None:
        print()
        print(title)
        print(f"  {'':<{width}}{head}")
        for label, values in rows.items():
            cells = "".join(f"{_spread(values(c), digits):>24}" for c in CONCURRENCY)
            print(f"  {label:<{width}}{cells}")

    Column = Callable[[int], list[float]]

    def each(client: str, measure: Callable[[dict[str, Any]], float]) -> Column:
        return lambda c: [measure(r) for r in results[(client, c)]]

    def ratio(a: str, b: str) -> Callable[[int], list[float]]:
        return lambda c: [
            cpu_us(x) / cpu_us(y) for x, y in zip(results[(a, c)], results[(b, c)], strict=True)
        ]

    mode = "streamed" if args.stream else "not streamed"
    table(
        f"client CPU per chat request, us (user+sys, request loop only; {args.requests} "
        f"requests per child, {mode}), median of {args.rounds} round(s) (min-max)",
        {LABELS[client]: each(client, cpu_us) for client in clients},
        0,
    )
    table(
        "requests per second (wall time of the same loops)",
        {LABELS[client]: each(client, lambda r: r["requests"] / r["wall_s"]) for client in clients},
        0,
    )
    table(
        "share of that CPU spent in the kernel (sys / (user+sys))",
        {
            LABELS[client]: each(client, lambda r: r["sys_s"] / (r["user_s"] + r["sys_s"]))
            for client in clients
        },
        2,
    )
    table(
        "the mock server process's CPU per request while each client ran, us",
        {
            LABELS[client]: each(client, lambda r: 1e6 * r["server_s"] / r["server_requests"])
            for client in clients
        },
        0,
    )
    failed = {
        f"{client} c={c}": sum(r["failures"] + r["warmup_failures"] for r in results[(client, c)])
        for client in clients
        for c in CONCURRENCY
    }
    bad = {k: v for k, v in failed.items() if v}
    print(f"  failed requests: {bad or 'none'} (a request fails unless it returns one tool call)")
    ratios = {}
    if "teb" in clients:
        ratios["tool-eval-bench / ours (goal >= 3)"] = ratio("teb", "ours")
        ratios["tool-eval-bench / httpx floor"] = ratio("teb", "httpx")
    ratios["ours / httpx floor"] = ratio("ours", "httpx")
    ratios["ours / asyncio floor"] = ratio("ours", "asyncio")
    ratios["httpx floor / asyncio floor"] = ratio("httpx", "asyncio")
    table("ratios of CPU per request, taken per round, median (min-max)", ratios, 2)


# --------------------------------------------------------------------------------------------
# Part 2: 1,000 attempts through the harness against a 100 ms mock.
# --------------------------------------------------------------------------------------------


def generate_tasks(directory: Path, count: int) -> Path:
    """``count`` tool-trajectory tasks: look an order up, refund it, say so (3 model calls
    against the mock's policy). Written like ``examples/tasks``."""
    from synthetic import refund_task, task_file_text

    tasks = [refund_task(i) for i in range(count)]
    directory.mkdir(parents=True)
    (directory / "tool-trajectory.yaml").write_text(task_file_text(tasks), encoding="utf-8")
    return directory


class ClockSink:
    """A progress sink that notes when the attempts start and when each one ends."""

    def __init__(self) -> None:
        self.begun = 0.0
        self.ends: list[float] = []
        self.outcomes: dict[str, int] = {}

    def started(self, run_id: str, total: int, done: int) -> None:
        self.begun = time.perf_counter()

    def attempt(self, record: Any, done: int, total: int) -> None:
        self.ends.append(time.perf_counter())
        self.outcomes[str(record.outcome)] = self.outcomes.get(str(record.outcome), 0) + 1

    def skipped(self, task_id: str, repeat: int, reason: str) -> None:
        return None

    def finished(self, status: Any) -> None:
        return None


class Pieces:
    """Wall time of synchronous pieces the engine runs on the event-loop thread, by wrapping
    them (behaviour unchanged). While one runs, no other attempt makes progress."""

    # (key, module or class, attribute, label); "world" runs once per task, "reread" and
    # "cassette" once at the end, the others once or twice per attempt.
    WRAPPED = (
        ("world", "bench.runner.engine", "World", "World(task, corpus), once per task"),
        ("score", "bench.runner.engine", "score_attempt", "score_attempt"),
        (
            "serialise",
            "bench.records.store",
            "attempt_bytes",
            "writer thread: attempt_bytes (model_dump_json indent=2)",
        ),
        (
            "write_once",
            "bench.records.store",
            "write_once",
            "writer thread: write_once attempt file (fsyncs, GIL waits)",
        ),
        (
            "write_atomic",
            "bench.records.store",
            "write_atomic",
            "write_atomic status.json (fsyncs; + cassette at the end)",
        ),
        ("reread", "bench.records.store:RunDir", "attempts", "end: RunDir.attempts() re-read"),
        ("cassette", "bench.records.store:RunDir", "write_cassette", "end: write_cassette"),
    )

    def __init__(self) -> None:
        self.seconds = {key: 0.0 for key, *_ in self.WRAPPED}
        self._undo: list[tuple[Any, str, Any]] = []

    def _timed(self, key: str, function: Any) -> Any:
        seconds = self.seconds

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            began = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                seconds[key] += time.perf_counter() - began

        return wrapper

    def __enter__(self) -> Pieces:
        import importlib

        for key, where, name, _ in self.WRAPPED:
            module, _, cls = where.partition(":")
            owner = importlib.import_module(module)
            owner = getattr(owner, cls) if cls else owner
            original = owner.__dict__.get(name)
            if original is None:  # not in this version of the harness: its row reads 0
                continue
            self._undo.append((owner, name, original))
            setattr(owner, name, self._timed(key, original))
        return self

    def __exit__(self, *exc: object) -> None:
        for owner, name, original in reversed(self._undo):
            setattr(owner, name, original)
        self._undo.clear()


@dataclass
class HarnessRun:
    label: str
    attempts: int
    total_s: float
    before_first_s: float  # start_run called -> execute started (prepare + create the run)
    attempts_s: float  # execute started -> last attempt written
    cpu_s: float
    outcomes: dict[str, int]
    calls: dict[int, int]  # model calls per attempt -> attempts
    pieces: dict[str, float]


def harness_run(
    label: str,
    tasks: Path,
    target: Path,
    runs: Path,
    repeats: int,
    concurrency: int,
    profile: cProfile.Profile | None = None,
) -> HarnessRun:
    from bench.runner import RunRequest, start_run

    sink = ClockSink()
    request = RunRequest(
        tasks=tasks, target_file=target, repeats=repeats, concurrency=concurrency, runs_dir=runs
    )
    gc.collect()
    with Pieces() as pieces:
        cpu0 = time.process_time()
        began = time.perf_counter()
        if profile is not None:
            profile.enable()
        run, status = start_run(request, sink)
        if profile is not None:
            profile.disable()
        total = time.perf_counter() - began
        cpu = time.process_time() - cpu0
    if status.status != "complete":
        raise SystemExit(f"the {label} run did not complete: {status.status}")
    calls: dict[int, int] = {}
    for record in run.attempts():
        n = len(record.trace.exchanges)
        calls[n] = calls.get(n, 0) + 1
    return HarnessRun(
        label=label,
        attempts=len(sink.ends),
        total_s=total,
        before_first_s=sink.begun - began,
        attempts_s=max(sink.ends) - sink.begun,
        cpu_s=cpu,
        outcomes=sink.outcomes,
        calls=calls,
        pieces=dict(pieces.seconds),
    )


def latency_part(args: argparse.Namespace, root: Path, client_us: float | None) -> None:
    """``client_us``: our client's CPU per request at c=32 from part 1, to attribute time."""
    attempts = args.latency_tasks * args.latency_repeats
    tasks = generate_tasks(root / "latency" / "tasks", args.latency_tasks)
    slow = start_server(f"delay,s={DELAY_S}")
    instant = start_server()
    here = root / "latency"
    pinned = _pin_servers(args, slow, instant)
    if pinned:
        print(f"  latency part: {pinned}", flush=True)
    try:
        slow_target = write_target(here / "slow.yaml", slow.url + "/v1", False, "slow")
        fast_target = write_target(here / "instant.yaml", instant.url + "/v1", False, "instant")
        # Warm-up, not counted: imports, first-use caches.
        harness_run("warm-up", tasks, fast_target, here / "warm", 1, 4)
        rows = []
        profile = cProfile.Profile() if args.profile else None
        slow_label = f"mock + {DELAY_S * 1000:.0f} ms"
        for index in range(args.latency_rounds):
            for label, target in (("instant mock", fast_target), (slow_label, slow_target)):
                rows.append(
                    harness_run(
                        label,
                        tasks,
                        target,
                        here / f"{index}-{target.stem}",
                        args.latency_repeats,
                        args.latency_concurrency,
                        profile if index == 0 and target is slow_target else None,
                    )
                )
            print(f"  latency round {index + 1}/{args.latency_rounds} done", flush=True)
    finally:
        slow.stop()
        instant.stop()
    print_latency(args, rows, attempts, client_us)
    if profile is not None:
        print(f"\n--- cProfile of the first {slow_label} run, top 30 by own time ---")
        stats = pstats.Stats(profile, stream=sys.stdout)
        stats.sort_stats("tottime").print_stats(30)
        print("--- top 30 by cumulative time ---")
        stats.sort_stats("cumulative").print_stats(30)


def _pin_servers(args: argparse.Namespace, *servers: Server) -> str:
    """Keep the mock servers on the last CPU, so the load generator does not take turns on
    the harness's core (the usual way to keep a load generator from skewing what it
    measures); the harness's process may still use every CPU. ``--no-pin`` turns this off."""
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if args.no_pin or len(cpus) < 2:
        return ""
    for server in servers:
        os.sched_setaffinity(server.process.pid, {cpus[-1]})
    return f"mock servers pinned to CPU {cpus[-1]} of {len(cpus)} (--no-pin to turn off)"


def print_latency(
    args: argparse.Namespace, rows: list[HarnessRun], attempts: int, client_us: float | None
) -> None:
    ideal = attempts * CALLS_PER_ATTEMPT * DELAY_S / args.latency_concurrency
    print()
    print(
        f"harness latency: {attempts} attempts ({args.latency_tasks} tool-trajectory tasks x "
        f"{args.latency_repeats} repeats, {CALLS_PER_ATTEMPT} model calls each) through "
        f"start_run at concurrency {args.latency_concurrency}; openai target, not streamed"
    )
    print(
        f"  ideal with a {DELAY_S * 1000:.0f} ms mock: {attempts} x {CALLS_PER_ATTEMPT} x "
        f"{DELAY_S} s / {args.latency_concurrency} = {ideal:.2f} s (goal: actual <= 1.3 x ideal)"
    )
    print(
        f"  {'endpoint':<16} {'start_run s':>11} {'x ideal':>8} {'prepare s':>10} "
        f"{'attempts s':>11} {'x ideal':>8} {'end s':>6} {'attempts/s':>11} {'CPU s':>7} "
        f"{'CPU ms/att':>11}"
    )
    for row in rows:
        print(
            f"  {row.label:<16} {row.total_s:11.2f} {row.total_s / ideal:8.2f} "
            f"{row.before_first_s:10.2f} {row.attempts_s:11.2f} {row.attempts_s / ideal:8.2f} "
            f"{row.total_s - row.before_first_s - row.attempts_s:6.2f} "
            f"{row.attempts / row.attempts_s:11.1f} {row.cpu_s:7.2f} "
            f"{1000 * row.cpu_s / row.attempts:11.2f}"
        )
    for label in dict.fromkeys(row.label for row in rows):
        mine = sorted(row.total_s / ideal for row in rows if row.label == label)
        print(
            f"  {label}: median {_median(mine):.2f} x ideal over {len(mine)} run(s) "
            f"(each: {', '.join(f'{x:.2f}' for x in mine)})"
        )
    seen: dict[str, int] = {}
    calls: dict[int, int] = {}
    for row in rows:
        for key, value in row.outcomes.items():
            seen[key] = seen.get(key, 0) + value
        for n, value in row.calls.items():
            calls[n] = calls.get(n, 0) + value
    print(f"  outcomes, all rows: {seen}; model calls per attempt: {calls}")
    print(
        "  prepare: start_run called -> first attempt scheduled (load + check the tasks, build "
        "the target, create the run directory); attempts: from then to the last attempt "
        "written; end: the rest (re-read the attempts, write the cassette and the final "
        "status); CPU: this process's user+sys over the whole start_run"
    )
    print()
    print("  where the event-loop thread's time goes, ms per attempt (pieces timed by wrapping)")
    heads = "".join(f"{row.label:>16}" for row in rows)
    print(f"  {'piece':<66}{heads}")
    for key, _, _, label in Pieces.WRAPPED:
        cells = "".join(f"{1000 * row.pieces[key] / row.attempts:16.2f}" for row in rows)
        print(f"  {label + ' (wall)':<66}{cells}")
    if client_us is not None:
        estimate = CALLS_PER_ATTEMPT * client_us / 1000
        label = (
            f"our client, estimated: {CALLS_PER_ATTEMPT} calls x {client_us:.0f} us (part 1, c=32)"
        )
        print(f"  {label:<66}{f'{estimate:16.2f}' * len(rows)}")
    cells = "".join(f"{1000 * row.cpu_s / row.attempts:16.2f}" for row in rows)
    print(f"  {'all of start_run: process CPU':<66}{cells}")
    cells = "".join(f"{1000 * row.attempts_s / row.attempts:16.2f}" for row in rows)
    print(f"  {'attempts phase, wall':<66}{cells}")
    budget = 1000 * ideal * 1.3 / attempts
    print(
        f"  to finish within 1.3 x ideal on one event-loop thread, everything the loop does "
        f"must fit in {budget:.2f} ms per attempt"
    )


# --------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=500, help="timed requests per child")
    parser.add_argument("--warmup", type=int, default=30, help="untimed requests per child")
    parser.add_argument("--rounds", type=int, default=3, help="children per client and level")
    parser.add_argument(
        "--stream",
        action="store_true",
        help="ours and tool-eval-bench ask for SSE (not the floors)",
    )
    parser.add_argument(
        "--stub-sniffio",
        action="store_true",
        help="what-if: in every client child, make httpcore's failed 'import sniffio' fail at "
        "once (as if sniffio were installed)",
    )
    parser.add_argument("--latency-tasks", type=int, default=100, help="tasks in part 2")
    parser.add_argument("--latency-repeats", type=int, default=10, help="repeats in part 2")
    parser.add_argument("--latency-concurrency", type=int, default=64)
    parser.add_argument("--latency-rounds", type=int, default=3, help="runs per endpoint")
    parser.add_argument(
        "--no-pin", action="store_true", help="do not pin the mock servers to one CPU"
    )
    parser.add_argument(
        "--teb-venv", type=Path, default=DEFAULT_TEB_VENV, help="made here when missing"
    )
    parser.add_argument("--no-teb", action="store_true", help="skip tool-eval-bench")
    parser.add_argument("--no-latency", action="store_true", help="only the CPU part")
    parser.add_argument("--latency-run", action="store_true", help="only the latency part")
    parser.add_argument("--quick", action="store_true", help="smoke run: fewer of everything")
    parser.add_argument("--profile", action="store_true", help="also cProfile both parts")
    parser.add_argument("--keep", type=Path, help="work here (e.g. build/bench) and keep it")
    parser.add_argument("--child", choices=CLIENTS, help=SUPPRESS)
    parser.add_argument("--url", help=SUPPRESS)
    parser.add_argument("--target", help=SUPPRESS)
    parser.add_argument("--concurrency", type=int, default=1, help=SUPPRESS)
    parser.add_argument("--child-profile", help=SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args)
    if args.quick:
        args.requests, args.warmup, args.rounds = 400, 20, 1
        args.latency_tasks, args.latency_repeats, args.latency_rounds = 50, 4, 1

    if args.keep is not None:
        if args.keep.exists() and any(args.keep.iterdir()):
            print(f"{args.keep} is not empty; pick an empty or new directory", file=sys.stderr)
            return 2
        args.keep.mkdir(parents=True, exist_ok=True)
        root = args.keep.resolve()
    else:
        root = Path(tempfile.mkdtemp(prefix="bench-live-"))
    try:
        return _run(args, root)
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


def _run(args: argparse.Namespace, root: Path) -> int:
    began = time.perf_counter()
    print("bench_live: live entrants against the shipped mock server (127.0.0.1)")
    print(
        f"  machine: {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}; "
        f"{datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}; load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    print(f"  scratch: {root}")
    client_us: float | None = None
    teb = Teb(None, "", "skipped (--no-teb)")
    if not args.latency_run:
        if not args.no_teb:
            teb = ensure_teb(args.teb_venv)
        print(f"  ours: {sys.executable} ({_versions(Path(sys.executable), 'bench-suite')})")
        if teb.python is not None:
            print(f"  tool-eval-bench: {teb.python} ({teb.versions})")
        else:
            print()
            print("  " + "!" * 90)
            print(f"  !!! TOOL-EVAL-BENCH {TEB_VERSION} IS NOT AVAILABLE: {teb.problem}")
            print("  !!! Only our client and the floors are measured; there is NO comparison.")
            print("  " + "!" * 90)
            print()
        client_us = cpu_part(args, root, teb)
    if not args.no_latency:
        latency_part(args, root, client_us)
    if not args.latency_run and teb.python is None:
        print(f"\n!!! tool-eval-bench was NOT measured: {teb.problem}")
    print()
    print(
        f"total {time.perf_counter() - began:.0f} s; load average now "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
