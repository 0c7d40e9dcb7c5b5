"""A run's whole cost, as a user pays it: the whole ``bench run`` process beside the whole
``tool-eval-bench run`` process (3.0.0, in its own venv), against the same loopback
OpenAI-compatible server, at the same concurrency (issue 19).

The servers are ``benchmarks/servers.py``, not the project's mock: ``typical`` (keep-alive, one
``send()`` per response) and ``split`` (Nagle on, head and body in two ``send()`` calls, as
llama.cpp's server does). Each server runs in its own process; its CPU is not counted.

For each round, server and concurrency (1, 8, 32), both tools run one after the other (the order
alternates by round), each as a fresh process started the way a user starts it:

* ``bench run --tasks tasks --corpora corpora --target T --concurrency C --repeats R
  --runs-dir D`` with an ``openai`` target (``stream: true``) pointing at the server: the 172
  tasks of ``tasks/``;
* ``tool-eval-bench run --base-url URL --model M --parallel C --trials N --seed 42 --no-live``
  in a fresh working directory (its ``runs/`` and ``data/`` land there): its 69 standard
  scenarios. Every scenario turn is streamed (its orchestrator always asks for SSE).

Measured per process, from ``os.wait4`` of the child: CPU (user + sys; the child and any
children it waited for), peak RSS (``ru_maxrss``), bytes written to storage (``ru_oublock``
x 512: page-cache bytes dirtied, the ``write_bytes`` of ``/proc/<pid>/io``), and wall time from
start to exit; from the server: chat-completion requests served (its own counter); from the disk
afterwards: bytes of every file the run left in its directory. Per request means per chat
request served during that process, so start-up, the end-of-run report and the history write
are in it, as the user pays them.

    .venv/bin/python benchmarks/bench_process.py            # about 3 minutes on 2 cores
    .venv/bin/python benchmarks/bench_process.py --quick    # one round, fewer requests, ~30 s
    .venv/bin/python benchmarks/bench_process.py --rss-only --rounds 2   # peak RSS, 172 x 5

Each round also runs both tools once with a minimal selection (one task; one scenario) at
c=1 on the first server: what a run costs apart from its requests (start-up, the end-of-run
report and history), and from it the CPU each further request adds.

The tool-eval-bench venv is made once under ``~/.cache/bench-suite/tool-eval-bench-3.0.0``
with ``pip install --require-hashes -r benchmarks/tool-eval-bench-requirements.txt`` (pinned
wheels); that pip install is the only network access. Prints figures; asserts nothing.

**Bytecode.** pip compiles every module of a package it installs (tool-eval-bench's venv has
them). An editable install has none until Python writes them, and with
``PYTHONDONTWRITEBYTECODE`` set (as on the project's machines) it never does: every ``bench``
process would compile its ~200 modules again, 0.1-0.2 s of CPU no installed copy pays. So
before anything is timed, the ``bench`` package is compiled as pip would compile it
(``compileall``; ``--source-only`` measures without, as the earlier figures were). The
scripted entrant's module (``examples/support_bot.py``) gets its bytecode too, as its first
run leaves it without that variable: compiling its 1,300 lines in every process costs about
2 MiB of peak RSS (docs/PERFORMANCE.md, issue 19, "Seventh step").
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TEB_VERSION = "3.0.0"
TEB_REQUIREMENTS = HERE / "tool-eval-bench-requirements.txt"
DEFAULT_TEB_VENV = Path.home() / ".cache" / "bench-suite" / f"tool-eval-bench-{TEB_VERSION}"
BENCH = Path(sys.executable).parent / "bench"
MODEL = "bench-process-model"
TOOLS = ("bench", "teb")
LABELS = {"bench": "bench run", "teb": f"tool-eval-bench {TEB_VERSION}"}
MINIMAL_TASK = "tool-pub-refund-delivered"  # a tool-trajectory task: a tool call, then the answer
MINIMAL_SCENARIO = "TC-01"


@dataclass
class Sample:
    tool: str
    server: str
    concurrency: int
    requests: int
    wall_s: float
    cpu_s: float
    peak_rss_kib: int
    written_bytes: int
    on_disk_bytes: int

    @property
    def cpu_ms_per_request(self) -> float:
        return 1000 * self.cpu_s / self.requests

    @property
    def requests_per_s(self) -> float:
        return self.requests / self.wall_s


class Server:
    def __init__(self, kind: str, pin: bool) -> None:
        self.kind = kind
        command = [sys.executable, str(HERE / "servers.py"), "--kind", kind]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().strip()
        if not self.url.startswith("http://"):
            self.process.kill()
            raise SystemExit(f"the {kind} server did not start: {self.url!r}")
        cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        self.pinned = ""
        if pin and len(cpus) > 1:
            os.sched_setaffinity(self.process.pid, {cpus[-1]})
            self.pinned = f"pinned to CPU {cpus[-1]}"

    def stats(self) -> dict[str, int]:
        with urllib.request.urlopen(self.url + "/__stats", timeout=10) as response:
            counts: dict[str, int] = json.loads(response.read())
        return counts

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def ensure_teb(venv: Path) -> Path:
    """The venv's python with tool-eval-bench 3.0.0, installed from the hashed pins if missing."""
    python = venv / "bin" / "python"
    probe = [
        str(python),
        "-c",
        "import importlib.metadata as m; print(m.version('tool-eval-bench'))",
    ]
    if python.exists():
        done = subprocess.run(probe, capture_output=True, text=True)
        if done.stdout.strip() == TEB_VERSION:
            return python
    print(f"  installing tool-eval-bench {TEB_VERSION} into {venv} (once, pinned with hashes)")
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    pip = [str(python), "-m", "pip", "install", "-q", "--require-hashes", "--only-binary=:all:"]
    subprocess.run([*pip, "-r", str(TEB_REQUIREMENTS)], check=True)
    return python


def _env() -> dict[str, str]:
    # Neither tool should meet a proxy on the way to 127.0.0.1, nor read a stray setting.
    drop = {"http_proxy", "https_proxy", "all_proxy", "no_proxy"}
    env = {k: v for k, v in os.environ.items() if k.lower() not in drop}
    env = {k: v for k, v in env.items() if not k.startswith(("TOOL_EVAL_", "BENCH_"))}
    env["NO_COLOR"] = "1"
    return env


def _package() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("bench")
    if spec is None or spec.origin is None:
        raise SystemExit("bench is not importable")
    return Path(spec.origin).parent


def drop_bytecode() -> None:
    """``--source-only``: remove the bench package's bytecode and the scripted entrant's, so
    each process compiles them."""
    for cache in [*_package().rglob("__pycache__"), ROOT / "examples" / "__pycache__"]:
        shutil.rmtree(cache, ignore_errors=True)


def compile_like_an_install() -> int:
    """Compile the ``bench`` package's modules to bytecode, as ``pip install`` does for a
    wheel; how many modules had none before."""
    import compileall
    import importlib.util

    package = _package()
    modules = sorted(package.rglob("*.py"))
    missing = sum(1 for m in modules if not Path(importlib.util.cache_from_source(str(m))).exists())
    compileall.compile_dir(str(package), quiet=1)
    compileall.compile_file(str(ROOT / "examples" / "support_bot.py"), quiet=1)
    return missing


def _disk_bytes(where: Path) -> int:
    return sum(p.stat().st_size for p in where.rglob("*") if p.is_file())


def write_target(path: Path, url: str) -> Path:
    text = (
        "format_version: 1\nkind: openai\nentrant: process-bench\n"
        "display_name: Process bench\n"
        f"model: {MODEL}\nbase_url: {url}/v1\n"
        "params: {temperature: 0, max_tokens: 1024}\nstream: true\n"
    )
    path.write_text(text)
    return path


def run_one(
    tool: str,
    server: Server,
    concurrency: int,
    work: Path,
    args: argparse.Namespace,
    minimal: bool = False,
) -> Sample:
    """One whole process; ``minimal``: one task (bench) or one scenario (tool-eval-bench), one
    repeat, to see what a run costs before and after its requests."""
    work.mkdir(parents=True)
    if tool == "bench":
        target = write_target(work.parent / f"{work.name}.target.yaml", server.url)
        runs = work / "runs"
        command = [str(BENCH), "run", "--tasks", str(ROOT / "tasks"), "--corpora"]
        command += [str(ROOT / "corpora"), "--target", str(target), "--runs-dir", str(runs)]
        command += ["--concurrency", str(concurrency)]
        command += ["--task", MINIMAL_TASK] if minimal else ["--repeats", str(args.repeats)]
    else:
        command = [str(args.teb_python.parent / "tool-eval-bench"), "run", "--base-url"]
        command += [server.url, "--model", MODEL, "--parallel", str(concurrency)]
        command += ["--seed", "42", "--no-live"]
        command += ["--scenarios", MINIMAL_SCENARIO] if minimal else ["--trials", str(args.trials)]
    errors = work.parent / f"{work.name}.stderr"
    before = server.stats().get("chat", 0)
    began = time.perf_counter()
    with errors.open("w") as err:
        process = subprocess.Popen(
            command, cwd=work, env=_env(), stdout=subprocess.DEVNULL, stderr=err
        )
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - began
    if process.returncode != 0:
        tail = errors.read_text()[-2000:]
        raise SystemExit(f"{' '.join(command)} exited {process.returncode}:\n{tail}")
    requests = server.stats().get("chat", 0) - before
    return Sample(
        tool=tool,
        server=server.kind,
        concurrency=concurrency,
        requests=requests,
        wall_s=wall,
        cpu_s=usage.ru_utime + usage.ru_stime,
        peak_rss_kib=usage.ru_maxrss,
        written_bytes=usage.ru_oublock * 512,
        on_disk_bytes=_disk_bytes(work),
    )


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _cell(values: list[float], fmt: str) -> str:
    if len(values) == 1:
        return format(values[0], fmt)
    return f"{format(_median(values), fmt)} ({format(min(values), fmt)}-{format(max(values), fmt)})"


def report(samples: list[Sample], servers: list[str], levels: list[int]) -> None:
    print()
    print("Per process; median (min-max) over rounds. CPU = user+sys of the whole process.")
    head = (
        f"  {'server':<8} {'c':>3} {'tool':<22} {'requests':>9} {'CPU ms/req':>20} "
        f"{'req/s':>20} {'peak RSS MiB':>18} {'written KB/req':>18} {'on disk KB/req':>16}"
    )
    print(head)
    for server in servers:
        for level in levels:
            for tool in TOOLS:
                mine = [
                    s
                    for s in samples
                    if s.server == server and s.concurrency == level and s.tool == tool
                ]
                if not mine:
                    continue
                print(
                    f"  {server:<8} {level:>3} {LABELS[tool]:<22} "
                    f"{_median([s.requests for s in mine]):>9.0f} "
                    f"{_cell([s.cpu_ms_per_request for s in mine], '.2f'):>20} "
                    f"{_cell([s.requests_per_s for s in mine], '.0f'):>20} "
                    f"{_cell([s.peak_rss_kib / 1024 for s in mine], '.1f'):>18} "
                    f"{_cell([s.written_bytes / s.requests / 1000 for s in mine], '.2f'):>18} "
                    f"{_cell([s.on_disk_bytes / s.requests / 1000 for s in mine], '.2f'):>16}"
                )
    print()
    print("bench run / tool-eval-bench, per round then the median (goals: CPU <= 0.33, req/s >= 1)")
    print(
        f"  {'server':<8} {'c':>3} {'CPU/req':>20} {'req/s':>20} {'peak RSS':>20} "
        f"{'written/req':>20}"
    )
    for server in servers:
        for level in levels:
            pairs = _pairs(samples, server, level)
            if not pairs:
                continue
            cpu = [b.cpu_ms_per_request / t.cpu_ms_per_request for b, t in pairs]
            rate = [b.requests_per_s / t.requests_per_s for b, t in pairs]
            rss = [b.peak_rss_kib / t.peak_rss_kib for b, t in pairs]
            written = [
                (b.written_bytes / b.requests) / max(1.0, t.written_bytes / t.requests)
                for b, t in pairs
            ]
            print(
                f"  {server:<8} {level:>3} {_cell(cpu, '.2f'):>20} {_cell(rate, '.2f'):>20} "
                f"{_cell(rss, '.2f'):>20} {_cell(written, '.1f'):>20}"
            )


def report_fixed(samples: list[Sample], minimal: list[Sample], server: str) -> None:
    """What a run costs apart from its requests (a one-task / one-scenario run), and the CPU
    each further request adds: (full - minimal) / (requests - minimal requests), at c=1."""
    print()
    print(
        f"Start-up and end: one task (bench run, {MINIMAL_TASK}) / one scenario "
        f"(tool-eval-bench, {MINIMAL_SCENARIO}), c=1, {server} server; median (min-max)"
    )
    print(
        f"  {'tool':<22} {'requests':>9} {'CPU s':>20} {'wall s':>20} {'peak RSS MiB':>20} "
        f"{'CPU ms per further request (c=1)':>34}"
    )
    for tool in TOOLS:
        mine = [s for s in minimal if s.tool == tool]
        full = [s for s in samples if s.tool == tool and s.server == server and s.concurrency == 1]
        if not mine:
            continue
        marginal = ""
        if full:
            extra_cpu = _median([s.cpu_s for s in full]) - _median([s.cpu_s for s in mine])
            extra_requests = _median([s.requests for s in full]) - _median(
                [s.requests for s in mine]
            )
            marginal = f"{1000 * extra_cpu / extra_requests:.2f}"
        print(
            f"  {LABELS[tool]:<22} {_median([s.requests for s in mine]):>9.0f} "
            f"{_cell([s.cpu_s for s in mine], '.2f'):>20} "
            f"{_cell([s.wall_s for s in mine], '.2f'):>20} "
            f"{_cell([s.peak_rss_kib / 1024 for s in mine], '.1f'):>20} {marginal:>34}"
        )


def _pairs(samples: list[Sample], server: str, level: int) -> list[tuple[Sample, Sample]]:
    bench = [
        s for s in samples if s.server == server and s.concurrency == level and s.tool == "bench"
    ]
    teb = [s for s in samples if s.server == server and s.concurrency == level and s.tool == "teb"]
    return list(zip(bench, teb, strict=False))


SCRIPTED_TARGET = ROOT / "examples" / "targets" / "support-bot-v1.yaml"


def _bench_usage(arguments: list[str], work: Path) -> tuple[float, int]:
    """A whole ``bench run`` process: its CPU seconds and peak RSS (KiB), from ``os.wait4``."""
    command = [str(BENCH), "run", "--tasks", str(ROOT / "tasks"), "--corpora"]
    command += [str(ROOT / "corpora"), "--runs-dir", str(work / "runs"), *arguments]
    errors = work / "stderr.txt"
    with errors.open("w") as err:
        process = subprocess.Popen(
            command, cwd=work, env=_env(), stdout=subprocess.DEVNULL, stderr=err
        )
        _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{errors.read_text()[-2000:]}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def rss_only(args: argparse.Namespace, root: Path) -> None:
    """Peak RSS of 172 x R runs (issue 19, point 3) for each kind of entrant: scripted
    (``examples/targets/support-bot-v1.yaml``), a replay of that run's cassette, and an HTTP
    ``openai`` target against the ``typical`` server at ``--concurrency`` 8."""
    repeats = args.rss_repeats
    print(f"  peak RSS of 172 tasks x {repeats} repeats, {args.rounds} round(s)")
    figures: dict[str, list[tuple[float, int]]] = {"scripted": [], "replay": [], "http": []}
    for index in range(args.rounds):
        work = root / f"rss-{index}"
        work.mkdir(parents=True)
        common = ["--repeats", str(repeats), "--progress", "none"]
        figures["scripted"].append(_bench_usage(["--target", str(SCRIPTED_TARGET), *common], work))
        recorded = next(p for p in (work / "runs").iterdir() if (p / "config.json").is_file())
        figures["replay"].append(_bench_usage(["--replay", recorded.name, *common], work))
        server = Server("typical", not args.no_pin)
        try:
            target = write_target(work / "http.target.yaml", server.url)
            http = ["--target", str(target), "--concurrency", "8", *common]
            figures["http"].append(_bench_usage(http, work))
        finally:
            server.stop()
        line = "   ".join(
            f"{kind} {runs[-1][1] / 1024:.1f} MiB {runs[-1][0]:.2f} s CPU"
            for kind, runs in figures.items()
        )
        print(f"  round {index + 1}: {line}", flush=True)
    print("\n| entrant | peak RSS MiB (median) | min-max | CPU s (median) |")
    print("|---|---|---|---|")
    for kind, runs in figures.items():
        peaks = [rss / 1024 for _, rss in runs]
        cpu = [c for c, _ in runs]
        print(
            f"| {kind} | {_median(peaks):.1f} | {min(peaks):.1f}-{max(peaks):.1f} | "
            f"{_median(cpu):.2f} |"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", default="1,8,32", help="comma-separated levels")
    parser.add_argument("--servers", default="typical,split", help="comma-separated kinds")
    parser.add_argument("--repeats", type=int, default=2, help="bench run --repeats")
    parser.add_argument("--trials", type=int, default=4, help="tool-eval-bench --trials")
    parser.add_argument("--tools", default="bench,teb", help="which tools to run")
    parser.add_argument("--teb-venv", type=Path, default=DEFAULT_TEB_VENV)
    parser.add_argument("--no-pin", action="store_true", help="do not pin the server to a CPU")
    parser.add_argument(
        "--no-minimal", action="store_true", help="skip the one-task / one-scenario runs"
    )
    parser.add_argument("--quick", action="store_true", help="1 round, 1 repeat, 2 trials")
    parser.add_argument("--keep", type=Path, help="work here and keep the run directories")
    parser.add_argument(
        "--rss-only",
        action="store_true",
        help="only the peak RSS of scripted, replay and HTTP runs of 172 tasks x --rss-repeats",
    )
    parser.add_argument("--rss-repeats", type=int, default=5)
    parser.add_argument(
        "--source-only",
        action="store_true",
        help="do not compile the bench package first (as measured before 2026-12-05)",
    )
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.repeats, args.trials = 1, 1, 2
    levels = [int(x) for x in args.concurrency.split(",")]
    servers = args.servers.split(",")
    tools = [t for t in TOOLS if t in args.tools.split(",")]
    print("bench_process: whole processes against loopback OpenAI-compatible servers")
    print(
        f"  machine: {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}; "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    if args.source_only:
        drop_bytecode()
        print("  bytecode: none for the bench package (--source-only)")
    else:
        missing = compile_like_an_install()
        print(
            f"  bytecode: the bench package compiled as an install does ({missing} had none), "
            "and the scripted entrant's module as its first run leaves it"
        )
    if args.rss_only:
        root = args.keep or Path(tempfile.mkdtemp(prefix="bench-process-"))
        try:
            rss_only(args, root)
        finally:
            if args.keep is None:
                shutil.rmtree(root, ignore_errors=True)
        return 0
    args.teb_python = ensure_teb(args.teb_venv) if "teb" in tools else None
    print(
        f"  bench run: 172 tasks x {args.repeats} repeat(s); tool-eval-bench: 69 scenarios x "
        f"{args.trials} trial(s); {args.rounds} round(s)"
    )
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-process-"))
    root.mkdir(parents=True, exist_ok=True)
    samples: list[Sample] = []
    minimal: list[Sample] = []
    began = time.perf_counter()
    try:
        for index in range(args.rounds):
            for kind in servers:
                server = Server(kind, not args.no_pin)
                try:
                    for level in levels:
                        order = tools if (index + level) % 2 == 0 else tools[::-1]
                        for tool in order:
                            work = root / f"r{index}-{kind}-c{level}-{tool}"
                            sample = run_one(tool, server, level, work, args)
                            samples.append(sample)
                            print(
                                f"  round {index + 1} {kind:<7} c={level:<2} {tool:<5} "
                                f"{sample.requests:5d} req {sample.wall_s:6.2f} s "
                                f"{sample.cpu_ms_per_request:6.2f} ms CPU/req "
                                f"{sample.requests_per_s:6.0f} req/s "
                                f"{sample.peak_rss_kib / 1024:6.1f} MiB",
                                flush=True,
                            )
                    if kind == servers[0] and not args.no_minimal:
                        for tool in tools:
                            work = root / f"r{index}-{kind}-minimal-{tool}"
                            sample = run_one(tool, server, 1, work, args, minimal=True)
                            minimal.append(sample)
                            print(
                                f"  round {index + 1} {kind:<7} one task/scenario {tool:<5} "
                                f"{sample.requests:3d} req {sample.cpu_s:5.2f} s CPU "
                                f"{sample.peak_rss_kib / 1024:6.1f} MiB",
                                flush=True,
                            )
                    counts = server.stats()
                    print(f"  {kind} server ({server.pinned or 'not pinned'}): {counts}")
                finally:
                    server.stop()
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    report(samples, servers, levels)
    if minimal:
        report_fixed(samples, minimal, servers[0])
    print(
        f"\ntotal {time.perf_counter() - began:.0f} s; load average now "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
