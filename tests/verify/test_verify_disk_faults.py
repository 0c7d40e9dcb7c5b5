"""A bundle the disk cannot read is the environment's failure (IO_ERROR, exit 3), never a
verdict about its submitter; a file that is not there, or not a file, still is a verdict."""

from __future__ import annotations

import errno
import gzip
import os
from pathlib import Path
from typing import Any

import pytest

from bench.cli.main import main
from bench.records.bundle import ATTEMPTS
from bench.verify import provenance, records


def _refuse(monkeypatch: pytest.MonkeyPatch, name: str, code: int) -> None:
    """Verify's ``os.open`` of the file called ``name`` fails with ``code``."""
    real = os.open

    def fake(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if Path(path).name == name:
            raise OSError(code, os.strerror(code))  # no filename: as some failures come
        return real(path, flags, *args, **kwargs)

    monkeypatch.setattr(records.os, "open", fake)


def _verify(world: Any, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    args = ["verify", str(world.bundle), "--results-root", str(world.results)]
    args += ["--allowed-signers", str(world.signers), "--tasks", str(world.tasks)]
    try:
        status = main(args)
    except SystemExit as stop:
        status = stop.code
    captured = capsys.readouterr()
    return int(status or 0), captured.out + captured.err


@pytest.mark.parametrize("code", [errno.EIO, errno.EACCES])
def test_a_file_the_disk_refuses_is_io_error_not_an_invalid_bundle(
    world: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], code: int
) -> None:
    _refuse(monkeypatch, ATTEMPTS, code)
    status, out = _verify(world, capsys)
    assert status == 3, out
    assert out.startswith("error[IO_ERROR]: "), out
    assert str(world.bundle / ATTEMPTS) in out and os.strerror(code) in out
    assert "BUNDLE_FILE_MISSING" not in out and "Traceback" not in out


def test_a_file_that_is_not_there_is_still_the_bundles_failure(
    world: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _refuse(monkeypatch, ATTEMPTS, errno.ENOENT)
    status, out = _verify(world, capsys)
    assert status == 1 and "BUNDLE_FILE_MISSING" in out, out


def test_another_bundle_the_disk_refuses_is_no_silent_pass(
    world: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Provenance reads the other bundles: one the disk refuses was skipped, so a duplicate
    of it verified as valid. Now the disk is said; a bad gzip stream is still skipped."""

    class Failing(gzip.GzipFile):
        def __iter__(self) -> Any:
            raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(provenance.gzip, "GzipFile", Failing)
    with pytest.raises(OSError) as raised:
        provenance.contents_of_bundle(world.bundle)
    assert raised.value.errno == errno.EIO
    assert raised.value.filename == str(world.bundle / ATTEMPTS)

    class Bad(gzip.GzipFile):
        def __iter__(self) -> Any:
            raise gzip.BadGzipFile("Not a gzipped file")

    monkeypatch.setattr(provenance.gzip, "GzipFile", Bad)
    assert provenance.contents_of_bundle(world.bundle) is None


def test_another_bundles_manifest_the_disk_refuses_is_said(
    world: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _refuse(monkeypatch, "manifest.json", errno.EIO)
    with pytest.raises(OSError) as raised:
        provenance.created_of(world.bundle)
    assert raised.value.filename == str(world.bundle / "manifest.json")
    _refuse(monkeypatch, "manifest.json", errno.ENOENT)
    assert provenance.created_of(world.bundle) == ""
