"""Kill -9 a run half-way, resume it, and get the scores of an uninterrupted run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.core.errors import RunStoreError
from bench.records import RunStore
from bench.reports import summarize
from bench.runner import RunRequest, resume_run, start_run


def bench(*args: str, cwd: Path, quiet: bool = False) -> subprocess.Popen[str]:
    code = "import sys; from bench.cli.main import main; sys.argv[0] = 'bench'; main()"
    pipe = subprocess.DEVNULL if quiet else subprocess.PIPE
    return subprocess.Popen(
        [sys.executable, "-c", code, *args], cwd=cwd, stdout=pipe, stderr=pipe, text=True
    )


def run_args(agent: str) -> list[str]:
    return [
        "run",
        "--tasks", "tasks",
        "--target", f"targets/{agent}.yaml",
        "--split", "public",
        "--repeats", "3",
        "--concurrency", "1",
        "--runs-dir", "runs",
        "--progress", "none",
    ]  # fmt: skip


def test_kill_9_then_resume_gives_the_uninterrupted_scores(mini: Path) -> None:
    process = bench(*run_args("paced"), cwd=mini, quiet=True)
    attempts = mini / "runs"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        files = list(attempts.glob("*/attempts/*.json"))
        if len(files) >= 3:
            break
        time.sleep(0.02)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    store = RunStore(attempts)
    [killed] = store.runs()
    assert killed.status().status == "started"
    written_before = {p.name: p.read_bytes() for p in (killed.path / "attempts").glob("*.json")}
    assert 3 <= len(written_before) < 9

    resumed = bench(*run_args("paced"), "--resume", "latest", cwd=mini)
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    status = killed.status()
    assert status.status == "complete"
    assert status.sessions == 2
    files = {p.name: p.read_bytes() for p in (killed.path / "attempts").glob("*.json")}
    assert len(files) == 9
    for name, data in written_before.items():  # nothing already written was rewritten
        assert files[name] == data

    fresh = bench(*run_args("paced"), cwd=mini)
    fresh.communicate(timeout=120)
    uninterrupted = [r for r in store.runs() if r.run_id != killed.run_id][0]
    a, b = summarize(killed), summarize(uninterrupted)
    assert [(s.task_id, s.value, s.passes, s.repeats) for s in a.task_scores] == [
        (s.task_id, s.value, s.passes, s.repeats) for s in b.task_scores
    ]
    assert a.headline is not None and b.headline is not None
    assert a.headline.score == b.headline.score


def test_resume_runs_only_what_is_missing(mini: Path) -> None:
    request = RunRequest(
        tasks=mini / "tasks",
        target_file=mini / "targets" / "good.yaml",
        runs_dir=mini / "runs",
        split="public",
        repeats=2,
    )
    run, _ = start_run(request)
    victim = run.path / "attempts" / "qa-0002--r1.json"
    keep = {p.name: p.stat().st_mtime_ns for p in (run.path / "attempts").iterdir()}
    victim.unlink()
    # as a kill with that attempt in flight leaves it: its status never counted the file
    run.write_status(
        run.status().model_copy(update={"status": "started", "attempts_done": len(run.attempts())})
    )
    _, status = resume_run(run.run_id[:12], request)
    assert status.status == "complete"
    after = {p.name: p.stat().st_mtime_ns for p in (run.path / "attempts").iterdir()}
    assert set(after) == set(keep)
    changed = sorted(name for name in after if after[name] != keep[name])
    assert changed == ["qa-0002--r1.json"]


def test_resume_refuses_a_changed_config(mini: Path) -> None:
    request = RunRequest(
        tasks=mini / "tasks",
        target_file=mini / "targets" / "good.yaml",
        runs_dir=mini / "runs",
        split="public",
    )
    run, _ = start_run(request)
    changed = RunRequest(
        tasks=request.tasks,
        target_file=request.target_file,
        runs_dir=request.runs_dir,
        split="public",
        repeats=3,
    )
    with pytest.raises(RunStoreError) as info:
        resume_run(run.run_id, changed)
    assert info.value.code == "CONFIG_CHANGED"
    assert "config_fingerprint" in str(info.value)
    task_file = mini / "tasks" / "mini.yaml"
    task_file.write_text(task_file.read_text().replace("14 days", "15 days"))
    with pytest.raises(RunStoreError, match="CONFIG_CHANGED|config changed"):
        resume_run(run.run_id, request)
