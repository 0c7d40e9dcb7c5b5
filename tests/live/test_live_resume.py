"""A live run (the real client, the mock server on 127.0.0.1) killed with SIGKILL half-way
resumes and ends with the traces and scores of an uninterrupted run of the same endpoint."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.records import RunStore
from bench.records.run import AttemptRecord
from bench.reports import summarize
from bench.testing.mock_server import MockServer


def bench(*args: str, cwd: Path) -> subprocess.Popen[str]:
    code = "import sys; from bench.cli.main import main; sys.argv[0] = 'bench'; main()"
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


ARGS = [
    "run",
    "--tasks", "tasks",
    "--target", "targets/resumable.yaml",
    "--split", "public",
    "--repeats", "3",
    "--concurrency", "1",
    "--runs-dir", "runs",
    "--progress", "none",
]  # fmt: skip


def what_happened(record: AttemptRecord) -> dict[str, Any]:
    """An attempt without timings, ids of the run or transport details."""
    trace = record.trace
    return {
        "messages": [m.model_dump(mode="json") for m in trace.messages],
        "tool_calls": [(c.name, c.arguments) for c in trace.tool_calls],
        "answers": trace.answers,
        "usage": trace.usage.model_dump(mode="json"),
        "requests": [e.request for e in trace.exchanges],
        "outcome": record.outcome,
        "value": record.value,
        "verdicts": [v.model_dump(mode="json") for v in record.verdicts],
    }


def test_a_killed_live_run_resumes_to_the_uninterrupted_result(
    mini: Path, target_file: Callable[..., Path]
) -> None:
    # 50 ms a model call: the run takes a few seconds, long enough to be killed half-way.
    with MockServer(max_seconds=120, latency=0.05) as server:
        target_file("resumable", server.url + "/v1")
        process = bench(*ARGS, cwd=mini)
        runs = mini / "runs"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(list(runs.glob("*/attempts/*.json"))) < 3:
            time.sleep(0.01)
        os.kill(process.pid, signal.SIGKILL)
        process.communicate(timeout=30)
        store = RunStore(runs)
        [killed] = store.runs()
        assert killed.status().status == "started"
        before = {p.name: p.read_bytes() for p in (killed.path / "attempts").glob("*.json")}
        total = len(killed.config().task_set.task_ids) * 3
        assert 3 <= len(before) < total
        calls_before = len(server.model_requests())

        resumed = bench(*ARGS, "--resume", "latest", cwd=mini)
        _, err = resumed.communicate(timeout=120)
        assert resumed.returncode == 0, err
        calls_resumed = len(server.model_requests()) - calls_before

        fresh = bench(*ARGS, cwd=mini)
        _, err = fresh.communicate(timeout=120)
        assert fresh.returncode == 0, err

    status = killed.status()
    assert status.status == "complete" and status.sessions == 2
    after = {p.name: p.read_bytes() for p in (killed.path / "attempts").glob("*.json")}
    assert len(after) == total
    assert all(after[name] == data for name, data in before.items())  # nothing rewritten
    [uninterrupted] = [r for r in store.runs() if r.run_id != killed.run_id]
    assert killed.config().fingerprint() == uninterrupted.config().fingerprint()

    def attempts(run: Any) -> dict[tuple[str, int], dict[str, Any]]:
        return {(r.task_id, r.repeat): what_happened(r) for r in run.attempts()}

    assert attempts(killed) == attempts(uninterrupted)
    a, b = summarize(killed), summarize(uninterrupted)
    assert [(s.task_id, s.value, s.passes) for s in a.task_scores] == [
        (s.task_id, s.value, s.passes) for s in b.task_scores
    ]
    assert a.headline is not None and b.headline is not None
    assert a.headline.score == b.headline.score
    # The resumed session asked the endpoint exactly for the attempts that were missing (one
    # cut by the kill is re-run whole), never for one already on disk.
    missing = [r for r in killed.attempts() if f"{r.task_id}--r{r.repeat}.json" not in before]
    assert calls_resumed == sum(len(r.trace.exchanges) for r in missing)
