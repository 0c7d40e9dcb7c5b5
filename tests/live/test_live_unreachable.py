"""An endpoint that is not there, or goes away: real HTTP on 127.0.0.1, the real client.

Before the run: nothing accepting connections is waited for up to ``--wait-ready`` and then
refused with ``ENDPOINT_UNREACHABLE``, before anything is written; a host name that does not
resolve and an ``https://`` URL to a plain-HTTP port are refused at once. During the run: after
``--stop-unreachable`` attempts in a row that could not connect at all, the run stops as an
interrupted one, and ``--resume`` finishes it once the server is back, with the scores of a
run that never stopped (docs/DECISIONS.md 52)."""

from __future__ import annotations

import asyncio
import http.server
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.core.errors import EntrantError
from bench.records import RunStore
from bench.records.run import AttemptRecord
from bench.reports import summarize
from bench.runner import RunRequest, engine, resume_run, start_run
from bench.testing import mock_server as mock_module
from bench.testing.mock_server import MockServer


def closed_port() -> int:
    """A loopback port nothing listens on: bound, then closed."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def _request(mini: Path, target: Path, **more: Any) -> RunRequest:
    return RunRequest(tasks=mini / "tasks", target_file=target, runs_dir=mini / "runs", **more)


def _nothing_written(mini: Path) -> bool:
    runs = mini / "runs"
    return not runs.exists() or not any(runs.iterdir())


def bench(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bench.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


# -- before the run ---------------------------------------------------------------------------


def test_a_closed_port_is_refused_before_anything_is_written(
    mini: Path, target_file: Callable[..., Path]
) -> None:
    target = target_file("closed", f"http://127.0.0.1:{closed_port()}/v1")
    with pytest.raises(EntrantError) as at_once:
        start_run(_request(mini, target, wait_ready_s=0))
    assert at_once.value.code == "ENDPOINT_UNREACHABLE"
    assert "nothing accepts connections at http://127.0.0.1:" in at_once.value.message
    assert "--wait-ready" in at_once.value.message and "waiting" not in at_once.value.message
    told: list[str] = []
    with pytest.raises(EntrantError) as waited:
        start_run(_request(mini, target, wait_ready_s=0.6, on_notice=told.append))
    assert waited.value.code == "ENDPOINT_UNREACHABLE"
    assert "after waiting 0.6 s" in waited.value.message
    assert len(told) == 1 and "to accept connections" in told[0]
    assert _nothing_written(mini)


def test_a_server_that_starts_while_the_run_waits_is_run_against(
    mini: Path, target_file: Callable[..., Path]
) -> None:
    port = closed_port()
    target = target_file("late", f"http://127.0.0.1:{port}/v1")
    server = MockServer(port=port, max_seconds=120)
    starter = threading.Timer(1.5, server.start)
    starter.start()
    told: list[str] = []
    try:
        run_dir, status = start_run(
            _request(mini, target, task_ids=("qa-0001",), wait_ready_s=30, on_notice=told.append)
        )
    finally:
        starter.join()
        server.stop()
    assert status.status == "complete"
    [record] = run_dir.attempts()
    assert record.outcome == "scored", record.reason
    config_server = run_dir.config().server
    assert config_server is not None and config_server["engine"] == "bench-mock"
    assert len(told) == 1 and f"127.0.0.1:{port}" in told[0]


def test_a_host_name_that_does_not_resolve_is_refused_at_once(
    mini: Path, target_file: Callable[..., Path]
) -> None:
    # A name the C library refuses without asking a DNS server: the test stays offline.
    target = target_file("nohost", "http://-bad-:8000/v1")
    started = time.monotonic()
    with pytest.raises(EntrantError) as info:
        start_run(_request(mini, target, wait_ready_s=60))
    assert info.value.code == "ENDPOINT_UNREACHABLE"
    assert "'-bad-'" in info.value.message and "does not resolve" in info.value.message
    assert time.monotonic() - started < 50  # not the 60 s wait: waiting does not mend a name
    assert _nothing_written(mini)


@pytest.fixture
def plain_http() -> Iterator[int]:
    """A plain HTTP server (the standard library's): it answers a TLS hello with a 400."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def test_https_to_a_plain_http_port_is_refused_at_once(
    mini: Path, target_file: Callable[..., Path], plain_http: int
) -> None:
    target = target_file("tls", f"https://127.0.0.1:{plain_http}/v1")
    with pytest.raises(EntrantError) as info:
        start_run(_request(mini, target, wait_ready_s=60))
    assert info.value.code == "ENDPOINT_UNREACHABLE"
    assert "TLS handshake" in info.value.message and "plain http://" in info.value.message
    assert _nothing_written(mini)


def test_the_cli_says_so_in_one_line_and_so_does_bench_probe(
    mini: Path, target_file: Callable[..., Path], plain_http: int
) -> None:
    port = closed_port()
    target_file("closed", f"http://127.0.0.1:{port}/v1")
    done = bench(
        "run", "--tasks", "tasks", "--target", "targets/closed.yaml", "--runs-dir", "runs",
        "--wait-ready", "0", cwd=mini,
    )  # fmt: skip
    assert done.returncode == 5, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("error[ENDPOINT_UNREACHABLE]: nothing accepts connections at ")
    assert "--wait-ready" in line
    assert done.stdout == "" and _nothing_written(mini)
    for url, said in (
        (f"http://127.0.0.1:{port}/v1", "connection refused"),
        ("http://-bad-:8000/v1", "does not resolve"),
        (f"https://127.0.0.1:{plain_http}/v1", "TLS handshake failed"),
    ):
        probed = bench("probe", "--base-url", url, cwd=mini)
        assert probed.returncode == 5, probed.stderr
        [line] = probed.stderr.splitlines()
        assert line.startswith("error[ENDPOINT_UNREACHABLE]: nothing answered at ")
        assert said in line


# -- during the run ---------------------------------------------------------------------------


class CrashingServer(MockServer):
    """The mock server, crashing right after its ``answers``-th model answer: it stops
    listening before that answer goes out and closes the connection after it, so every later
    request is refused and nothing it answered is lost (a crash between two attempts)."""

    def __init__(self, answers: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.answers = answers
        self.crashed = False
        self._listener: asyncio.Server | None = None

    async def serve(self, on_ready: Callable[[str], None] | None = None) -> None:
        """``MockServer.serve``, keeping its listening server to close at the crash."""
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self._listener = await asyncio.start_server(self._handle, self.host, self.port)
        self._started_at = time.monotonic()
        self._ready.set()
        try:
            async with asyncio.timeout(self.max_seconds):
                await self._stop.wait()
        except TimeoutError:
            pass
        finally:
            self._listener.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _route(
        self, writer: asyncio.StreamWriter, method: str, path: str, *rest: Any
    ) -> None:
        if self.crashed:  # a kept-alive connection of the crashed server: gone
            raise ConnectionResetError("crashed")
        if method == "POST" and len(self.model_requests()) >= self.answers:
            assert self._listener is not None
            self._listener.close()  # later connections are refused from now on
            self.crashed = True
            mock_module._KEEP_ALIVE.set(False)
        await super()._route(writer, method, path, *rest)


def what_happened(record: AttemptRecord) -> dict[str, Any]:
    """An attempt without timings, run ids or transport details."""
    trace = record.trace
    return {
        "messages": [m.model_dump(mode="json") for m in trace.messages],
        "requests": [e.request for e in trace.exchanges],
        "outcome": record.outcome,
        "value": record.value,
        "verdicts": [v.model_dump(mode="json") for v in record.verdicts],
    }


def _order(run: Any) -> list[tuple[str, int]]:
    config = run.config()
    return [(t, r) for t in config.task_set.task_ids for r in range(config.repeats)]


def test_a_run_whose_server_goes_away_stops_and_resumes_to_the_uninterrupted_result(
    mini: Path, target_file: Callable[..., Path]
) -> None:
    more = {"split": "public", "repeats": 4, "concurrency": 1, "stop_unreachable": 3}
    with MockServer(max_seconds=120) as server:
        reference_dir, _ = start_run(
            _request(mini, target_file("reference", server.url + "/v1"), **more)
        )
    by_key = {(r.task_id, r.repeat): r for r in reference_dir.attempts()}
    order = _order(reference_dir)
    kept = 5  # the server crashes right after the last answer of the fifth attempt
    answers = sum(len(by_key[key].trace.exchanges) for key in order[:kept])

    port = closed_port()
    target = target_file("crashing", f"http://127.0.0.1:{port}/v1")
    crashing = CrashingServer(answers, port=port, max_seconds=120)
    with crashing, pytest.raises(EntrantError) as info:
        start_run(_request(mini, target, **more))
    assert crashing.crashed
    lost = info.value
    assert isinstance(lost, engine.EndpointLost)
    assert lost.code == "ENDPOINT_LOST" and lost.done == kept and lost.total == len(order)
    assert f"--resume {lost.run_id}" in lost.message
    assert f"3 attempt(s) in a row could not connect to http://127.0.0.1:{port}" in lost.message
    run = RunStore(mini / "runs").resolve(lost.run_id)
    status = run.status()
    assert status.status == "started" and status.attempts_done == kept
    assert status.elapsed_s > 0  # an interrupted run says how long it ran
    written = {(r.task_id, r.repeat): r for r in run.attempts()}
    assert sorted(written) == sorted(order[:kept])  # the attempts that could not connect: none
    assert all(what_happened(r) == what_happened(by_key[k]) for k, r in written.items())
    assert not (run.path / "cassette.jsonl").exists()

    with MockServer(port=port, max_seconds=120) as back:
        resumed_dir, resumed = resume_run(lost.run_id, _request(mini, target, **more))
        calls = len(back.model_requests())
    assert resumed.status == "complete" and resumed.sessions == 2
    assert resumed.elapsed_s >= status.elapsed_s
    final = {(r.task_id, r.repeat): r for r in resumed_dir.attempts()}
    assert sorted(final) == sorted(order)
    assert {k: what_happened(r) for k, r in final.items()} == {
        k: what_happened(r) for k, r in by_key.items()
    }
    assert calls == sum(len(by_key[key].trace.exchanges) for key in order[kept:])
    a, b = summarize(resumed_dir), summarize(reference_dir)
    assert a.headline is not None and b.headline is not None
    assert a.headline.score.value == b.headline.score.value  # labels name the entrants
    assert a.headline.score.interval == b.headline.score.interval
    assert [(s.task_id, s.value) for s in a.task_scores] == [
        (s.task_id, s.value) for s in b.task_scores
    ]


def test_the_cli_stops_in_one_line_and_resume_finishes_the_run(
    mini: Path, target_file: Callable[..., Path]
) -> None:
    port = closed_port()
    target_file("crashing", f"http://127.0.0.1:{port}/v1")
    args = [
        "run", "--tasks", "tasks", "--target", "targets/crashing.yaml", "--split", "public",
        "--repeats", "3", "--concurrency", "2", "--runs-dir", "runs", "--progress", "none",
        "--stop-unreachable", "2",
    ]  # fmt: skip
    with CrashingServer(4, port=port, max_seconds=120):
        stopped = bench(*args, cwd=mini)
    assert stopped.returncode == 5, stopped.stderr
    [line] = stopped.stderr.splitlines()
    assert line.startswith("error[ENDPOINT_LOST]: run ") and "Traceback" not in line
    [run] = RunStore(mini / "runs").runs()
    assert f"--resume {run.run_id}" in line
    assert run.status().status == "started"
    # Any attempt written after the crash is one the server answered something.
    for record in run.attempts():
        if record.outcome == "errored":
            assert any("error" not in e.response for e in record.trace.exchanges)
    shown = bench("show", run.run_id, "--runs-dir", "runs", cwd=mini)
    assert shown.returncode == 0, shown.stderr
    assert "wall 0.000s" not in shown.stdout
    with MockServer(port=port, max_seconds=120):
        resumed = bench(*args, "--resume", run.run_id, cwd=mini)
    assert resumed.returncode == 0, resumed.stderr
    status = run.status()
    assert status.status == "complete" and status.attempts_done == status.attempts_total


@pytest.mark.parametrize("limit", [0, 50])
def test_below_the_limit_attempts_that_could_not_connect_are_errored_as_before(
    mini: Path, target_file: Callable[..., Path], limit: int
) -> None:
    port = closed_port()
    target = target_file("crashing", f"http://127.0.0.1:{port}/v1")
    more = {"split": "public", "repeats": 2, "concurrency": 1, "stop_unreachable": limit}
    with CrashingServer(1, port=port, max_seconds=120) as crashing:
        run_dir, status = start_run(_request(mini, target, **more))
    assert crashing.crashed
    assert status.status == "complete" and status.attempts_done == status.attempts_total == 6
    records = sorted(run_dir.attempts(), key=lambda r: r.started_at)
    # The first attempt's first call was answered: its second one failing is its own.
    first, *later = records
    assert first.outcome == "errored" and first.trace.exchanges[0].response.get("error") is None
    for record in later:  # held while the streak lasted, written when the run ended
        assert record.outcome == "errored" and record.reason is not None
        assert record.reason.startswith("ENDPOINT_UNREACHABLE: cannot connect")
