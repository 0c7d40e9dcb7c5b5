"""A ``bench`` process does not have the collector scan everything it built again while
Python clears its modules at exit (docs/PERFORMANCE.md, issue 19): ``bench run`` and every
other command (``bench.cli.main``); what it wrote and printed is unchanged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# Registered before the command, so it runs after the command's own exit callback (last in,
# first out): it prints whether the collector was on, and frozen, when the process ended.
_CODE = """
import atexit, gc, json, sys
atexit.register(lambda: print(json.dumps([gc.isenabled(), gc.get_freeze_count() > 0])))
from bench.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit as stop:
    assert not stop.code, stop.code
import bench.cli.main as cli_main
print(json.dumps(len(cli_main._AT_EXIT)))
"""


def _bench(mini: Path, *args: str) -> list[str]:
    """Runs ``bench ARGS`` in a new process; its stdout lines."""
    env = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-c", _CODE, *args], capture_output=True, text=True, env=env, cwd=mini
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()


def _run_args(mini: Path) -> list[str]:
    args = ["run", "--tasks", str(mini / "tasks"), "--target", str(mini / "targets" / "good.yaml")]
    return [*args, "--runs-dir", str(mini / "runs"), "--split", "public"]


def test_a_run_leaves_the_collector_off_at_exit_and_registers_that_once(mini: Path) -> None:
    lines = _bench(mini, *_run_args(mini))
    assert json.loads(lines[-2]) == 1  # one callback, however many runs the process makes
    assert json.loads(lines[-1]) == [False, True]
    [status] = (mini / "runs").glob("*/status.json")
    assert json.loads(status.read_text())["status"] == "complete"


def test_show_leaves_the_collector_off_at_exit_too(mini: Path) -> None:
    made = subprocess.run(
        [sys.executable, "-m", "bench.cli", *_run_args(mini)], capture_output=True, text=True
    )
    assert made.returncode == 0, made.stderr
    [status] = (mini / "runs").glob("*/status.json")
    run_id = status.parent.name
    lines = _bench(mini, "show", run_id, "--runs-dir", str(mini / "runs"))
    assert any(run_id in line for line in lines[:-2])  # it showed the run
    assert json.loads(lines[-2]) == 1
    assert json.loads(lines[-1]) == [False, True]
