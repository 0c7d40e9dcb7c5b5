"""Readers that map an ``OSError`` to their own code say the disk's refusal as it is: an I/O
error or a permission is ``IO_ERROR`` naming the file (exit 3, ``bench.cli.main``), never
"missing" or "invalid"; a file that is not there keeps the reader's own code."""

from __future__ import annotations

import errno
import io
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench.cli.main import IO_ERROR, io_message
from bench.core.errors import BenchError
from bench.core.suite import read_suite_manifest
from bench.signing import AllowedSigners, load_private_key, read_public_key_file
from bench.signing.registry import read_entrant
from bench.targets.config import read_dotenv

READERS: dict[str, tuple[Callable[[Path], Any], str, str]] = {
    # reader, file name, the reader's own code for a file that is not there
    "allowed_signers": (AllowedSigners.read, "allowed_signers", "SIGNERS_MISSING"),
    "private key": (load_private_key, "id_ed25519", "KEY_INVALID"),
    "public key": (read_public_key_file, "id_ed25519.pub", "KEY_INVALID"),
    "suite manifest": (read_suite_manifest, "suite.json", "SUITE_MANIFEST_INVALID"),
    "registry": (read_entrant, "alice.yaml", "ENTRANT_FILE_INVALID"),
    ".env": (read_dotenv, ".env", ""),
}


def _refuse(monkeypatch: pytest.MonkeyPatch, target: Path, code: int) -> None:
    """Every read of ``target`` (open, read_bytes, read_text, lstat) fails with ``code``."""
    real_open, real_lstat = os.open, os.lstat

    def fail() -> None:
        raise OSError(code, os.strerror(code))  # no filename, as a read() failing mid-file

    def fake_open(path: Any, *args: Any, **kwargs: Any) -> int:
        if Path(path) == target:
            fail()
        return real_open(path, *args, **kwargs)

    def fake_lstat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if Path(path) == target:
            fail()
        return real_lstat(path, *args, **kwargs)

    real_io_open = io.open

    def fake_io_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(file, (str, Path)) and Path(file) == target:
            fail()
        return real_io_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "open", fake_open)
    monkeypatch.setattr(os, "lstat", fake_lstat)
    monkeypatch.setattr(io, "open", fake_io_open)


@pytest.mark.parametrize("name", sorted(READERS))
@pytest.mark.parametrize("code", [errno.EIO, errno.EACCES])
def test_a_read_the_disk_refuses_is_io_error_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, code: int
) -> None:
    reader, file_name, _ = READERS[name]
    target = tmp_path / file_name
    target.write_text("x\n")
    _refuse(monkeypatch, target, code)
    with pytest.raises(OSError) as raised:
        reader(target)
    assert not isinstance(raised.value, BenchError)
    assert raised.value.errno == code
    message = io_message(raised.value)
    assert message.startswith(f"{target}: {os.strerror(code)}"), (IO_ERROR, message)


@pytest.mark.parametrize("name", sorted(n for n in READERS if READERS[n][2]))
def test_a_file_that_is_not_there_keeps_the_readers_code(tmp_path: Path, name: str) -> None:
    reader, file_name, code = READERS[name]
    with pytest.raises(BenchError) as raised:
        reader(tmp_path / file_name)
    assert raised.value.code == code


BASE = Path(__file__).resolve().parents[1] / "fixtures" / "bundles" / "_base"


def test_a_board_cache_the_disk_refuses_is_said_and_kept_off_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``bench board build --cache`` on a full disk built the board and said "0 bundle(s)
    reused" as if the cache now held them; the next build verified everything again."""
    from bench.board import entrycache
    from bench.cli.main import main

    def full(*args: Any, **kwargs: Any) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(entrycache, "write_keyed", full)
    out, cache = tmp_path / "site", tmp_path / "cache"
    args = ["board", "build", "--no-runs", "--results", str(BASE / "results")]
    args += ["--allowed-signers", str(BASE / "submissions" / "allowed_signers")]
    args += ["--tasks", str(BASE / "mini" / "tasks"), "--resamples", "200"]
    args += ["--cache", str(cache), "--out", str(out)]
    try:
        status = main(args)
    except SystemExit as stop:
        status = stop.code
    captured = capsys.readouterr()
    assert not status, captured.err
    said = f"warning: --cache not written ({cache}: {os.strerror(errno.ENOSPC)})"
    assert said in captured.err, captured.err
    assert "not written" not in (out / "board.json").read_text(encoding="utf-8")
