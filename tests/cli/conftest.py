"""Fixtures of the command-line tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

MINI = Path(__file__).resolve().parents[1] / "fixtures" / "mini"


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    """The directory of a complete run of the mini task set's good target (public split),
    made under ``tmp_path / "runs"``."""
    from bench.runner import RunRequest, start_run

    for part in ("tasks", "corpora", "targets"):
        shutil.copytree(MINI / part, tmp_path / part)
    shutil.copy(MINI / "agents.py", tmp_path / "agents.py")
    run, status = start_run(
        RunRequest(
            tasks=tmp_path / "tasks",
            target_file=tmp_path / "targets" / "good.yaml",
            runs_dir=tmp_path / "runs",
            split="public",
        )
    )
    assert status.status == "complete"
    return run.path
