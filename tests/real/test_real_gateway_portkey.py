"""``bench run`` through Portkey's AI gateway (``@portkey-ai/gateway`` 1.15.2 from npm, on Node,
tests/real/portkey_gateway.py) in front of the project's mock server: a gateway that routes by
request headers (``x-portkey-provider``, ``x-portkey-custom-host``), which the targets send
with ``headers:``.

Six routes, plain and streamed, at concurrency 1 and 4: OpenAI chat completions passed
through (provider ``openai``), Anthropic Messages passed through (provider ``anthropic``), and
OpenAI chat completions that the gateway translates to Anthropic Messages and back (provider
``anthropic`` on ``/v1/chat/completions``: its "universal API", which rewrites every body and
every stream). The mock's policy is deterministic, so each route must give the answers a run
straight to the mock gives. What must hold: every attempt is scored, every run bundles and
verifies, the gateway changed no answer, the tokens it reports are counted right, and it
reached no one but the mock (its log names every other connection it tried).

Skipped, with the reason, when node/npm are missing or npm's registry cannot be reached for
the first install. About 50 s once installed (25 s of CPU: seven runs of the slice, six
bundles verified), on two shared cores; the first ``npm ci`` takes about 30 s more.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from bench.records import RunStore
from bench.testing.mock_server import MockServer

from .conftest import ENTRANT, REPO, SLICE, TASKS, Route, RouteRun, bench
from .engines import Server
from .portkey_gateway import OUTBOUND, VERSION, Unavailable, portkey_home, start_portkey
from .test_real_compat import HEAD, Wire, _identity, measure
from .test_real_engines import check_bundles, check_shape


@dataclass(frozen=True)
class Way:
    """One route: the protocol the harness speaks, the provider the gateway is told to use
    (None: straight to the mock, the reference), streaming, the run's concurrency."""

    name: str
    kind: str  # openai | anthropic
    provider: str | None
    stream: bool
    concurrency: int


WAYS = (
    Way("direct", "openai", None, False, 4),
    Way("openai", "openai", "openai", False, 1),
    Way("openai-stream", "openai", "openai", True, 4),
    Way("anthropic", "anthropic", "anthropic", False, 4),
    Way("anthropic-stream", "anthropic", "anthropic", True, 1),
    Way("translated", "openai", "anthropic", False, 4),
    Way("translated-stream", "openai", "anthropic", True, 1),
)
THROUGH = [w for w in WAYS if w.provider is not None]


@dataclass(frozen=True)
class Gateway:
    portkey: Server
    mock: MockServer


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    try:
        home = portkey_home()
    except Unavailable as exc:
        pytest.skip(f"Portkey's gateway cannot be installed here: {exc}")
    with MockServer() as mock:
        portkey = start_portkey(home, tmp_path_factory.mktemp("portkey"))
        try:
            yield Gateway(portkey, mock)
        finally:
            portkey.stop()


def _target(directory: Path, way: Way, gateway: Gateway) -> Path:
    root = gateway.mock.url if way.provider is None else gateway.portkey.url
    data: dict[str, Any] = {
        "format_version": 1,
        "kind": way.kind,
        "entrant": ENTRANT,
        "display_name": f"the mock through Portkey {VERSION} ({way.name})",
        "model": "bench-mock",
        "base_url": root + ("/v1" if way.kind == "openai" else ""),
        "params": {"temperature": 0, "max_tokens": 128},
        "stream": way.stream,
    }
    if way.provider is not None:
        data["headers"] = {
            "x-portkey-provider": way.provider,
            "x-portkey-custom-host": gateway.mock.url + "/v1",
        }
    path = directory / f"{way.name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def runs(gateway: Gateway, tmp_path_factory: pytest.TempPathFactory) -> dict[str, RouteRun | str]:
    """``bench run`` of the slice on every route, three at a time: a ``RouteRun``, or what
    went wrong."""
    base = tmp_path_factory.mktemp("portkey-runs")
    done: dict[str, RouteRun | str] = {}
    lock = threading.Lock()

    def one(way: Way) -> None:
        runs_dir = base / "runs" / way.name
        target = _target(base, way, gateway)
        args = ["run", "--tasks", str(TASKS), "--target", str(target), "--split", "public",
                "--concurrency", str(way.concurrency), "--timeout", "30",
                "--runs-dir", str(runs_dir), "--progress", "none"]  # fmt: skip
        for task in SLICE:
            args += ["--task", task]
        result = bench(*args)
        made = sorted(p for p in runs_dir.glob("2*") if p.is_dir())
        with lock:
            if result.returncode != 0 or len(made) != 1:
                done[way.name] = (
                    f"exit {result.returncode}\n{result.stdout[-2000:]}\n" + (result.stderr[-2000:])
                )
            else:
                route = Route(way.name, way.kind, "portkey", way.stream, "-")
                done[way.name] = RouteRun(route, target, made[0], result.stdout)

    with ThreadPoolExecutor(max_workers=3) as pool:
        list(pool.map(one, WAYS))
    return done


def _ran(runs: dict[str, RouteRun | str], way: Way, gateway: Gateway) -> RouteRun:
    got = runs[way.name]
    assert isinstance(got, RouteRun), f"{way.name}: {got}\n{gateway.portkey.log_tail()}"
    return got


def _records(run: RouteRun) -> list[Any]:
    return list(RunStore(run.run_dir.parent).resolve(run.run_dir.name).attempts())


@pytest.mark.parametrize("way", WAYS, ids=[w.name for w in WAYS])
def test_every_attempt_through_the_gateway_is_scored(
    runs: dict[str, RouteRun | str], gateway: Gateway, way: Way
) -> None:
    done = _ran(runs, way, gateway)
    check_shape(done, way.name)
    failed = {r.task_id: (r.outcome, r.reason) for r in _records(done) if r.outcome != "scored"}
    assert not failed, (way.name, failed, done.output)


def _story(run: RouteRun) -> dict[str, list[Any]]:
    """Per task: every tool call (name, arguments) and the final answer, in order."""
    return {
        record.task_id: [(c.name, c.arguments) for c in record.trace.tool_calls]
        + list(record.trace.answers)
        for record in _records(run)
    }


@pytest.mark.parametrize("way", THROUGH, ids=[w.name for w in THROUGH])
def test_the_gateway_changes_no_answer(
    runs: dict[str, RouteRun | str], gateway: Gateway, way: Way
) -> None:
    """The mock answers a conversation the same way whichever protocol carried it: through the
    gateway, every call and every answer is the one a run straight to the mock got."""
    direct = _ran(runs, WAYS[0], gateway)
    assert _story(_ran(runs, way, gateway)) == _story(direct)


@pytest.mark.parametrize("way", [w for w in THROUGH if w.name.startswith("translated")],
                         ids=lambda w: w.name)  # fmt: skip
def test_the_translated_usage_counts_the_cached_prompt(
    runs: dict[str, RouteRun | str], gateway: Gateway, way: Way
) -> None:
    """Translating an Anthropic answer, the gateway says ``prompt_tokens`` = Anthropic's
    ``input_tokens`` (the uncached part only), the cache read beside it (``cached_tokens``,
    ``cache_read_input_tokens``), and ``total_tokens`` = all of them. The prompt recorded is
    the whole prompt, of which the cached part is a part, as on the Anthropic route."""
    seen = 0
    for record in _records(_ran(runs, way, gateway)):
        for exchange in record.trace.exchanges:
            said = exchange.response["raw"]["response"]["usage"]
            usage = exchange.response["usage"]
            read = said.get("cache_read_input_tokens") or 0
            seen += read > 0
            assert usage["prompt_tokens"] == said["total_tokens"] - said["completion_tokens"]
            assert usage["cached_tokens"] == read
            assert usage["prompt_tokens"] == said["prompt_tokens"] + read
    assert seen, "no call read the mock's cache: nothing was checked"


def test_every_run_bundles_and_verifies(
    runs: dict[str, RouteRun | str], gateway: Gateway, tmp_path: Path
) -> None:
    check_bundles({w.name: _ran(runs, w, gateway) for w in THROUGH}, tmp_path)


def test_the_gateway_reached_only_the_mock(
    runs: dict[str, RouteRun | str], gateway: Gateway
) -> None:
    """Every run's probe went through the gateway with the target's headers (it names the
    mock, whose ``Server`` header the gateway passes on; without them the gateway answers
    HTTP 400), every model call reached the mock, and the gateway tried no other host."""
    calls = 0
    for way in THROUGH:
        done = _ran(runs, way, gateway)
        server = RunStore(done.run_dir.parent).resolve(done.run_dir.name).config().server
        assert server is not None and server["engine"] == "bench-mock", (way.name, server)
        calls += sum(len(r.trace.exchanges) for r in _records(done))
    direct = sum(len(r.trace.exchanges) for r in _records(_ran(runs, WAYS[0], gateway)))
    assert len(gateway.mock.model_requests()) == calls + direct
    assert OUTBOUND not in gateway.portkey.log_tail(10**6)


DOC = REPO / "docs" / "TARGETS.md"
BEGIN, END = "<!-- compat-gateways:begin -->", "<!-- compat-gateways:end -->"
# (row, protocol, the provider the gateway is told): the mock behind each
TABLE_ROUTES = (
    (f"Portkey {VERSION} → the mock server, OpenAI chat completions", "openai", "openai"),
    (f"Portkey {VERSION} → the mock server, Anthropic Messages", "anthropic", "anthropic"),
    (f"Portkey {VERSION} → the mock server's Anthropic Messages, OpenAI chat completions "
     "(translated)", "openai", "anthropic"),
)  # fmt: skip


def test_the_gateway_rows_of_the_compatibility_table(gateway: Gateway) -> None:
    """docs/TARGETS.md's table of gateways is what this one does, measured now as
    test_real_compat.py measures the servers (``BENCH_UPDATE_COMPAT=1`` rewrites it). The
    identity is ``bench probe``'s, which sends no gateway headers: Portkey refuses it."""
    rows = [HEAD, "|" + "---|" * (HEAD.count("|") - 1)]
    identity = _identity(gateway.portkey.url + "/v1", None)
    for name, kind, provider in TABLE_ROUTES:
        wire = Wire(kind, gateway.portkey.url + ("/v1" if kind == "openai" else ""),
                    "bench-mock", None)  # fmt: skip
        wire.headers.update(
            {"x-portkey-provider": provider, "x-portkey-custom-host": gateway.mock.url + "/v1"}
        )
        rows.append("| " + " | ".join([name, *measure(wire, identity)]) + " |")
    table = "\n".join(rows)
    text = DOC.read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    if os.environ.get("BENCH_UPDATE_COMPAT") == "1":
        DOC.write_text(text[:start] + "\n" + table + "\n" + text[end:], encoding="utf-8")
        return
    assert text[start:end].strip() == table, "measured:\n" + table
