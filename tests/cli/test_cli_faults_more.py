"""The judge's verdict cache under faults (helper F10): a full disk is the disk's refusal
(IO_ERROR, naming the cache), never "not a judge cache" and never a sqlite3 traceback; another
process holding the cache is JUDGE_CACHE_BUSY; only a file that is not a cache is
JUDGE_CACHE_INVALID."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import pytest

from bench.cli.main import IO_ERROR, io_message
from bench.scorers.judge.cache import JudgeCache
from bench.scorers.judge.errors import JudgeCacheError


def _put(cache: JudgeCache, i: int) -> None:
    cache.put(
        f"key-{i}", passed=True, reason="r" * 4000, model="m", temperature=0.0,
        usage=None, cost_usd=None,
    )  # fmt: skip


def test_a_full_disk_at_a_verdicts_write_is_io_error_naming_the_cache(tmp_path: Path) -> None:
    path = tmp_path / "judge.sqlite3"
    cache = JudgeCache(path)
    _put(cache, 0)
    # SQLite's own "database or disk is full" (SQLITE_FULL), as a full disk gives it
    pages = cache._db.execute("PRAGMA page_count").fetchone()[0]
    cache._db.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(OSError) as info:  # it was a sqlite3.OperationalError traceback
        for i in range(1, 50):
            _put(cache, i)
    assert info.value.errno == errno.ENOSPC
    assert info.value.filename == str(path)
    assert str(path) in io_message(info.value) and IO_ERROR == "IO_ERROR"
    cache.close()
    with JudgeCache(path) as again:  # what it held before is there
        assert again.get("key-0") is not None


def test_a_full_disk_opening_the_cache_is_not_called_an_invalid_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "judge.sqlite3"
    real = sqlite3.connect

    class Full(sqlite3.Connection):
        def execute(self, sql: str, *args: object) -> sqlite3.Cursor:  # type: ignore[override]
            if sql.startswith("PRAGMA journal_mode"):
                error = sqlite3.OperationalError("database or disk is full")
                error.sqlite_errorcode = 13  # type: ignore[attr-defined]  # SQLITE_FULL
                raise error
            return super().execute(sql, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: real(*a, **k, factory=Full))
    with pytest.raises(OSError) as info:  # it was JUDGE_CACHE_INVALID "not a judge cache"
        JudgeCache(path)
    assert not isinstance(info.value, JudgeCacheError)
    assert info.value.errno == errno.ENOSPC and info.value.filename == str(path)


def test_a_cache_another_process_holds_is_busy_not_invalid(tmp_path: Path) -> None:
    path = tmp_path / "judge.sqlite3"
    other = sqlite3.connect(path, isolation_level=None, timeout=0)
    other.execute("PRAGMA journal_mode=DELETE")
    other.execute("CREATE TABLE held (x)")
    other.execute("BEGIN EXCLUSIVE")
    other.execute("INSERT INTO held VALUES (1)")
    try:
        with pytest.raises(JudgeCacheError) as info:
            JudgeCache(path)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert info.value.code == "JUDGE_CACHE_BUSY"  # it said "not a judge cache"
    assert info.value.path == str(path)


def test_a_file_that_is_not_a_database_is_still_invalid(tmp_path: Path) -> None:
    path = tmp_path / "judge.sqlite3"
    path.write_bytes(b"not sqlite at all\n" * 64)
    with pytest.raises(JudgeCacheError) as info:
        JudgeCache(path)
    assert info.value.code == "JUDGE_CACHE_INVALID"
