"""Crash-safe writes: a killed process leaves the old file or the new one, never half of one."""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _umask() -> int:
    """The process's umask as it is now (Linux: read from /proc, without changing it);
    where /proc has none, set and put back once, before any thread of ours writes a file."""
    try:
        with open("/proc/self/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    if not _UMASK:
        mask = os.umask(0o022)
        os.umask(mask)
        _UMASK.append(mask)
    return _UMASK[0]


_UMASK: list[int] = []


def _mode(path: Path, private: bool) -> int:
    """The mode a written file gets: 0600 for a private one (a key); the mode of the file it
    replaces, if there is one; else what ``open`` gives a new file (0666 less the umask). The
    temp file ``mkstemp`` makes is 0600 whatever the umask: a report, a task file or a site
    replaced through it came out unreadable to the group and others (a web server's user)."""
    if private:
        return 0o600
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def _temp_with(directory: Path, data: bytes | Iterable[bytes], mode: int = 0o600) -> Path:
    fd, name = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as handle:
            if isinstance(data, bytes):
                handle.write(data)
            else:  # written piece by piece: the whole never needs to be in memory at once
                for piece in data:
                    handle.write(piece)
            handle.flush()
            if mode != 0o600:
                os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name)
        raise
    return Path(name)


def _name(exc: OSError, path: Path) -> None:
    """An ``OSError`` that names no file (``os.write`` or ``fsync`` on a full disk), or names
    our temp file (``.tmp-….part``, a name the user never gave), is made to name ``path``:
    the error a user reads says which file could not be written."""
    if exc.filename is None or os.path.basename(str(exc.filename)).startswith(".tmp-"):
        exc.filename = str(path)


def write_atomic(path: Path, data: bytes | Iterable[bytes], *, private: bool = False) -> None:
    """Replace ``path`` with ``data`` (bytes, or pieces of bytes written as they come)
    atomically: temp file, fsync, rename, fsync directory. A piece that fails to come leaves
    the old file and no temp file. The file keeps the mode of the one it replaces (a new one:
    0666 less the umask); ``private``: 0600, never readable by others even for a moment."""
    try:  # a try, not a context manager: write_once is on a run's hot path (issue 19)
        _write_atomic(path, data, private)
    except OSError as exc:
        _name(exc, path)
        raise


def _write_atomic(path: Path, data: bytes | Iterable[bytes], private: bool) -> None:
    with made_directory(path.parent):  # a write that fails leaves no empty directory it made
        temp = _temp_with(path.parent, data, _mode(path, private))
        try:
            os.replace(temp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
            raise
    _fsync_dir(path.parent)


def write_set(out: Path, files: dict[str, bytes]) -> None:
    """Write every file of a set (a task set, the schemas) into ``out``, all or none: each
    is written to a synced temp file beside its place first; only when all are there are they
    renamed into place, with SIGINT and SIGTERM held back for those few renames. Interrupted
    (Ctrl-C, SIGTERM, a full disk) before that, ``out`` is as it was and holds no temp file:
    one file at a time, an interrupted write left half a set (new files beside old ones, or a
    fresh directory with some missing, which a reader would take for the whole set). ``out``
    and the directories of names like ``tasks/a.json`` must exist."""
    import signal

    temps: dict[str, str] = {}
    try:
        for name, data in sorted(files.items()):
            fd, temp = tempfile.mkstemp(dir=out, prefix=".tmp-", suffix=".part")
            temps[name] = temp
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fchmod(handle.fileno(), _mode(out / name, False))
                    os.fsync(handle.fileno())
            except OSError as exc:
                _name(exc, out / name)
                raise
        mask = getattr(signal, "pthread_sigmask", None)  # POSIX
        blocked = mask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM}) if mask else None
        try:
            for name in sorted(temps):
                os.replace(temps[name], out / name)
        finally:  # a signal that came meanwhile is delivered here, the set complete
            if mask is not None and blocked is not None:
                mask(signal.SIG_SETMASK, blocked)
        temps.clear()
        for directory in sorted({(out / name).parent for name in files}):
            try:
                _fsync_dir(directory)
            except OSError as exc:
                _name(exc, directory)
                raise
    finally:
        for temp in temps.values():
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)


@contextlib.contextmanager
def made_directory(directory: Path) -> Iterator[None]:
    """Make ``directory`` (and its missing parents) for the block; when the block fails, the
    directories it made are removed again if they are still empty: a write that a full disk
    or a signal stopped leaves no empty output directory behind (one a later command would
    take for an empty result). A directory that was there before is never removed."""
    missing: list[Path] = []
    at = directory
    while not at.exists() and at != at.parent:
        missing.append(at)
        at = at.parent
    directory.mkdir(parents=True, exist_ok=True)
    try:
        yield
    except BaseException:
        for made in missing:  # the deepest first
            try:
                made.rmdir()
            except OSError:  # not empty (another writer's file), or gone: left as it is
                break
        raise


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
    try:
        _write_once(path, data, durable=durable)
    except OSError as exc:
        _name(exc, path)
        raise


def _write_once(path: Path, data: bytes, *, durable: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not _link_unnamed(path, data):
        temp = _temp_with(path.parent, data, 0o666 & ~_umask())
        try:
            os.link(temp, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
    if durable:
        _fsync_dir(path.parent)


# Linux: a file made with O_TMPFILE has no name until it is linked, so a kill leaves nothing
# at all, and the directory changes once instead of three times (temp name, link, unlink):
# half the CPU of a run's attempt files (docs/PERFORMANCE.md, issue 19). Where the file system
# or the kernel has no O_TMPFILE, or /proc is not mounted, the named temp file above is used.
_UNNAMED = [hasattr(os, "O_TMPFILE")]
_ROOT_FD: list[int] = []


def _link_unnamed(path: Path, data: bytes) -> bool:
    """Write ``data`` to an unnamed file in ``path``'s directory, sync it and link it as
    ``path`` (``FileExistsError`` if the name exists); False where that cannot be done."""
    if not _UNNAMED[0]:
        return False
    try:
        # 0666 less the umask (the kernel applies it), as a file ``open`` creates
        fd = os.open(path.parent, os.O_TMPFILE | os.O_WRONLY, 0o666)
    except OSError as exc:
        if exc.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
            _UNNAMED[0] = False  # this file system (or kernel) has none: never ask again
            return False
        raise
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
        if not _ROOT_FD:
            _ROOT_FD.append(os.open("/", os.O_RDONLY | os.O_DIRECTORY))
        try:
            # A directory fd makes os.link call linkat(2), here with AT_SYMLINK_FOLLOW: the
            # fd's /proc link is followed to the unnamed file (link(2) would not follow it).
            os.link(f"/proc/self/fd/{fd}", path, src_dir_fd=_ROOT_FD[0])
        except FileExistsError:
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(path)) from None
        except FileNotFoundError:
            if os.path.isdir("/proc/self/fd"):
                raise
            _UNNAMED[0] = False  # no /proc
            return False
        return True
    finally:
        os.close(fd)


__all__ = ["made_directory", "sync_dir", "write_atomic", "write_once", "write_set"]
