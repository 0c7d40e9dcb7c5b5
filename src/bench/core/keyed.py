"""Files kept by a hex key in a cache directory: ``DIR/<first two hex digits>/<key><suffix>``,
and the pruning of those no build asked for (``bench board build --cache-prune``)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Set
from pathlib import Path

_KEY = re.compile(r"[0-9a-f]{64}")


def keyed_path(directory: Path, key: str, suffix: str) -> Path:
    return directory / key[:2] / f"{key}{suffix}"


def prune(directory: Path, suffix: str, wanted: Set[str]) -> int:
    """Remove every ``DIR/xx/<key><suffix>`` whose key is not in ``wanted``, then the
    two-digit directories left empty; how many files were removed. Nothing else is touched:
    only names this layout makes (a 64-digit lowercase hex key under its first two digits)."""
    removed = 0
    if not directory.is_dir():
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


__all__ = ["keyed_path", "prune"]
