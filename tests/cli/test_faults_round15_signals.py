"""Ctrl-C while ``bench`` starts or exits (helper F15): one line, exit 130, no traceback.

Deterministic, not timed: the console script (the file pip writes for ``bench``) runs in a
subprocess whose audit hook sends SIGINT to its own process at the k-th module import after
the script's ``from bench.cli.main import main`` began, for k across every import ``bench
--version`` makes (click and the CLI modules: the ~50 ms an early Ctrl-C lands in), and once
from an ``atexit`` callback, while the interpreter exits. Before the fix, each printed an
importlib traceback (``Exception ignored in atexit callback`` at exit).
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

# What pip writes for [project.scripts] bench = "bench.cli.main:main".
CONSOLE_SCRIPT = """import sys
from bench.cli.main import main
if __name__ == '__main__':
    sys.exit(main())
"""

HOOK = """
import os, runpy, signal, sys
at, count, script = int(sys.argv[1]), sys.argv[2], sys.argv[3]
seen = []
OURS = {"bench", "bench.cli", "bench.cli.main", "bench.cli.startup"}
def audit(event, args):
    if event != "import":
        return
    if args[0] == "bench.cli.main":
        seen.append("started")
    elif seen and args[0] not in OURS:
        seen.append(args[0])
        if len(seen) - 1 == at:
            os.kill(os.getpid(), signal.SIGINT)
sys.addaudithook(audit)
import atexit
def last():  # registered first, so it runs after every atexit callback bench registers
    if count:
        with open(count, "w") as f:
            f.write(str(len(seen) - 1))
    if at < 0:
        os.kill(os.getpid(), signal.SIGINT)
        sum(range(1000))  # Python runs the handler between instructions
atexit.register(last)
sys.argv = [script, *sys.argv[4:]]
runpy.run_path(script, run_name="__main__")
"""


def _bench(tmp: Path, at: int, *args: str, count: str = "") -> subprocess.CompletedProcess[str]:
    script = tmp / "bench"
    if not script.exists():
        script.write_text(CONSOLE_SCRIPT, encoding="utf-8")
        (tmp / "hook.py").write_text(HOOK, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "hook.py", str(at), count, str(script), *args],
        capture_output=True, text=True, cwd=tmp,
    )  # fmt: skip


def _quiet(done: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in done.stderr, done.stderr
    assert "Exception ignored" not in done.stderr, done.stderr
    assert done.returncode == 130, done.stderr
    assert done.stderr.strip().splitlines() == ["aborted"], done.stderr


def test_ctrl_c_at_any_import_while_bench_starts_ends_quietly(tmp_path: Path) -> None:
    plain = _bench(tmp_path, 0, "--version", count=str(tmp_path / "count"))
    assert plain.returncode == 0, plain.stderr
    imports = int((tmp_path / "count").read_text())
    assert imports > 20  # click and the CLI modules: the window this test is about
    # every fifth import, and the last (a subprocess each, ~0.15 s)
    for at in sorted({*range(1, imports + 1, 5), imports}):
        _quiet(_bench(tmp_path, at, "--version"))


def test_ctrl_c_while_bench_exits_ends_quietly_after_its_output(tmp_path: Path) -> None:
    done = _bench(tmp_path, -1, "--version")
    _quiet(done)
    assert done.stdout.startswith("bench, version ")  # flushed before the quiet exit


def test_importing_the_cli_elsewhere_leaves_sigint_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    import bench.cli as startup

    assert signal.getsignal(signal.SIGINT) is not startup.quiet_interrupt  # this process: pytest
    monkeypatch.setattr(sys, "argv", ["/usr/bin/pytest"])
    assert not startup.is_the_bench_command()
    startup.guard_start()
    assert signal.getsignal(signal.SIGINT) is not startup.quiet_interrupt
    for argv, orig in [
        (["/venv/bin/bench"], ["/venv/bin/python", "/venv/bin/bench"]),
        (["-m"], ["python", "-m", "bench.cli", "run"]),
        (["-m"], ["python", "-X", "utf8", "-mbench.cli"]),
    ]:
        monkeypatch.setattr(sys, "argv", argv)
        monkeypatch.setattr(sys, "orig_argv", orig)
        assert startup.is_the_bench_command(), orig
    monkeypatch.setattr(sys, "argv", ["-m"])
    monkeypatch.setattr(sys, "orig_argv", ["python", "-m", "pytest"])
    assert not startup.is_the_bench_command()
