"""On a terminal whose encoding cannot show some text (Latin-1, ASCII), bench prints it
escaped and goes on: a run directory named in Turkish, or an ellipsis in `bench show`, stopped
the command with a UnicodeEncodeError traceback after the run had finished."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

MINI = Path(__file__).resolve().parents[1] / "fixtures" / "mini"


def environ(encoding: str) -> dict[str, str]:
    return {**os.environ, "PYTHONIOENCODING": encoding}


@pytest.mark.parametrize("encoding", ["latin-1", "ascii"])
def test_a_run_printed_on_a_narrow_terminal_is_escaped_not_a_traceback(
    tmp_path: Path, encoding: str
) -> None:
    runs = tmp_path / "koşular…"
    done = subprocess.run(
        [sys.executable, "-m", "bench.cli", "run", "--tasks", str(MINI / "tasks"), "--target",
         str(MINI / "targets" / "good.yaml"), "--runs-dir", str(runs), "--split", "public"],
        capture_output=True, env=environ(encoding), check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert b"Traceback" not in done.stderr
    # the run directory: escaped (or, where click takes an ASCII stream for a misconfigured
    # one, in UTF-8)
    assert b"ko\\u015fular\\u2026" in done.stdout or "koşular…".encode() in done.stdout


def test_writable_anywhere_leaves_a_utf8_terminal_alone() -> None:
    code = "from bench.cli.main import writable_anywhere; writable_anywhere(); print('ğ…')"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, env=environ("utf-8"), check=True
    ).stdout
    assert out == "ğ…\n".encode()
