"""The cheapest checks: where the bundle sits, what is in it, and how big it is.

A bundle is a flat directory of regular files with plain ASCII names. Nothing is followed:
a symlink, a subdirectory, a device or a name with ``..``, a backslash, a control or
non-ASCII character, or a case twin of another name is refused before any file is read.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from bench.core.ids import identifier_problem
from bench.records.bundle import (  # one set of limits for bench bundle and bench verify
    GZIP_RATIO_FLOOR,
    MAX_ATTEMPT_LINES,
    MAX_CASSETTE_LINES,
    MAX_FILE_BYTES,
    MAX_FILES,
    MAX_GZIP_RATIO,
    MAX_LINE_BYTES,
    MAX_MANIFEST_BYTES,
    MAX_RECORD_BYTES,
    MAX_TOTAL_BYTES,
)

from .codes import Code
from .failure import VerifyFailure


@dataclass(frozen=True)
class Placement:
    root: Path
    entrant: str
    run_id: str

    @property
    def target_dir(self) -> str:
        return f"results/{self.entrant}/{self.run_id}"


def unsafe_reason(name: str) -> str | None:
    """Why ``name`` cannot be a bundle file name (None when it can)."""
    if "\x00" in name:
        return "contains NUL"
    if "\\" in name:
        return "contains a backslash"
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        return "is absolute"
    if ".." in name.split("/") or ".." in name:
        return "contains '..'"
    if "/" in name:
        return "is not a plain file name (bundles are flat)"
    return identifier_problem(name, "file")


def place(bundle: Path, results_root: Path) -> Placement:
    """``<results_root>/<entrant>/<run_id>``, with no symlink anywhere on the way."""
    if bundle.is_symlink():
        raise VerifyFailure(Code.PATH_UNSAFE, "the bundle directory is a symlink", path=str(bundle))
    if not bundle.is_dir():
        raise VerifyFailure(Code.BUNDLE_NOT_FOUND, "no bundle directory here", path=str(bundle))
    # Every directory between the results root and the bundle, as written (before resolving,
    # which would hide a symlinked entrant directory behind its target's name).
    written, written_root = Path(os.path.abspath(bundle)), Path(os.path.abspath(results_root))
    if written.is_relative_to(written_root):
        for ancestor in written.relative_to(written_root).parents:
            step = written_root / ancestor
            if step != written_root and step.is_symlink():
                raise VerifyFailure(
                    Code.PATH_UNSAFE, f"{step.name}/ on the way is a symlink", path=str(bundle)
                )
    root = results_root.resolve()
    here = bundle.resolve()
    try:
        relative = here.relative_to(root)
    except ValueError:
        raise VerifyFailure(
            Code.BUNDLE_PLACEMENT,
            f"not under the results root {results_root}",
            path=str(bundle),
        ) from None
    parts = relative.parts
    if len(parts) != 2:
        raise VerifyFailure(
            Code.BUNDLE_PLACEMENT,
            "a bundle sits at <results>/<entrant>/<run_id>",
            path=str(bundle),
        )
    for part, kind in ((parts[0], "entrant"), (parts[1], "run")):
        problem = identifier_problem(part, kind)  # type: ignore[arg-type]
        if problem is not None:
            raise VerifyFailure(
                Code.BUNDLE_PLACEMENT,
                f"a bundle sits at <results>/<entrant>/<run_id>: the {kind} id {problem}",
                path=str(bundle),
            )
    if (root / parts[0]).is_symlink():
        raise VerifyFailure(
            Code.PATH_UNSAFE, "the entrant directory is a symlink", path=str(bundle)
        )
    return Placement(root, parts[0], parts[1])


def scan(bundle: Path) -> dict[str, int]:
    """Every file name with its size; refuses anything that is not a plain, small file."""
    sizes: dict[str, int] = {}
    folded: dict[str, str] = {}
    total = 0
    with os.scandir(bundle) as entries:
        for count, entry in enumerate(entries, start=1):
            where = str(bundle / entry.name)
            if count > MAX_FILES:
                raise VerifyFailure(
                    Code.LIMIT_FILES, f"more than {MAX_FILES} files", path=str(bundle)
                )
            reason = unsafe_reason(entry.name)
            if reason is not None:
                raise VerifyFailure(Code.PATH_UNSAFE, f"file name {reason}", path=where)
            info = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(info.st_mode):
                kind = "a symlink" if stat.S_ISLNK(info.st_mode) else "not a regular file"
                raise VerifyFailure(Code.PATH_UNSAFE, f"is {kind}", path=where)
            twin = folded.get(entry.name.casefold())
            if twin is not None:
                raise VerifyFailure(Code.PATH_UNSAFE, f"a case twin of '{twin}'", path=where)
            folded[entry.name.casefold()] = entry.name
            if info.st_size > MAX_FILE_BYTES:
                raise VerifyFailure(
                    Code.LIMIT_SIZE, f"larger than {MAX_FILE_BYTES} bytes", path=where
                )
            total += info.st_size
            sizes[entry.name] = info.st_size
    if total > MAX_TOTAL_BYTES:
        raise VerifyFailure(
            Code.LIMIT_SIZE, f"bundle larger than {MAX_TOTAL_BYTES} bytes", path=str(bundle)
        )
    return sizes


__all__ = [
    "GZIP_RATIO_FLOOR",
    "MAX_ATTEMPT_LINES",
    "MAX_CASSETTE_LINES",
    "MAX_FILES",
    "MAX_FILE_BYTES",
    "MAX_GZIP_RATIO",
    "MAX_LINE_BYTES",
    "MAX_MANIFEST_BYTES",
    "MAX_RECORD_BYTES",
    "Placement",
    "place",
    "scan",
]
