"""Which ``OSError`` of a read says something about the file, and which one the disk said.

A reader maps a missing file, or a directory where the file belongs, to its own code
(``*_MISSING``, ``*_INVALID``): that is a fact about the input. An I/O error, a permission,
too many open files are the environment refusing: those are said as they are (``IO_ERROR``,
exit 3, by ``bench.cli.main``), never as a verdict on the input ("corrupt", "missing", or
in verify an invalid bundle, which is a verdict about its submitter).
"""

from __future__ import annotations

import errno
from pathlib import Path

# What the file's place or kind explains: not there, a parent not a directory, a directory,
# a symbolic link refused (O_NOFOLLOW), a FIFO or socket or device without a reader, a name
# too long. Any other errno is the disk or the system refusing.
SHAPE_ERRNOS = frozenset(
    {errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.ELOOP, errno.ENXIO, errno.ENAMETOOLONG}
)


def refused_by_disk(exc: OSError) -> bool:
    """True when ``exc`` is the environment refusing a read (EIO, EACCES, EMFILE...), not
    the file being absent or of another kind. An ``OSError`` without an errno (a bad gzip
    stream is one) is about the data, not the disk."""
    return exc.errno is not None and exc.errno not in SHAPE_ERRNOS


def raise_if_disk(exc: OSError, path: Path | str) -> None:
    """Re-raise ``exc``, naming ``path`` when it names no file, if the disk refused (see
    ``refused_by_disk``); otherwise return, for the caller's own code."""
    if refused_by_disk(exc):
        if exc.filename is None:
            exc.filename = str(path)
        raise exc


__all__ = ["SHAPE_ERRNOS", "raise_if_disk", "refused_by_disk"]
