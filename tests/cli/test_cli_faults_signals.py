"""Signals at every write (helper F10): SIGTERM (a cancelled CI job, `timeout`) is handled as
Ctrl-C is (bench.cli.signals), so what a command writes is as before or complete, never half,
and no temp file is left where a later command would meet it.

Deterministic, not timed: each command runs in a subprocess whose ``os.fsync`` sends the
signal to its own process at the k-th call (every durable write of this project syncs), for
every k the uninterrupted command reaches; the assertions hold wherever it lands.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bench.signing.allowed_signers import signer_line
from bench.signing.keys import public_line
from bench.testing.keys import write_private_key

REPO = Path(__file__).resolve().parents[2]
MINI = REPO / "tests" / "fixtures" / "mini"

HOOK = """
import os, signal, sys
at, sig, count = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
calls = [0]
real = os.fsync
def fsync(fd):
    calls[0] += 1
    if calls[0] == at:
        os.kill(os.getpid(), sig)
    return real(fd)
os.fsync = fsync
if count:
    import atexit
    atexit.register(lambda: open(count, "w").write(str(calls[0])))
from bench.cli.main import main
main(sys.argv[4:])
"""

EXIT = {signal.SIGTERM: 143, signal.SIGINT: 130}


def _bench(
    tmp: Path, args: list[str], at: int = 0, sig: int = signal.SIGTERM
) -> subprocess.CompletedProcess[str]:
    hook = tmp / "hook.py"
    if not hook.exists():
        hook.write_text(HOOK, encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(hook), str(at), str(int(sig)), "", *args],
        capture_output=True, text=True, cwd=tmp,
    )  # fmt: skip


def _fsyncs(tmp: Path, args: list[str]) -> int:
    """How many fsyncs the command makes uninterrupted (it is run, and must succeed)."""
    count = tmp / "count"
    hook = tmp / "hook.py"
    hook.write_text(HOOK, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(hook), "0", "0", str(count), *args],
        capture_output=True, text=True, cwd=tmp,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return int(count.read_text())


def _tree(root: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(root)): p.read_bytes() if p.is_file() else None
        for p in sorted(root.rglob("*"))
    }


def _no_temp(root: Path) -> None:
    stray = [str(p) for p in root.rglob("*") if p.name.startswith(".tmp")]
    assert stray == []


def _one_line(done: subprocess.CompletedProcess[str], sig: int) -> str:
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == EXIT[sig], done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.fixture
def mini(tmp_path: Path) -> Path:
    for part in ("tasks", "corpora", "targets"):
        shutil.copytree(MINI / part, tmp_path / part)
    shutil.copy(MINI / "agents.py", tmp_path / "agents.py")
    return tmp_path


RUN = [
    "run", "--tasks", "tasks", "--target", "targets/good.yaml", "--split", "public",
    "--repeats", "2", "--concurrency", "8", "--runs-dir", "runs", "--progress", "none",
]  # fmt: skip


def _runs(root: Path) -> list[Path]:
    return sorted(p for p in (root / "runs").iterdir() if p.is_dir() and p.name[0].isdigit())


def test_sigterm_anywhere_in_a_run_says_which_run_to_resume_and_the_resume_finishes_it(
    mini: Path,
) -> None:
    total = _fsyncs(mini, RUN)
    shutil.rmtree(mini / "runs")
    for at in range(1, total + 1):
        done = _bench(mini, RUN, at)
        line = _one_line(done, signal.SIGTERM)  # it was killed silently, exit -15
        assert line.startswith("terminated (SIGTERM)"), line
        _no_temp(mini / "runs")
        made = _runs(mini)
        if "--resume" in line:
            [run] = made
            assert f"--resume {run.name}" in line
            resumed = _bench(mini, [*RUN, "--resume", run.name])
            assert resumed.returncode == 0, resumed.stderr
            assert '"status": "complete"' in (run / "status.json").read_text()
        elif "before the run started" in line:
            assert made == []
        shutil.rmtree(mini / "runs")


def test_a_resumed_run_after_sigterm_bundles_and_verifies(mini: Path) -> None:
    total = _fsyncs(mini, RUN)
    shutil.rmtree(mini / "runs")
    line = _one_line(_bench(mini, RUN, total // 2), signal.SIGTERM)
    [run] = _runs(mini)
    assert f"--resume {run.name}" in line
    assert _bench(mini, [*RUN, "--resume", run.name]).returncode == 0
    key = mini / "key"
    private = write_private_key(key)
    signers = mini / "allowed_signers"
    entrant = _entrant(run)
    signers.write_text(signer_line(entrant, public_line(private.public_key())) + "\n")
    bundled = _bench(mini, ["bundle", run.name, "--entrant", entrant, "--key", "key",
                            "--allowed-signers", "allowed_signers", "--out", "results",
                            "--runs-dir", "runs"])  # fmt: skip
    assert bundled.returncode == 0, bundled.stderr
    verify = ["verify", f"results/{entrant}/{run.name}", "--allowed-signers", "allowed_signers",
              "--tasks", "tasks", "--results-root", "results"]  # fmt: skip
    verified = _bench(mini, verify)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def _entrant(run: Path) -> str:
    import json

    return str(json.loads((run / "config.json").read_text())["entrant"])


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_anywhere_in_bench_bundle_leaves_no_bundle_and_no_staging(
    mini: Path, sig: int
) -> None:
    done = _bench(mini, RUN)
    assert done.returncode == 0, done.stderr
    [run] = _runs(mini)
    entrant = _entrant(run)
    private = write_private_key(mini / "key")
    (mini / "allowed_signers").write_text(
        signer_line(entrant, public_line(private.public_key())) + "\n"
    )
    bundle = ["bundle", run.name, "--entrant", entrant, "--key", "key", "--allowed-signers",
              "allowed_signers", "--out", "results", "--runs-dir", "runs"]  # fmt: skip
    total = _fsyncs(mini, bundle)
    shutil.rmtree(mini / "results")
    for at in range(1, total + 1):
        _one_line(_bench(mini, bundle, at, sig), sig)
        # the staging directory (.tmp-bundle-*) was left by SIGTERM, half a bundle in it
        if (mini / "results").exists():
            _no_temp(mini / "results")
            assert [p for p in (mini / "results").rglob("*") if p.is_file()] == [], at
    assert _bench(mini, bundle).returncode == 0


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_anywhere_in_task_generate_leaves_the_old_task_set_or_the_new_one(
    tmp_path: Path, sig: int
) -> None:
    out = tmp_path / "tasks"
    corpora = ["--corpora", str(REPO / "corpora")]
    full = ["task", "generate", "--out", str(out), *corpora]
    total = _fsyncs(tmp_path, full)
    new = _tree(out)
    shutil.rmtree(out)
    older = ["task", "generate", "--out", str(out), "--public", "1", *corpora]
    assert _bench(tmp_path, older).returncode == 0
    old = _tree(out)
    assert old != new
    for at in range(1, total + 1, 2):
        _one_line(_bench(tmp_path, full, at, sig), sig)
        # one file at a time, it left new files beside old ones: half a task set
        assert _tree(out) == old, at
    shutil.rmtree(out)
    for at in (1, total - 1):  # a fresh directory: nothing, not some of the families
        _one_line(_bench(tmp_path, full, at, sig), sig)
        assert not out.exists() or _tree(out) == {}, at


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_anywhere_in_board_build_keeps_the_old_site_or_writes_the_whole_new_one(
    mini: Path, sig: int
) -> None:
    assert _bench(mini, RUN).returncode == 0
    build = ["board", "build", "--runs", "runs", "--results", "results", "--out", "site",
             "--tasks", "tasks", "--resamples", "200"]  # fmt: skip
    (mini / "results").mkdir()
    total = _fsyncs(mini, build)
    old = _tree(mini / "site")
    for at in range(1, total + 1):
        _one_line(_bench(mini, build, at, sig), sig)
        now = _tree(mini / "site")
        assert now == old or set(now) == set(old), at  # the old site, or a whole new one
        assert [p for p in os.listdir(mini) if p.startswith(".")] == []
        _no_temp(mini)
