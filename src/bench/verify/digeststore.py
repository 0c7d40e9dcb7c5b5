"""Provenance digests of other bundles, kept on disk between board builds.

Provenance compares a bundle with every earlier bundle under the results root, first through
each one's :class:`~bench.verify.provenance.Digest` (the per-task unions that rule a pair out).
Within one process each bundle is read once (``provenance.read_other``); but a board rebuilt
from its cache (``bench board build --cache DIR``) verifies only the new bundle, which then has
to read all the others, about half a second each for the whole BFCL suite: most of a rebuild.

This store keeps each bundle's digest on disk under ``DIR/provenance``, keyed by the sha256 of
its attempts file and the code (``dependencies.code_digest``): the same bytes read by the same
code give the same digest. Only the digest is kept; when it does not rule a pair out, the
other bundle is read in full and compared as without a store. A file that does not read back
as a digest is a miss, computed again. The directory is trusted as the board's cache is
(docs/DECISIONS.md, 42): whoever can write it could hide a duplicate, unless the store is
sealed with the cache's key (``bench.core.seal``), when a file without its tag is a miss.
"""

from __future__ import annotations

import hashlib
import json
import sys
from array import array
from pathlib import Path

from bench.core.diskerror import raise_if_disk
from bench.core.keyed import prune, read_keyed, real_directory, write_keyed
from bench.core.seal import SealKey, seal, unseal
from bench.records.bundle import ATTEMPTS

from .dependencies import code_digest
from .layout import MAX_FILE_BYTES
from .provenance import Digest, contents_of_bundle, digest_of, read_other, safe_open

FORMAT = "bench-provenance-digest/1"
SUFFIX = ".tokens"
_CHUNK = 1 << 20
# For the rest of the process, by (store, key, attempts file): its (inode, size, mtime) and
# digest.
_MEMO: dict[tuple[Path, SealKey | None, Path], tuple[tuple[int, int, int], Digest | None]] = {}
# For the rest of the process, by store directory: why the first digest that could not be
# kept there was not (``path: reason``), for the build to say once (``unwritten``).
_UNWRITTEN: dict[Path, str] = {}


def unwritten(directory: Path, *, forget: bool = False) -> str | None:
    """Why a digest could not be kept under ``directory`` in this process (``path: reason``,
    the first such), or None: the build goes on without it, only slower next time, and says
    so rather than report a cache the next build will not find. ``forget``: and forget it (a
    build starting)."""
    return _UNWRITTEN.pop(directory, None) if forget else _UNWRITTEN.get(directory)


def _encode(digest: Digest) -> bytes:
    """A JSON line with the task ids and how many tokens of each kind, then the tokens as
    little-endian 64-bit integers."""
    parts = (digest.own, digest.words, digest.digests)
    tokens = array("Q")
    for part in parts:
        tokens.extend(part)
    if sys.byteorder != "little":
        tokens.byteswap()
    head = {"format": FORMAT, "tasks": sorted(digest.tasks), "counts": [len(p) for p in parts]}
    return json.dumps(head, ensure_ascii=False).encode("utf-8") + b"\n" + tokens.tobytes()


def _decode(raw: bytes) -> Digest:
    line, _, body = raw.partition(b"\n")
    head = json.loads(line)
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise ValueError("another format")
    tasks, counts = head["tasks"], head["counts"]
    if not isinstance(tasks, list) or not all(isinstance(t, str) for t in tasks):
        raise ValueError("tasks")
    if not isinstance(counts, list) or len(counts) != 3:
        raise ValueError("counts")
    tokens = array("Q")
    tokens.frombytes(body)  # ValueError when not whole integers
    if sys.byteorder != "little":
        tokens.byteswap()
    if not all(isinstance(n, int) and n >= 0 for n in counts) or sum(counts) != len(tokens):
        raise ValueError("counts")
    own, words = counts[0], counts[0] + counts[1]
    return Digest(
        frozenset(tasks),
        frozenset(tokens[:own]),
        frozenset(tokens[own:words]),
        frozenset(tokens[words:]),
    )


def _file_key(path: Path) -> str | None:
    """sha256 of the file's bytes, or None when it cannot be read, exceeds the cap, or is not
    a regular file reached without a symlink (``provenance.safe_open``: a pipe or a device
    would hang or never end)."""
    h = hashlib.sha256()
    read = 0
    opened = safe_open(path, MAX_FILE_BYTES)
    if opened is None:
        return None
    try:
        with opened as handle:
            while block := handle.read(_CHUNK):
                read += len(block)
                if read > MAX_FILE_BYTES:
                    return None
                h.update(block)
    except OSError:
        return None
    return h.hexdigest()


def digest_key(bundle: Path) -> str | None:
    """The key ``bundle``'s digest is kept under: its attempts file's sha256 and the code's
    (None when the file cannot be read)."""
    own = _file_key(bundle / ATTEMPTS)
    if own is None:
        return None
    return hashlib.sha256(f"{FORMAT}\0{code_digest()}\0{own}".encode()).hexdigest()


class DigestStore:
    """Digests by the attempts file's content under ``directory`` (see the module docstring),
    and by its path, size and modification time for the rest of the process (shared by every
    store of the same directory, as each bundle's verification makes its own)."""

    def __init__(self, directory: Path, key: SealKey | None = None) -> None:
        self.directory = directory
        self.seal_key = key
        self.hits = 0
        self.misses = 0

    def prune(self, wanted: set[str]) -> int:
        """Remove every digest whose key (``digest_key``) is not in ``wanted``."""
        return prune(self.directory, SUFFIX, wanted)

    def digest(self, bundle: Path) -> Digest | None:
        """``bundle``'s provenance digest; None when its attempts cannot be read (its own
        verification refuses it)."""
        path = (bundle / ATTEMPTS).resolve()
        try:
            st = path.stat()
        except OSError as exc:
            raise_if_disk(exc, path)  # a disk that refused is said, never read as "no digest"
            return None
        stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
        memo = _MEMO.get((self.directory, self.seal_key, path))
        if memo is not None and memo[0] == stamp:
            return memo[1]
        found = self._lookup(bundle)
        _MEMO[(self.directory, self.seal_key, path)] = (stamp, found)
        return found

    def prime(self, bundle: Path) -> str | None:
        """Put ``bundle``'s digest in the store unless it is there, without keeping the
        bundle's contents in this process (``read_other`` keeps them, for a pair the digest
        lets through): a board build makes every digest first, and most pairs stop there.
        Returns ``unwritten(directory)``: a worker process of the build hands it back."""
        self._lookup(bundle, keep=False)
        return unwritten(self.directory)

    def _lookup(self, bundle: Path, keep: bool = True) -> Digest | None:
        key = digest_key(bundle)
        if key is not None:
            try:
                real_directory(self.directory)
                raw = read_keyed(self.directory, key, SUFFIX)
                found = _decode(unseal(self.seal_key, f"provenance:{key}", raw))
            except (OSError, ValueError, KeyError, TypeError):
                pass
            else:
                self.hits += 1
                return found
        self.misses += 1
        if keep:
            read = read_other(bundle)
            made = None if read is None else read[1]
        else:
            contents = contents_of_bundle(bundle)
            made = None if contents is None else digest_of(contents)
        if made is None:
            return None
        if key is not None:
            try:  # a store that cannot be written is only slower; said once (``unwritten``)
                sealed = seal(self.seal_key, f"provenance:{key}", _encode(made))
                self.directory.mkdir(parents=True, exist_ok=True)
                real_directory(self.directory)  # never written through a link
                write_keyed(self.directory, key, SUFFIX, sealed)
            except OSError as exc:
                where = exc.filename if exc.filename is not None else self.directory
                _UNWRITTEN.setdefault(self.directory, f"{where}: {exc.strerror or exc}")
        return made


__all__ = ["FORMAT", "DigestStore", "digest_key", "unwritten"]
