"""``bench run`` through HTTP servers nobody here wrote, each serving the same tiny fake model
(tests/real/shim_app.py, tests/real/shim_node.js): the harness's own HTTP/1.1 client
(bench.targets.wire) against their framing, where our mock server cannot find a bug.

Servers, all from the litellm test venv (tests/real/engines.py) but Node's: uvicorn with h11
(``--timeout-keep-alive 1``), gunicorn with a sync worker (``Connection: close`` on every
answer) and with gthread (keep-alive 1 s), gunicorn with uvicorn workers behind Starlette's
GZipMiddleware, granian (Rust, hyper), aiohttp.web (keep-alive 1 s), Python's ``http.server``
and ``wsgiref`` (HTTP/1.0: one request per connection, a stream framed by the end of the
connection), and Node's ``http`` (chunked, ``Keep-Alive: timeout=1``; skipped without
``node``). uvicorn's httptools parser is not in the venv, so not tested.

Each run names modes in its URL (shim_app.py): SSE lines in CRLF, bodies gzip-compressed
although the client asked for ``identity``, 2 MB answers, HTTP 503 with ``Retry-After`` before
every answer, ``Connection: close`` on every response, and interim ``100``/``103`` responses.
What must hold: every attempt is scored (no ``ENDPOINT_*`` error, no harness fault), every run
bundles and verifies, a connection a server closed while idle is not a failure, and no socket
is left open.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from bench.core.trace import Message, ToolDef
from bench.records import RunStore
from bench.targets import ModelRequest, TargetSpec, build_target, wire

from .conftest import ENTRANT, SLICE, TASKS, Route, RouteRun, bench
from .engines import ProvisionError, Server, _wait, free_port, litellm_home
from .test_real_engines import check_bundles, check_shape

HERE = Path(__file__).resolve().parent
KEEP_ALIVE_S = 1  # every server that keeps connections alive closes idle ones after this
# (Node closes at its keepAliveTimeout, 500 ms here, plus a second it adds: 1.5 s)
IDLE_S = 2.0


@dataclass(frozen=True)
class Kind:
    """One server: how to start it, and whether it keeps a connection alive between requests."""

    name: str
    command: Callable[[Path, int], list[str]]  # (venv bin, port) -> argv
    keeps_alive: bool


def _gunicorn(worker: str, app: str, *more: str) -> Callable[[Path, int], list[str]]:
    return lambda bin_, port: [
        str(bin_ / "gunicorn"), "--chdir", str(HERE), "-b", f"127.0.0.1:{port}", "-k", worker,
        "--workers", "2", "--keep-alive", str(KEEP_ALIVE_S), "--log-level", "warning",
        *more, f"shim_app:{app}",
    ]  # fmt: skip


def _shim(kind: str, *more: str) -> Callable[[Path, int], list[str]]:
    return lambda bin_, port: [str(bin_ / "python"), str(HERE / "shim_app.py"), kind,
                               str(port), *more]  # fmt: skip


KINDS = (
    Kind(
        "uvicorn-h11",
        lambda bin_, port: [
            str(bin_ / "python"),
            "-m",
            "uvicorn",
            "--app-dir",
            str(HERE),
            "--http",
            "h11",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--timeout-keep-alive",
            str(KEEP_ALIVE_S),
            "--no-access-log",
            "--log-level",
            "warning",
            "shim_app:asgi",
        ],
        True,
    ),  # fmt: skip
    Kind("gunicorn-sync", _gunicorn("sync", "wsgi"), False),
    Kind("gunicorn-gthread", _gunicorn("gthread", "wsgi", "--threads", "4"), True),
    Kind("gunicorn-uvicorn-gzip", _gunicorn("uvicorn.workers.UvicornWorker", "asgi_gzip"), True),
    Kind(
        "granian",
        lambda bin_, port: [
            str(bin_ / "granian"),
            "--interface",
            "asgi",
            "--working-dir",
            str(HERE),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--no-ws",
            "shim_app:asgi",
        ],
        True,
    ),  # fmt: skip
    Kind("aiohttp", _shim("aiohttp", str(KEEP_ALIVE_S)), True),
    Kind("http.server", _shim("httpserver"), False),
    Kind("wsgiref", _shim("wsgiref"), False),
    Kind(
        "node",
        lambda bin_, port: [
            str(shutil.which("node")),
            str(HERE / "shim_node.js"),
            str(port),
            "500",
        ],
        True,
    ),  # fmt: skip
)


@dataclass(frozen=True)
class ShimRun:
    server: str
    kind: str  # openai | anthropic
    stream: bool
    concurrency: int
    modes: str  # shim_app.py's modes, joined by "+"; "" for none

    @property
    def name(self) -> str:
        shape = f"{self.kind}{'-stream' if self.stream else ''}-c{self.concurrency}"
        return f"{self.server}-{shape}" + (f"-{self.modes}" if self.modes else "")


RUNS = (
    ShimRun("uvicorn-h11", "anthropic", True, 4, "crlf"),
    ShimRun("gunicorn-sync", "anthropic", False, 1, "big"),
    ShimRun("gunicorn-gthread", "openai", False, 4, "flaky"),
    ShimRun("gunicorn-uvicorn-gzip", "openai", True, 1, "gzip"),
    ShimRun("granian", "openai", True, 4, "big"),
    ShimRun("aiohttp", "anthropic", True, 4, "gzip+crlf"),
    ShimRun("http.server", "anthropic", False, 4, "flaky"),
    ShimRun("wsgiref", "openai", False, 4, "gzip"),
    ShimRun("node", "openai", True, 4, "interim+crlf"),
    ShimRun("node", "anthropic", False, 1, "interim+close"),
)


@pytest.fixture(scope="session")
def shim_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Server]]:
    """Every server of ``KINDS`` (Node's only when ``node`` is on PATH), started side by side."""
    try:
        venv_bin = litellm_home() / "venv" / "bin"
    except ProvisionError as exc:
        pytest.skip(f"the litellm test venv could not be provisioned: {exc}")
    logs = tmp_path_factory.mktemp("shim-servers")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPATH", None)
    started: list[Server] = []
    try:
        for kind in KINDS:
            if kind.name == "node" and shutil.which("node") is None:
                continue
            port = free_port()
            log = logs / f"{kind.name}.log"
            with log.open("wb") as out:
                process = subprocess.Popen(kind.command(venv_bin, port), stdout=out,
                                           stderr=subprocess.STDOUT, env=env, cwd=HERE)  # fmt: skip
            started.append(Server(kind.name, f"http://127.0.0.1:{port}", process, log))
        for server in started:
            _wait(server, "/health", {}, 30)
        yield {server.name: server for server in started}
    finally:
        for server in started:
            server.stop()


def _target(directory: Path, run: ShimRun, server: Server) -> Path:
    base = server.url + (f"/{run.modes}" if run.modes else "")
    data: dict[str, object] = {
        "format_version": 1,
        "kind": run.kind,
        "entrant": ENTRANT,
        "display_name": f"shim on {run.server} ({run.name})",
        "model": "bench-mock",
        "base_url": base + ("/v1" if run.kind == "openai" else ""),
        "params": {"temperature": 0, "max_tokens": 128},
        "stream": run.stream,
        "retry": {"base_s": 0.01, "cap_s": 0.05},
    }
    path = directory / f"{run.name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def shim_runs(
    shim_servers: dict[str, Server], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, RouteRun | str]:
    """``bench run`` of the slice for every run of ``RUNS`` whose server started: a
    ``RouteRun``, or what went wrong."""
    base = tmp_path_factory.mktemp("shim-runs")
    done: dict[str, RouteRun | str] = {}
    lock = threading.Lock()

    def one(run: ShimRun) -> None:
        runs = base / "runs" / run.name
        target = _target(base, run, shim_servers[run.server])
        args = ["run", "--tasks", str(TASKS), "--target", str(target), "--split", "public",
                "--concurrency", str(run.concurrency), "--timeout", "30",
                "--runs-dir", str(runs), "--progress", "none"]  # fmt: skip
        for task in SLICE:
            args += ["--task", task]
        result = bench(*args)
        made = sorted(p for p in runs.glob("2*") if p.is_dir())
        route = Route(run.name, run.kind, "shim", run.stream, "-")
        with lock:
            if result.returncode != 0 or len(made) != 1:
                done[run.name] = (
                    f"exit {result.returncode}\n{result.stdout[-2000:]}\n" + (result.stderr[-2000:])
                )
            else:
                done[run.name] = RouteRun(route, target, made[0], result.stdout)

    with ThreadPoolExecutor(max_workers=3) as pool:
        list(pool.map(one, [r for r in RUNS if r.server in shim_servers]))
    return done


def _ran(shim_runs: dict[str, RouteRun | str], run: ShimRun) -> RouteRun:
    if run.server == "node" and shutil.which("node") is None:
        pytest.skip("node is not on PATH")
    got = shim_runs[run.name]
    assert isinstance(got, RouteRun), f"{run.name}: {got}"
    return got


@pytest.mark.parametrize("run", RUNS, ids=[r.name for r in RUNS])
def test_every_attempt_through_the_server_is_scored(
    shim_runs: dict[str, RouteRun | str], run: ShimRun
) -> None:
    done = _ran(shim_runs, run)
    check_shape(done, run.name)
    records = list(RunStore(done.run_dir.parent).resolve(done.run_dir.name).attempts())
    failed = {r.task_id: (r.outcome, r.reason) for r in records if r.outcome != "scored"}
    assert not failed, (run.name, failed, done.output)
    # a 503 with Retry-After was retried, and only where the app sent one
    said = json.dumps([e.response for r in records for e in r.trace.exchanges])
    assert ('"status": 503' in said) == ("flaky" in run.modes), run.name


def test_every_run_bundles_and_verifies(
    shim_runs: dict[str, RouteRun | str], tmp_path: Path
) -> None:
    runs = {r.name: _ran(shim_runs, r) for r in RUNS if r.server != "node" or shutil.which("node")}
    check_bundles(runs, tmp_path)


QUESTION = ModelRequest(
    model="bench-mock",
    messages=[Message(role="user", content="Where is order 42?")],
    tools=[
        ToolDef(
            name="get_order",
            description="One order.",
            parameters={
                "type": "object",
                "properties": {"order_id": {"type": "string"}},
                "required": ["order_id"],
            },
        )
    ],  # fmt: skip
    params={"max_tokens": 64},
)


def _sockets() -> int:
    """This process's open sockets."""
    fds = Path("/proc/self/fd")
    count = 0
    for fd in fds.iterdir():
        with contextlib.suppress(OSError):
            count += os.readlink(fd).startswith("socket:")
    return count


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts sockets in /proc")
def test_idle_connections_closed_by_the_server_are_no_failure_and_none_is_left_open(
    shim_servers: dict[str, Server],
) -> None:
    """Against every server at once: four requests at a time, plain and streamed, both
    protocols; then a pause past the servers' keep-alive timeout, which closes every pooled
    connection; then the same again on the same targets. Every answer arrives, and once the
    targets are closed this process holds no more sockets than before."""

    async def go() -> dict[str, list[str]]:
        targets = {}
        for server in shim_servers.values():
            for kind in ("openai", "anthropic"):
                for stream in (False, True):
                    spec = TargetSpec.model_validate(
                        {"format_version": 1, "kind": kind, "entrant": "shim",
                         "display_name": "shim", "model": "bench-mock", "stream": stream,
                         "base_url": server.url + ("/v1" if kind == "openai" else ""),
                         "retry": {"max_attempts": 1}}
                    )  # fmt: skip
                    key = f"{server.name} {kind}{' stream' if stream else ''}"
                    targets[key] = build_target(spec, Path("."), Path("t.yaml"), env={})
        seen: dict[str, list[str]] = {key: [] for key in targets}

        async def ask(key: str) -> None:
            answer = await targets[key].complete(QUESTION)
            seen[key].append(",".join(c.name for c in answer.tool_calls))

        try:
            for _ in range(2):
                await asyncio.gather(*(ask(key) for key in targets for _ in range(4)))
                await asyncio.sleep(IDLE_S)
        finally:
            for target in targets.values():
                await target.aclose()  # type: ignore[attr-defined]
        return seen

    before = _sockets()
    seen = asyncio.run(go())
    assert all(calls == ["get_order"] * 8 for calls in seen.values()), seen
    assert _sockets() == before


JSON = {"content-type": "application/json"}


def test_the_servers_frame_as_documented(shim_servers: dict[str, Server]) -> None:
    """What each server does differently is what the runs above went through: its status
    line, its framing of a stream, and whether it keeps the connection."""

    async def go() -> dict[str, tuple[str, str, bool]]:
        found = {}
        pool = wire.Pool()
        try:
            for name, server in shim_servers.items():
                message = {"role": "user", "content": "hi"}
                body = json.dumps({"model": "bench-mock", "stream": True, "messages": [message]})
                url = server.url + "/v1/chat/completions"
                async with pool.stream("POST", url, body.encode(), JSON) as response:
                    text = b"".join([c async for c in response.aiter_bytes()])
                    assert b"[DONE]" in text, (name, text[-200:])
                    framing = response.headers.get("transfer-encoding", "close-delimited")
                    found[name] = (response.http_version, framing, response.keep_alive)
        finally:
            await pool.aclose()
        return found

    found = asyncio.run(go())
    expected = {
        "uvicorn-h11": ("HTTP/1.1", "chunked", True),
        "gunicorn-sync": ("HTTP/1.1", "chunked", False),
        "gunicorn-gthread": ("HTTP/1.1", "chunked", True),
        "gunicorn-uvicorn-gzip": ("HTTP/1.1", "chunked", True),
        "granian": ("HTTP/1.1", "chunked", True),
        "aiohttp": ("HTTP/1.1", "chunked", True),
        "http.server": ("HTTP/1.0", "close-delimited", False),
        "wsgiref": ("HTTP/1.0", "close-delimited", False),
        "node": ("HTTP/1.1", "chunked", True),
    }
    assert found == {name: expected[name] for name in found}
