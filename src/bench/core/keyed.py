"""Files kept by a hex key in a cache directory: ``DIR/<first two hex digits>/<key><suffix>``,
read and written so that a directory someone else filled cannot redirect or stall the build,
and the pruning of those no build asked for (``bench board build --cache-prune``).

A cache may be restored from a store others can write (the publish workflow's, sealed:
``bench.core.seal``). A tag stops a forged file from being believed, but not a file that is
not a file: a FIFO would block a plain read forever, a symbolic link for a two-digit directory
would send the build's writes elsewhere, and a huge file would be read whole. So a keyed file
is read only when it is a regular file (opened without following a link, without blocking,
its size capped) under a two-digit directory that is a real directory, and written only into
such a directory; anything else is an ``OSError`` or ``ValueError``, which the caches take as
a miss or an unwritable store.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from collections.abc import Set
from pathlib import Path

from .atomic import write_atomic

MAX_KEYED_BYTES = 256 << 20
"""Largest keyed file read (an entry of a whole-BFCL bundle is under 1 MB)."""

_KEY = re.compile(r"[0-9a-f]{64}")


def keyed_path(directory: Path, key: str, suffix: str) -> Path:
    return directory / key[:2] / f"{key}{suffix}"


def real_directory(directory: Path) -> None:
    """``OSError`` unless ``directory`` is a directory and not a symbolic link."""
    if directory.is_symlink() or not directory.is_dir():
        raise NotADirectoryError(f"{directory} is not a directory of its own")


def read_keyed(directory: Path, key: str, suffix: str, limit: int = MAX_KEYED_BYTES) -> bytes:
    """The bytes of the file kept under ``key``: a regular file, at most ``limit`` bytes, in a
    two-digit directory that is not a link (``OSError`` or ``ValueError`` otherwise)."""
    path = keyed_path(directory, key, suffix)
    real_directory(path.parent)
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{path} is not a regular file")
        if info.st_size > limit:
            raise ValueError(f"{path} is larger than {limit} bytes")
        chunks, read = [], 0
        while chunk := os.read(fd, 1 << 20):
            read += len(chunk)
            if read > limit:
                raise ValueError(f"{path} is larger than {limit} bytes")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_keyed(directory: Path, key: str, suffix: str, data: bytes) -> None:
    """Keep ``data`` under ``key`` (atomically); ``OSError`` when the two-digit directory is
    a link or not a directory."""
    path = keyed_path(directory, key, suffix)
    path.parent.mkdir(parents=True, exist_ok=True)
    real_directory(path.parent)
    write_atomic(path, data)


def prune(directory: Path, suffix: str, wanted: Set[str]) -> int:
    """Remove every ``DIR/xx/<key><suffix>`` whose key is not in ``wanted``, then the
    two-digit directories left empty; how many files were removed. Nothing else is touched:
    only names this layout makes (a 64-digit lowercase hex key under its first two digits),
    never through a symbolic link."""
    removed = 0
    if directory.is_symlink() or not directory.is_dir():
        return 0
    for sub in sorted(directory.iterdir()):
        if not (len(sub.name) == 2 and sub.is_dir() and not sub.is_symlink()):
            continue
        for path in sorted(sub.iterdir()):
            key = path.name[: -len(suffix)] if path.name.endswith(suffix) else ""
            if not _KEY.fullmatch(key) or key[:2] != sub.name or key in wanted:
                continue
            if path.is_file() and not path.is_symlink():
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                    removed += 1
        with contextlib.suppress(OSError):  # not empty: something else lives there
            sub.rmdir()
    return removed


__all__ = ["MAX_KEYED_BYTES", "keyed_path", "prune", "read_keyed", "real_directory", "write_keyed"]
