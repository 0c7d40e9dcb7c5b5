"""A ``bench run`` process does not have the collector scan everything it built again while
Python clears its modules at exit (docs/PERFORMANCE.md, issue 19); what it wrote and printed
is unchanged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# Registered before the run, so it runs after the run's own exit callback (last in, first out).
_CODE = """
import atexit, gc, json, sys
atexit.register(lambda: print(json.dumps([gc.isenabled(), gc.get_freeze_count() > 0])))
from bench.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit as stop:
    assert not stop.code, stop.code
import bench.cli.run_cmd as run_cmd
print(json.dumps(len(run_cmd._AT_EXIT)))
"""


def test_a_run_leaves_the_collector_off_at_exit_and_registers_that_once(mini: Path) -> None:
    args = ["run", "--tasks", str(mini / "tasks"), "--target", str(mini / "targets" / "good.yaml")]
    args += ["--runs-dir", str(mini / "runs"), "--split", "public"]
    env = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-c", _CODE, *args], capture_output=True, text=True, env=env, cwd=mini
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert json.loads(lines[-2]) == 1  # one callback, however many runs the process makes
    assert json.loads(lines[-1]) == [False, True]
    [status] = (mini / "runs").glob("*/status.json")
    assert json.loads(status.read_text())["status"] == "complete"
