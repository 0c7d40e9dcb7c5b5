"""A task or target file that is not a regular file is refused unread (``FILE_TYPE``): a FIFO
would block the reader for ever, a link to ``/dev/zero`` would never end, and an oversized
sparse file is refused before its bytes are read (``FILE_TOO_LARGE``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

READ = (
    "import sys\n"
    "from bench.core.errors import InputError\n"
    "from bench.core.files import read_yaml\n"
    "try:\n"
    "    read_yaml(__import__('pathlib').Path(sys.argv[1]))\n"
    "except InputError as exc:\n"
    "    print(exc.code)\n"
)


def _read(path: Path) -> str:
    # A subprocess with a hang guard: the code before the fix never returns on a FIFO.
    done = subprocess.run(
        [sys.executable, "-c", READ, str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout.strip()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "target.yaml"
    os.mkfifo(fifo)
    assert _read(fifo) == "FILE_TYPE"


def test_a_link_to_a_device_is_refused_unread(tmp_path: Path) -> None:
    link = tmp_path / "target.yaml"
    link.symlink_to("/dev/zero")
    assert _read(link) == "FILE_TYPE"


def test_an_oversized_sparse_file_is_refused_by_its_size(tmp_path: Path) -> None:
    big = tmp_path / "tasks.yaml"
    with big.open("wb") as out:
        out.truncate(1 << 30)  # 1 GiB of holes: nothing on disk, all of it read before
    assert _read(big) == "FILE_TOO_LARGE"


def test_a_regular_file_still_reads(tmp_path: Path) -> None:
    plain = tmp_path / "target.yaml"
    plain.write_text("kind: scripted\n", encoding="utf-8")
    assert _read(plain) == ""
