"""Writing the site: build into a temp directory beside ``out``, then swap it in.

A build that fails before the swap leaves the old site exactly as it was. The swap is two
renames in one directory (old -> aside, new -> out); if the second fails the first is undone.
A file's name may name a folder (``transcripts/<key>.jsonl.gz``): it is made in the temp
directory and swapped in with it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from .errors import BoardBuildError


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _site_file(path: Path) -> bool:
    """A name a board build writes: index.html, board.json, suite-<name>.html and .json,
    transcript.html and transcripts/ (``bench.board.build``)."""
    name = path.name
    if name == "transcripts":
        return path.is_dir() and not path.is_symlink()
    if path.is_symlink() or not path.is_file():
        return False
    suite_page = name.startswith("suite-") and name.endswith((".html", ".json"))
    return name in ("index.html", "board.json", "transcript.html") or suite_page


def refuse_foreign_out(out: Path) -> None:
    """The build replaces --out whole (``write_site``): an existing directory that holds
    anything a build did not write (--out docs, --out ~, a file of the user's put in site/) is
    refused before anything is read, instead of deleted with the old site."""
    if not out.is_dir() or out.is_symlink():
        return  # missing, or a file: the build says so (BOARD_OUT)
    try:
        foreign = sorted(p.name for p in out.iterdir() if not _site_file(p))
    except OSError:
        return  # the build names what the file system refused
    if foreign:
        shown = ", ".join(foreign[:3]) + (
            f" and {len(foreign) - 3} more" if len(foreign) > 3 else ""
        )
        raise BoardBuildError(
            f"holds what no board build wrote ({shown}), and a build replaces the whole "
            "directory: give --out a new or empty directory, or the site of an earlier build",
            code="BOARD_OUT",
            path=out,
        )


def write_site(out: Path, files: Mapping[str, bytes]) -> None:
    try:
        _write_site(out, files)
    except OSError as exc:
        # a write or fsync on a full disk names no file: the site it was for is named (it
        # said "No space left on device" alone); the old site is as it was
        # nor the temp directory beside it (``.site.new-…``, a name the user never gave:
        # a read-only parent was reported as that), nor a file inside it
        if exc.filename is None or f"{os.sep}.{out.name}.new-" in str(exc.filename):
            exc.filename = str(out)
        raise


def _write_site(out: Path, files: Mapping[str, bytes]) -> None:
    parent = out.resolve().parent
    if not parent.is_dir():
        raise BoardBuildError("the parent directory does not exist", code="BOARD_OUT", path=parent)
    if out.exists() and not out.is_dir():
        raise BoardBuildError("exists and is not a directory", code="BOARD_OUT", path=out)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=parent))
    try:
        folders = {staging}
        for name, data in sorted(files.items()):
            # a name of ours (``transcripts/<key>.jsonl.gz``), never a submitter's string
            target = staging / name
            if target.parent not in folders:
                target.parent.mkdir(parents=True, exist_ok=True)
                os.chmod(target.parent, 0o755)
                folders.add(target.parent)
            with open(target, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(staging, 0o755)
        for folder in sorted(folders, reverse=True):
            _fsync_dir(folder)
        aside = None
        if out.exists():
            aside = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=parent))
            os.rmdir(aside)
            os.replace(out, aside)
        try:
            os.replace(staging, out)
        except BaseException:  # an interrupt between the two renames, too: the old site back
            if aside is not None:
                os.replace(aside, out)
            raise
        try:
            _fsync_dir(parent)
        finally:  # the new site is in place: the old one goes, interrupted here or not (a
            # SIGTERM at this fsync left a whole old site beside it, .<out>.old-*)
            if aside is not None:
                shutil.rmtree(aside, ignore_errors=True)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


__all__ = ["refuse_foreign_out", "write_site"]
