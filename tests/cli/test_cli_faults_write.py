"""Writes under faults: a full disk names the file it could not write, the history database
says what truly went wrong (a full disk is not a corrupt database; a lock held by another
process is neither), and what was there before stays as it was (helper F9)."""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

import pytest

from bench.cli.main import main
from bench.core.atomic import write_atomic, write_once
from bench.core.errors import RunStoreError

MINI = Path(__file__).resolve().parents[1] / "fixtures" / "mini"


def _full(*_: object) -> int:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # as the kernel says it: no file


@pytest.mark.parametrize("write", [write_atomic, write_once])
def test_a_full_disk_names_the_file_and_leaves_no_temp(
    write: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out" / "file.json"
    monkeypatch.setattr(os, "fsync", _full)
    with pytest.raises(OSError) as info:
        write(target, b"{}")  # type: ignore[operator]
    assert info.value.errno == errno.ENOSPC
    assert info.value.filename == str(target)  # it named no file: "No space left on device"
    # no temp file; write_atomic removes the directory it made, too (helper F12)
    assert not (tmp_path / "out").exists() or os.listdir(tmp_path / "out") == []


def test_report_out_on_a_full_disk_is_one_line_naming_the_file(
    run_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "report.md"
    out.write_text("the old report\n")
    monkeypatch.setattr(os, "fsync", _full)
    with pytest.raises(SystemExit) as info:
        main(["report", run_dir.name, "--runs-dir", str(run_dir.parent), "--format",
              "markdown", "--out", str(out)])  # fmt: skip
    assert info.value.code == 3
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"error[IO_ERROR]: {out}: No space left on device"), line
    assert out.read_text() == "the old report\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def _capped(pages: int) -> object:
    """``sqlite3.connect`` whose database may not grow past ``pages`` pages: SQLite's own
    SQLITE_FULL ("database or disk is full"), as on a full disk."""
    real = sqlite3.connect

    def connect(*args: object, **kwargs: object) -> sqlite3.Connection:
        db = real(*args, **kwargs)  # type: ignore[arg-type]
        db.execute(f"PRAGMA max_page_count = {pages}")
        return db

    return connect


def test_a_full_disk_under_a_new_history_is_io_error_not_corrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bench.reports import history

    monkeypatch.setattr(history.sqlite3, "connect", _capped(1))
    path = tmp_path / "history.sqlite3"
    with pytest.raises(OSError) as info:  # was RunStoreError HISTORY_CORRUPT
        history.open_db(path)
    assert not isinstance(info.value, RunStoreError)
    assert info.value.errno == errno.ENOSPC and info.value.filename == str(path)
    assert "database or disk is full" in str(info.value.strerror)


class _FullAtCommit:
    """A connection whose COMMIT finds the disk full (SQLITE_FULL, as SQLite raises it)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __getattr__(self, name: str) -> object:
        return getattr(self.db, name)

    def execute(self, sql: str, *args: object) -> object:
        if sql == "COMMIT":
            exc = sqlite3.OperationalError("database or disk is full")
            exc.sqlite_errorcode = 13  # type: ignore[attr-defined]
            raise exc
        return self.db.execute(sql, *args)


def test_a_full_disk_at_commit_is_io_error_and_the_history_is_as_it_was(
    run_dir: Path, tmp_path: Path
) -> None:
    from bench.reports import history

    path = tmp_path / "history.sqlite3"
    db = history.open_db(path)
    with pytest.raises(OSError) as info:  # was sqlite3.OperationalError: a traceback
        history.index_run(_FullAtCommit(db), run_dir)  # type: ignore[arg-type]
    assert info.value.errno == errno.ENOSPC and info.value.filename == str(path)
    assert not db.in_transaction  # rolled back: nothing half-indexed
    assert db.execute("SELECT count(*) FROM runs").fetchone()[0] == 0
    assert history.index_run(db, run_dir) == run_dir.name  # with room again
    db.close()


def test_a_history_locked_by_another_process_is_busy_not_corrupt(
    run_dir: Path, tmp_path: Path
) -> None:
    from bench.reports import history

    path = tmp_path / "history.sqlite3"
    history.open_db(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another bench writing it
    db = sqlite3.connect(path, isolation_level=None, timeout=0)
    db.row_factory = sqlite3.Row
    try:
        with pytest.raises(RunStoreError) as info:  # was sqlite3.OperationalError
            history.index_run(db, run_dir)
        assert info.value.code == "HISTORY_BUSY"
        assert "database is locked" in info.value.message
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        db.close()


@pytest.mark.parametrize(
    ("message", "code"),
    [("file is not a database", 26), ("database disk image is malformed", 11)],
)
def test_a_file_that_is_not_a_database_is_still_corrupt(message: str, code: int) -> None:
    from bench.reports.history import refusal

    exc = sqlite3.DatabaseError(message)
    exc.sqlite_errorcode = code  # type: ignore[attr-defined]
    said = refusal(exc, "h.sqlite3")
    assert isinstance(said, RunStoreError) and said.code == "HISTORY_CORRUPT"


def test_a_board_site_on_a_full_disk_names_the_site_and_keeps_the_old_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bench.board.site import write_site

    out = tmp_path / "site"
    write_site(out, {"index.html": b"old"})
    monkeypatch.setattr(os, "fsync", _full)
    with pytest.raises(OSError) as info:
        write_site(out, {"index.html": b"new", "transcripts/a.jsonl.gz": b"x"})
    monkeypatch.undo()
    assert info.value.filename == str(out)  # it named nothing: "No space left on device"
    assert (out / "index.html").read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_a_suite_manifest_on_a_full_disk_is_not_truncated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bench.core.suite import SuiteManifest, write_suite_manifest

    path = tmp_path / "suite.json"
    path.write_text('{"old": true}\n')
    manifest = SuiteManifest.model_construct()
    monkeypatch.setattr(type(manifest), "model_dump", lambda self, **_: {"new": True})
    monkeypatch.setattr(os, "fsync", _full)  # the new bytes never reach the disk
    with pytest.raises(OSError) as info:  # write_text truncated the file, then wrote unsynced
        write_suite_manifest(path, manifest)
    monkeypatch.undo()
    assert info.value.filename == str(path)
    assert path.read_text() == '{"old": true}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["suite.json"]
