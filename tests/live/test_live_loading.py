"""A server still loading its model (HTTP 503 everywhere, as llama.cpp's answers then): the run
waits for it, up to ``--wait-ready``, instead of publishing attempts that only errored and a
fingerprint of what the server declared while loading."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench.core.errors import EntrantError
from bench.runner import RunRequest, start_run
from bench.testing.mock_server import MockServer


def _request(mini: Path, target: Path, **more: Any) -> RunRequest:
    """One task of the mini set against ``target``."""
    return RunRequest(
        tasks=mini / "tasks",
        target_file=target,
        runs_dir=mini / "runs",
        task_ids=("qa-0001",),
        **more,
    )


def test_a_run_waits_for_a_loading_server_and_records_what_it_declares_when_ready(
    mini: Path, target_file: Callable[..., Path]
) -> None:
    told: list[str] = []
    with MockServer(max_seconds=60, loading_s=1.5) as server:
        target = target_file("loading", server.url + "/v1")
        run_dir, status = start_run(_request(mini, target, wait_ready_s=20, on_notice=told.append))
        probes = len(server.requests("/health"))
    assert status.status == "complete"
    [record] = run_dir.attempts()
    assert record.outcome == "scored", record.reason
    server_declared = run_dir.config().server
    assert server_declared is not None
    assert server_declared["engine"] == "bench-mock"  # declared once ready
    assert len(told) == 1 and "loading its model" in told[0] and server.url in told[0]
    assert probes >= 2  # probed while loading, and again once ready


def test_a_server_still_loading_after_the_wait_stops_the_run_before_anything_is_written(
    mini: Path, target_file: Callable[..., Path]
) -> None:
    with MockServer(max_seconds=60, loading_s=60) as server:
        target = target_file("loading", server.url + "/v1")
        with pytest.raises(EntrantError) as info:
            start_run(_request(mini, target, wait_ready_s=0.6))
        assert not server.model_requests()
    assert info.value.code == "SERVER_NOT_READY"
    assert "503" in info.value.message and "--wait-ready" in info.value.message
    assert not (mini / "runs").exists() or not any((mini / "runs").glob("*/config.json"))


def test_without_a_wait_the_run_goes_on_and_its_attempts_error(
    mini: Path, target_file: Callable[..., Path]
) -> None:
    with MockServer(max_seconds=60, loading_s=60) as server:
        target = target_file("loading", server.url + "/v1")
        run_dir, _ = start_run(_request(mini, target, wait_ready_s=0))
    [record] = run_dir.attempts()
    assert record.outcome == "errored"
    assert record.reason is not None and "503" in record.reason


def test_the_cli_says_so_with_its_code_and_no_traceback(
    mini: Path, target_file: Callable[..., Path]
) -> None:
    with MockServer(max_seconds=60, loading_s=60) as server:
        target = target_file("loading", server.url + "/v1")
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "bench.cli",
                "run",
                "--tasks",
                str(mini / "tasks"),
                "--target",
                str(target),
                "--task",
                "qa-0001",
                "--runs-dir",
                str(mini / "runs"),
                "--wait-ready",
                "0.6",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 5, done.stderr
    assert "SERVER_NOT_READY" in done.stderr and "waiting up to 0.6 s" in done.stderr
    assert "Traceback" not in done.stderr
