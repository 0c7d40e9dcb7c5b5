"""Session fixtures: two llama-cpp-python engines and a LiteLLM proxy in front of both, all on
127.0.0.1 (tests/real/engines.py), and one run per route over a slice of the shipped public
tasks, one task from every family.

Six routes: the engine directly (OpenAI chat completions, plain and streamed), and through
LiteLLM (OpenAI chat completions and Anthropic Messages, plain and streamed). The engines
answer one request at a time, so the routes run in two lanes, one per engine, side by side.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from .engines import LITELLM_KEY, Server, engine_home, litellm_home, start_engine, start_litellm
from .llama_server import server_home, start_llama_server

REPO = Path(__file__).resolve().parents[2]
TASKS = REPO / "tasks"
SLICE = (
    "gqa-pub-shipping-cutoff",
    "lh-pub-order-conditional",
    "mts-pub-skipped-then-interval",
    "ref-pub-data-export-third-party-refuse",
    "ext-pub-harbor-print",
    "tool-pub-refund-delivered",
)
KEY_ENV = "BENCH_TEST_LITELLM_KEY"
ENTRANT = "smollm2-real"


@dataclass(frozen=True)
class Route:
    name: str
    kind: str  # openai | anthropic
    via: str  # engine | litellm
    stream: bool
    lane: str  # a | b: which engine answers it


ROUTES = (
    Route("direct", "openai", "engine", False, "a"),
    Route("direct-stream", "openai", "engine", True, "a"),
    Route("gateway-anthropic", "anthropic", "litellm", False, "a"),
    Route("gateway-openai", "openai", "litellm", False, "b"),
    Route("gateway-openai-stream", "openai", "litellm", True, "b"),
    Route("gateway-anthropic-stream", "anthropic", "litellm", True, "b"),
)


@dataclass(frozen=True)
class Servers:
    engines: dict[str, Server]  # lane -> engine
    litellm: Server

    def base_url(self, route: Route) -> str:
        if route.via == "engine":
            return self.engines[route.lane].url + "/v1"
        return self.litellm.url + ("/v1" if route.kind == "openai" else "")

    def model(self, route: Route) -> str:
        return "smollm2" if route.via == "engine" else f"smollm2-{route.lane}"


@pytest.fixture(scope="session")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    logs = tmp_path_factory.mktemp("servers")
    engine, gateway = engine_home(), litellm_home()
    started: list[Server] = []
    try:
        for lane in ("a", "b"):
            started.append(start_engine(engine, logs, f"engine-{lane}"))
        engines = {"a": started[0], "b": started[1]}
        backends = {f"smollm2-{lane}": server.url + "/v1" for lane, server in engines.items()}
        started.append(start_litellm(gateway, logs, backends))
        yield Servers(engines, started[2])
    finally:
        for server in started:
            server.stop()


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """llama.cpp's own ``llama-server`` (tests/real/llama_server.py), one for the session: its
    OpenAI and its Anthropic routes (test_real_llama_server*.py) are asked in turn."""
    server = start_llama_server(server_home(), tmp_path_factory.mktemp("llama-server"))
    try:
        yield server
    finally:
        server.stop()


def write_target(directory: Path, servers: Servers, route: Route) -> Path:
    """The target file a contributor would write: a token cap, streaming as the route says."""
    return target_file(directory, route, servers.base_url(route), servers.model(route),
                       "llama-cpp-python")  # fmt: skip


def target_file(directory: Path, route: Route, base_url: str, model: str, engine: str) -> Path:
    data: dict[str, object] = {
        "format_version": 1,
        "kind": route.kind,
        "entrant": ENTRANT,  # one entrant: every route asks the same model
        "display_name": f"SmolLM2-135M-Instruct Q4_1, {engine} ({route.name})",
        "model": model,
        "base_url": base_url,
        "params": {"temperature": 0, "max_tokens": 128},
        "stream": route.stream,
        "max_in_flight": 1,  # each engine answers one request at a time (docs/TARGETS.md)
    }
    if route.via == "litellm":
        data["api_key_env"] = KEY_ENV
    path = directory / f"{route.name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


@dataclass(frozen=True)
class RouteRun:
    route: Route
    target: Path
    run_dir: Path
    output: str


def bench(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bench.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, KEY_ENV: LITELLM_KEY, **(env or {})},
        cwd=REPO,
    )


def run_route(
    base: Path, route: Route, target: Path, done: dict[str, RouteRun], problems: list[str]
) -> None:
    """``bench run`` of the slice against one target: into ``done``, else into ``problems``."""
    runs = base / "runs" / route.name
    args = ["run", "--tasks", str(TASKS), "--target", str(target), "--split", "public",
            "--concurrency", "1", "--timeout", "30", "--runs-dir", str(runs)]  # fmt: skip
    for task in SLICE:
        args += ["--task", task]
    result = bench(*args)
    made = sorted(p for p in runs.glob("2*") if p.is_dir())
    if result.returncode != 0 or len(made) != 1:
        problems.append(f"{route.name}: exit {result.returncode}\n{result.stderr[-2000:]}")
        return
    done[route.name] = RouteRun(route, target, made[0], result.stdout)


@pytest.fixture(scope="session")
def route_runs(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> dict[str, RouteRun]:
    """``bench run`` of the slice on every route, the two lanes side by side."""
    base = tmp_path_factory.mktemp("routes")
    done: dict[str, RouteRun] = {}
    problems: list[str] = []

    def lane(which: str) -> None:
        for route in (r for r in ROUTES if r.lane == which):
            run_route(base, route, write_target(base, servers, route), done, problems)

    threads = [threading.Thread(target=lane, args=(which,)) for which in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not problems, "\n".join(problems)
    return done
