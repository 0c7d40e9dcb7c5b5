"""Crash-safe writes: a killed process leaves the old file or the new one, never half of one."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _temp_with(directory: Path, data: bytes | Iterable[bytes]) -> Path:
    fd, name = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as handle:
            if isinstance(data, bytes):
                handle.write(data)
            else:  # written piece by piece: the whole never needs to be in memory at once
                for piece in data:
                    handle.write(piece)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name)
        raise
    return Path(name)


def write_atomic(path: Path, data: bytes | Iterable[bytes]) -> None:
    """Replace ``path`` with ``data`` (bytes, or pieces of bytes written as they come)
    atomically: temp file, fsync, rename, fsync directory. A piece that fails to come leaves
    the old file and no temp file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = _temp_with(path.parent, data)
    try:
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    _fsync_dir(path.parent)


def sync_dir(directory: Path) -> None:
    """Make the names created in ``directory`` durable (what ``write_once(..., durable=False)``
    left to the caller)."""
    _fsync_dir(directory)


def write_once(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Create ``path`` with ``data``; raise ``FileExistsError`` if it already exists.

    The file appears complete or not at all: it is written to a temp file (its bytes synced
    to disk) and hard-linked into place, and a link never replaces an existing name.
    ``durable=False`` leaves the directory unsynced: after a power cut the name may be gone
    (never the file half there); the caller syncs the directory once for many files
    (``sync_dir``), before anything that counts them.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = _temp_with(path.parent, data)
    try:
        os.link(temp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
    if durable:
        _fsync_dir(path.parent)


__all__ = ["sync_dir", "write_atomic", "write_once"]
