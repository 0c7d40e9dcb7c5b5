"""Where the file system says no (a directory that cannot be made, a path under a file, a
read-only or full disk), every command says so in one line naming the path, with a stable
code (`IO_ERROR`, exit 3), never a traceback, and leaves what was there as it was."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.cli.main import io_message

REPO = Path(__file__).resolve().parents[2]


def bench(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bench.cli", *map(str, args)],
        cwd=cwd, capture_output=True, text=True, check=False,
    )  # fmt: skip


@pytest.fixture
def blocker(tmp_path: Path) -> Path:
    """A regular file where a command expects to make a directory."""
    path = tmp_path / "a-file"
    path.write_text("not a directory\n")
    return path


def test_a_runs_directory_that_cannot_be_made_is_one_line(tmp_path: Path, blocker: Path) -> None:
    done = bench(
        "run", "--tasks", REPO / "tasks", "--target",
        REPO / "examples" / "targets" / "support-bot-v1.yaml",
        "--task", "tool-pub-refund-delivered", "--runs-dir", blocker / "runs", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith(f"error[IO_ERROR]: {blocker}") and "Not a directory" in line
    assert blocker.read_text() == "not a directory\n"


def test_a_board_output_that_cannot_be_made_is_one_line(tmp_path: Path, blocker: Path) -> None:
    done = bench(
        "board", "build", "--results", REPO / "results", "--submissions",
        REPO / "submissions", "--out", blocker / "site", "--resamples", "50", cwd=tmp_path,
    )  # fmt: skip
    assert "Traceback" not in done.stderr
    assert done.returncode == 3, done.stderr
    # said before any bundle is verified (it was after the whole build), in one line
    [line] = done.stderr.splitlines()
    assert line == f"error[BOARD_OUT]: {blocker}: the parent directory is not a directory"
    assert blocker.read_text() == "not a directory\n"


def test_the_message_names_both_paths_of_a_link_and_copes_with_none() -> None:
    both = OSError(18, "Invalid cross-device link", "/a", None, "/b")
    assert io_message(both).startswith("/a -> /b: Invalid cross-device link")
    assert io_message(OSError("disk on fire")).startswith("disk on fire")
    assert io_message(OSError()).startswith("OSError")


def test_a_disk_that_fills_mid_run_names_the_run_and_how_to_finish_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno
    import os

    from click.testing import CliRunner

    from bench.cli.main import cli
    from bench.records import RunStore

    real_write = os.write
    calls = [0]

    def filling(fd: int, data: bytes) -> int:  # the 6th attempt file finds the disk full
        calls[0] += 1
        if calls[0] > 5:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    runs = tmp_path / "runs"
    args = ["run", "--tasks", str(REPO / "tasks"), "--split", "public", "--concurrency", "1"]
    args += ["--target", str(REPO / "examples" / "targets" / "support-bot-v1.yaml")]
    args += ["--runs-dir", str(runs), "--progress", "none"]
    monkeypatch.setattr(os, "write", filling)
    stopped = CliRunner().invoke(cli, args)
    monkeypatch.setattr(os, "write", real_write)
    assert stopped.exit_code == 3, stopped.output
    [run] = RunStore(runs).runs()
    # the attempt file it could not write (bench.core.atomic names it), inside the run
    assert stopped.stderr.startswith(f"error[IO_ERROR]: {run.path}/")
    assert ": No space left on device" in stopped.stderr.splitlines()[0]
    kept = len(run.attempts())
    assert 0 < kept < 86 and run.status().attempts_done == kept
    assert f"keeps the {kept} of 86 attempt(s) written" in stopped.stderr
    assert f"--resume {run.run_id} to finish it" in stopped.stderr
    finished = CliRunner().invoke(cli, [*args, "--resume", run.run_id])
    assert finished.exit_code == 0, finished.output
    assert run.status().status == "complete" and len(run.attempts()) == 86
