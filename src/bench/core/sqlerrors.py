"""What a SQLite error says, for the two SQLite files bench keeps (the run history, the judge
cache): the file system's refusal, another process holding the file, or a file that is not
the database it should be. Without this a full disk read as "not a usable database", which sent
the user to delete a file that was fine."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

# SQLite's primary result codes (sqlite3.h) where the file system, not the file, said no.
_DISK = {
    13: errno.ENOSPC,  # SQLITE_FULL
    10: errno.EIO,  # SQLITE_IOERR
    8: errno.EROFS,  # SQLITE_READONLY
    3: errno.EACCES,  # SQLITE_PERM
    14: 0,  # SQLITE_CANTOPEN
}
_BUSY = (5, 6)  # SQLITE_BUSY, SQLITE_LOCKED


def _primary(exc: sqlite3.Error) -> int:
    return (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF


def disk_refusal(exc: sqlite3.Error, path: Path | str, what: str) -> OSError | None:
    """The file system's refusal as an ``OSError`` naming ``path`` (the CLI prints it as
    ``IO_ERROR``), or None when ``exc`` is not one."""
    number = _DISK.get(_primary(exc))
    if number is None:
        return None
    return OSError(number, f"{exc} (SQLite, {what})", str(path))


def is_busy(exc: sqlite3.Error) -> bool:
    """Another connection held the file past SQLite's wait (a lock, not damage)."""
    return _primary(exc) in _BUSY


__all__ = ["disk_refusal", "is_busy"]
