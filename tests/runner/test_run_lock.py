"""One process writes a run directory at a time: a run (new or resumed) holds an exclusive
``flock`` on ``<run>/.lock`` for its life, a second ``bench run --resume`` of it is refused at
once (``RUN_LOCKED``) writing nothing, a crash leaves nothing locked, and a run from before the
lock resumes (docs/RUNS.md, "Resume")."""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.cli.main import main
from bench.core.errors import RunStoreError
from bench.records import AttemptRecord
from bench.records.store import RunDir
from bench.runner import NullProgress, RunRequest, resume_run, start_run

BASE_BUNDLE = Path(__file__).parents[1] / "fixtures" / "bundles" / "_base" / "results"


def _request(mini: Path) -> RunRequest:
    return RunRequest(
        tasks=mini / "tasks",
        target_file=mini / "targets" / "good.yaml",
        runs_dir=mini / "runs",
        split="public",
        concurrency=1,
    )


def _snapshot(run: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under the run with its bytes and modification time."""
    return {
        str(path.relative_to(run)): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in sorted(run.rglob("*"))
        if path.is_file()
    }


def _as_killed(run: RunDir, lost: int) -> RunDir:
    """The run as a kill leaves it: ``lost`` attempt files never written nor counted."""
    for name in sorted((run.path / "attempts").iterdir())[:lost]:
        name.unlink()
    left = len(run.attempts())
    run.write_status(run.status().model_copy(update={"status": "started", "attempts_done": left}))
    return run


@pytest.fixture
def interrupted_run(mini: Path) -> RunDir:
    run, _ = start_run(_request(mini))
    return _as_killed(run, 2)


@pytest.fixture
def held(interrupted_run: RunDir) -> Iterator[int]:
    """The run's lock held the way another ``bench`` process holds it."""
    fd = os.open(interrupted_run.path / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    try:
        yield fd
    finally:
        os.close(fd)


def _resume_args(mini: Path, run: RunDir) -> list[str]:
    args = ["run", "--tasks", str(mini / "tasks"), "--target", str(mini / "targets" / "good.yaml")]
    args += ["--runs-dir", str(mini / "runs"), "--split", "public", "--concurrency", "1"]
    return [*args, "--progress", "none", "--resume", run.run_id]


def _bench(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[object, str, str]:
    try:
        status = main(args) or 0
    except SystemExit as stop:
        status = stop.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_a_second_resume_of_a_run_being_written_is_refused_at_once_writing_nothing(
    mini: Path, interrupted_run: RunDir, held: int, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _snapshot(interrupted_run.path)
    status, out, err = _bench(_resume_args(mini, interrupted_run), capsys)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("error[RUN_LOCKED]: "), err
    assert interrupted_run.run_id in lines[0] and "--resume" in lines[0]
    assert status == 4 and out == ""
    assert _snapshot(interrupted_run.path) == before  # not a byte, not a status time
    assert sorted(p.name for p in (mini / "runs").iterdir()) == [interrupted_run.run_id]


def test_a_run_holds_its_lock_while_it_runs_and_leaves_no_lock_file(mini: Path) -> None:
    seen: list[str] = []

    class Probe(NullProgress):
        def attempt(self, record: AttemptRecord, done: int, total: int) -> None:
            fd = os.open(mini / "runs" / record.run_id / ".lock", os.O_RDWR | os.O_CREAT)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                seen.append("locked")
            else:
                seen.append("free")
            finally:
                os.close(fd)

    run, status = start_run(_request(mini), Probe())
    assert status.status == "complete"
    assert seen and set(seen) == {"locked"}
    assert sorted(p.name for p in run.path.iterdir()) == [
        "attempts",
        "cassette.jsonl",
        "config.json",
        "status.json",
    ]
    seen.clear()
    _as_killed(run, 1)
    _, again = resume_run(run.run_id, _request(mini), Probe())
    assert again.status == "complete" and seen == ["locked"]
    assert not (run.path / ".lock").exists()


def test_a_run_from_before_the_lock_resumes(mini: Path, interrupted_run: RunDir) -> None:
    assert not (interrupted_run.path / ".lock").exists()  # as every run written before it
    _, status = resume_run(interrupted_run.run_id, _request(mini))
    assert status.status == "complete"
    assert len(interrupted_run.attempts()) == status.attempts_total


def test_a_crashed_writer_leaves_the_run_free(mini: Path, interrupted_run: RunDir) -> None:
    """A process killed (SIGKILL) while it holds the lock: the kernel releases it; the
    ``.lock`` file it leaves behind is not a lock."""
    code = (
        "import sys; from pathlib import Path; from bench.records.store import RunLock\n"
        "RunLock().acquire(Path(sys.argv[1])); print('held', flush=True); sys.stdin.read()\n"
    )
    with subprocess.Popen(
        [sys.executable, "-c", code, str(interrupted_run.path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as holder:
        try:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
            with pytest.raises(RunStoreError) as refused:
                resume_run(interrupted_run.run_id, _request(mini))
            assert refused.value.code == "RUN_LOCKED"
        finally:
            holder.send_signal(signal.SIGKILL)
            holder.wait()
    assert (interrupted_run.path / ".lock").exists()  # left by the crash
    _, status = resume_run(interrupted_run.run_id, _request(mini))
    assert status.status == "complete"


def test_resuming_a_bundle_by_mistake_leaves_no_lock_file_in_it(
    tmp_path: Path, mini: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``bench verify`` refuses a file its manifest does not list: a lock file left in a
    bundle would make it invalid."""
    bundle = tmp_path / "bundle"
    shutil.copytree(next(BASE_BUNDLE.glob("*/*")), bundle)
    before = _snapshot(bundle)
    args = _resume_args(mini, RunDir(bundle))
    args[-1] = str(bundle)
    status, _, err = _bench(args, capsys)
    assert status != 0 and "error[" in err
    assert _snapshot(bundle) == before
