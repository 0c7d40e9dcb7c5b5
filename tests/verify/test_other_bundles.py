"""What verify reads of the *other* bundles under the results root (provenance, the board's
cache keys): only regular files, never through a symlink, never blocking on a pipe. A
bundle that fails its own verification must not hang every other bundle's verdict or the
board's build (its own verdict refuses it: PATH_UNSAFE)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = str(Path(sys.executable).with_name("bench"))
TIMEOUT_S = 120


def _plant_pipes(world: Any, tmp_path: Path) -> Path:
    """A sibling bundle of another entrant whose attempts and manifest are symlinks to a FIFO
    nobody writes to (git keeps symlinks; the pipe stands for /proc/self/fd/0 or any device
    a checkout's link could name)."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    evil = world.results / "bob" / "20260102T000000Z-0000b0"
    shutil.copytree(world.bundle, evil)
    for name in ("attempts.jsonl.gz", "manifest.json"):
        (evil / name).unlink()
        (evil / name).symlink_to(fifo)
    return evil


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [BENCH, *args], cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT_S
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"bench {args[0]} hung on a sibling bundle's pipe ({TIMEOUT_S} s)")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_sibling_bundles_pipe_never_hangs_verify_or_the_board(world: Any, tmp_path: Path) -> None:
    evil = _plant_pipes(world, tmp_path)
    inputs = ["--allowed-signers", str(world.signers), "--tasks", str(world.tasks)]
    done = _run(["verify", str(world.bundle), "--results-root", str(world.results), *inputs],
                world.root)  # fmt: skip
    assert done.returncode == 0 and "valid" in done.stdout, done.stdout + done.stderr
    refused = _run(["verify", str(evil), "--results-root", str(world.results), *inputs],
                   world.root)  # fmt: skip
    assert refused.returncode == 1 and "PATH_UNSAFE" in refused.stdout + refused.stderr
    (tmp_path / "no-runs").mkdir()
    board = _run(
        ["board", "build", "--runs", str(tmp_path / "no-runs"), "--results", str(world.results),
         "--out", str(tmp_path / "site"), "--submissions", str(tmp_path / "no-runs"),
         "--cache", str(tmp_path / "cache"), "--resamples", "20", *inputs],
        world.root,
    )  # fmt: skip
    assert "Traceback" not in board.stderr, board.stderr
    assert board.returncode != 0 and "PATH_UNSAFE" in board.stdout + board.stderr
