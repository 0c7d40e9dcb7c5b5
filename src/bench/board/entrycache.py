"""A cache of loaded bundles (``bench board build --cache DIR``): one JSON file per entry.

Verifying a bundle of the whole BFCL suite and reading its 3,628 attempts costs seconds of CPU
(docs/PERFORMANCE.md, "Issue 18"), so a board of 100 such bundles takes minutes to build cold.
A board is rebuilt when a bundle is added; every other bundle, and all it was checked against,
is the same bytes as last time. The cache keeps, for each bundle that verified (or was read
with ``--no-verify``), the :class:`EntryInput` and digest the build made of it, under a key
over everything the verdict and the entry depend on (``bench.verify.dependencies``, plus the
repository URL, the results directory's name and whether it was verified). A key that is not
found, or a file that does not read back as an entry, is a miss: the bundle is verified and
read again, never trusted. Refusals are not kept.

Unsealed, the directory is trusted like the code: whoever can write it can put any entry on
the board. Keep it on the machine that builds. With a key (``--cache-key-env VAR``,
``bench.core.seal``) each file carries an HMAC tag over its key and bytes, and a file without
the tag of this key is a miss: the publish workflow restores such a cache from GitHub's, which
others may be able to write (docs/DECISIONS.md, 42).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from bench.core.keyed import prune, read_keyed, write_keyed
from bench.core.seal import SealKey, seal, unseal

from .entries import EntryInput, FailedInput, NotScoredInput, RunHeadline

FORMAT = "bench-board-entry/2"
"""In every key: a new format (2 added ``not_scored``) makes every entry cached before a miss."""
SUFFIX = ".json"


def _encode(entry: EntryInput, digest: bytes) -> bytes:
    # Insertion order kept (no sort_keys): an entry's mappings are in the run's task order,
    # which its headline's bootstrap follows.
    data = {"format": FORMAT, "digest": digest.hex(), "entry": asdict(entry)}
    return json.dumps(data, ensure_ascii=False).encode("utf-8")


def _decode(raw: bytes) -> tuple[EntryInput, bytes]:
    data = json.loads(raw)
    if data.get("format") != FORMAT:
        raise ValueError("another format")
    values: dict[str, Any] = dict(data["entry"])
    if set(values) != {f.name for f in fields(EntryInput)}:
        raise ValueError("other fields")
    values["latencies"] = tuple((str(t), float(s)) for t, s in values["latencies"])
    values["safety"] = tuple(values["safety"])
    values["judge_excluded"] = tuple(values["judge_excluded"])
    values["languages"] = {k: (float(v), int(n)) for k, (v, n) in values["languages"].items()}
    values["failed"] = tuple(
        FailedInput(**{**f, "lines": tuple(f["lines"])}) for f in values["failed"]
    )
    values["not_scored"] = tuple(NotScoredInput(**n) for n in values["not_scored"])
    if values["headline"] is not None:
        values["headline"] = RunHeadline(**values["headline"])
    return EntryInput(**values), bytes.fromhex(data["digest"])


class EntryCache:
    """Entries by key under ``directory`` (see the module docstring)."""

    def __init__(self, directory: Path, key: SealKey | None = None) -> None:
        self.directory = directory
        self.seal_key = key
        self.hits = 0
        self.misses = 0
        self.unwritten: OSError | None = None
        """Why the last ``put`` wrote nothing (a full disk), for the build to say."""

    @staticmethod
    def key(*parts: str) -> str:
        h = hashlib.sha256(FORMAT.encode() + b"\0")
        for part in parts:
            h.update(part.encode("utf-8", "surrogateescape") + b"\0")
        return h.hexdigest()

    def get(self, key: str | None) -> tuple[EntryInput, bytes] | None:
        if key is None:
            self.misses += 1
            return None
        try:
            raw = unseal(self.seal_key, f"entry:{key}", read_keyed(self.directory, key, SUFFIX))
            found = _decode(raw)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            self.misses += 1
            return None
        self.hits += 1
        return found

    def put(self, key: str | None, entry: EntryInput, digest: bytes) -> bool:
        """Keep ``entry`` under ``key``; False when the directory cannot be written (the
        build goes on without it)."""
        if key is None:
            return True
        try:
            sealed = seal(self.seal_key, f"entry:{key}", _encode(entry, digest))
            write_keyed(self.directory, key, SUFFIX, sealed)
        except OSError as exc:
            if exc.filename is None:
                exc.filename = str(self.directory)
            self.unwritten = exc
            return False
        return True

    def prune(self, wanted: set[str]) -> int:
        """Remove every entry whose key is not in ``wanted``; how many were removed."""
        return prune(self.directory, SUFFIX, wanted)


__all__ = ["EntryCache"]
