"""Everything one bundle's verdict depends on, reduced to one key.

A cache of verdicts (``bench board build --cache``, ``bench.board.entrycache``) may answer for
``verify_bundle`` only when nothing the verdict could depend on has changed. This module names
all of it, and :meth:`VerdictInputs.key` hashes it:

* the bundle: every file under its directory, by relative path and bytes (a tree holding
  anything but regular files and directories, a symlink say, has no key: never cached);
* where it sits: its ``<entrant>/<run_id>`` under the results root;
* the verifier's inputs: the ``allowed_signers`` file, the task set (every file under the task
  directory, its ``suite.json`` and its corpora) and every number of :class:`VerifyOptions`
  that a check reads;
* the replay sample's seed, as ``sample.resolve_seed`` derives it (from the commit that added
  the bundle, when it is in git);
* the other bundles a check compares it with: every other directory with the same run id,
  with its place in the order (``RUN_ID_REUSED``: only one that came first refuses it), and
  every bundle that came before it (``provenance``: only an earlier bundle can make this one
  a duplicate), with their bytes;
* the code: every file of the installed ``bench`` package, the Python version and the
  versions of the libraries a verdict passes through (records, scores, the manifest's
  canonical form, its signature, the task files).

The clock is left out: the only check that reads it refuses a bundle created in the future,
and the board's cache keeps valid verdicts only, which time cannot undo. A verdict read with
``base_ref`` (keys from git) has no key. Hashing reads every byte (about 1 s per GB): cheaper
than verifying by two orders of magnitude, and a byte changed anywhere is a miss.
"""

from __future__ import annotations

import functools
import hashlib
import os
import stat
import sys
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from bench.core.suite import suite_file_for
from bench.records.bundle import MANIFEST

from . import provenance, sample

if TYPE_CHECKING:
    from .verifier import VerifyOptions

FORMAT = b"bench-verdict-inputs/1"
# Every library a verdict or an entry passes through: the records (pydantic), the statistics
# (numpy), the manifest's canonical form (rfc8785: MANIFEST_NOT_CANONICAL), its signature
# (cryptography: SIGNATURE_INVALID), the task files (PyYAML: the pinned tasks and their
# fingerprints). The publish workflow restores a cache made before a pinned upgrade of any of
# them; a verdict the new version would refuse must not be taken from it.
_LIBRARIES = (
    "pydantic",
    "pydantic-core",
    "numpy",
    "jsonschema",
    "click",
    "cryptography",
    "rfc8785",
    "PyYAML",
)
_CHUNK = 1 << 20


def _file_digest(path: Path) -> bytes:
    h = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_CHUNK):
            h.update(block)
    return h.digest()


def tree_digest(directory: Path) -> str | None:
    """sha256 over every file under ``directory`` (relative path and bytes, in sorted order),
    or None when the tree holds a symlink or anything else but files and directories, or
    cannot be read. A missing directory has a digest of its own."""
    h = hashlib.sha256(b"tree\0")
    try:
        if directory.is_symlink():
            return None
        if not directory.exists():
            return hashlib.sha256(b"absent\0" + os.fsencode(directory.name)).hexdigest()
        if directory.is_file():
            return _file_digest(directory).hex()
        for top, dirs, files in os.walk(directory, onerror=_raise):
            dirs.sort()
            base = Path(top)
            for name in dirs:
                if (base / name).is_symlink():
                    return None
            for name in sorted(files):
                path = base / name
                mode = path.lstat().st_mode
                if not stat.S_ISREG(mode):
                    return None
                rel = path.relative_to(directory).as_posix()
                h.update(os.fsencode(rel) + b"\0")
                h.update(_file_digest(path))
    except OSError:
        return None
    return h.hexdigest()


def _raise(error: OSError) -> None:
    raise error


@functools.cache
def code_digest() -> str:
    """The installed ``bench`` package's every file, the Python version and the versions of
    the libraries records and scores pass through: a change to any is a new key."""
    import bench

    package = Path(bench.__file__).resolve().parent
    h = hashlib.sha256(b"code\0")
    for path in sorted(package.rglob("*")):
        if "__pycache__" in path.parts or not path.is_file():
            continue
        h.update(os.fsencode(path.relative_to(package).as_posix()) + b"\0")
        h.update(_file_digest(path))
    h.update(sys.version.encode() + b"\0")
    for name in _LIBRARIES:
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            version = "absent"
        h.update(f"{name}={version}\0".encode())
    return h.hexdigest()


class VerdictInputs:
    """Keys for the bundles under one results root; each file tree is hashed once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._trees: dict[Path, str | None] = {}
        self._ordered: list[tuple[Path, Path, tuple[bool, int, str, str, str]]] | None = None
        self._rank: dict[Path, int] = {}

    def digest(self, path: Path) -> str | None:
        """:func:`tree_digest` of ``path``, computed once."""
        key = Path(os.path.abspath(path))
        if key not in self._trees:
            self._trees[key] = tree_digest(path)
        return self._trees[key]

    def prime(self, paths: list[Path], threads: int) -> None:
        """Compute the digests of ``paths`` not yet known, ``threads`` files at once: hashlib
        and file reads let go of the interpreter lock, so two threads hash about twice as
        fast on two cores. The digests are the ones :meth:`digest` would compute."""
        todo = list(dict.fromkeys(Path(os.path.abspath(p)) for p in paths))
        todo = [p for p in todo if p not in self._trees]
        if threads <= 1 or len(todo) <= 1:
            for path in todo:
                self.digest(path)
            return
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=threads) as pool:
            for path, found in zip(todo, pool.map(tree_digest, todo), strict=True):
                self._trees[path] = found

    def _order(self) -> list[tuple[Path, Path, tuple[bool, int, str, str, str]]]:
        """Every bundle under the root with its resolved path and ``provenance.order_key``,
        derived once for all of them."""
        if self._ordered is None:
            rank = provenance.landing_order(self.root)
            others = [m.parent for m in sorted(self.root.glob(f"*/*/{MANIFEST}"))]
            created = {other: provenance.created_of(other) for other in others}
            self._rank = rank
            self._ordered = [
                (o, o.resolve(), provenance.order_key(o, rank, created)) for o in others
            ]
        return self._ordered

    def _order_key(self, bundle: Path) -> tuple[bool, int, str, str, str]:
        here = bundle.resolve()
        mine = next((key for _, path, key in self._order() if path == here), None)
        if mine is None:  # not where the glob finds it: placed by its own manifest
            created = {bundle: provenance.created_of(bundle)}
            mine = provenance.order_key(bundle, self._rank, created)
        return mine

    def _earlier_bundles(self, bundle: Path) -> list[Path]:
        """The bundles under the root that came before ``bundle`` (``provenance.earlier``).
        A tie left to the path is between two bundles with one run id, which the key names
        anyway."""
        here, mine = bundle.resolve(), self._order_key(bundle)
        return [other for other, path, key in self._order() if path != here and key < mine]

    def key(self, bundle: Path, options: VerifyOptions) -> str | None:
        """The key of ``bundle``'s verdict under ``options`` (see the module docstring), or
        None when it cannot have one."""
        if options.base_ref is not None or options.results_root != self.root:
            return None
        try:
            where = Path(os.path.abspath(bundle)).relative_to(os.path.abspath(self.root))
        except ValueError:
            return None
        if len(where.parts) != 2:
            return None
        own = self.digest(bundle)
        if own is None:
            return None
        h = hashlib.sha256(FORMAT + b"\0")

        def part(label: str, value: str | None) -> None:
            h.update(f"{label}={value}\0".encode("utf-8", "surrogateescape"))

        part("code", code_digest())
        part("at", where.as_posix())
        part("bundle", own)
        inputs = {
            "signers": options.allowed_signers,
            "tasks": options.tasks,
            "suite": suite_file_for(options.tasks),
            "corpora": options.corpus_root or _corpora_of(options.tasks),
        }
        for label, path in inputs.items():
            found = self.digest(path)
            if found is None:
                return None
            part(label, found)
        part("sample", str(options.replay_sample))
        part("repository", options.repository)
        part("fault_share", repr(options.max_harness_fault_share))
        part("duplicates", str(options.check_duplicates))
        try:
            raw = (bundle / MANIFEST).read_bytes()
        except OSError:
            return None
        part("seed", str(sample.resolve_seed(bundle, raw, options.seed, options)[0]))
        run_id = where.parts[1]
        for manifest in sorted(self.root.glob(f"*/{run_id}/{MANIFEST}")):
            if manifest.parent.resolve() != bundle.resolve():
                # With its place in the order: only one that came first (or ties) refuses
                # this bundle (``manifest.check_unique``).
                twin = manifest.parent
                landed, rank, created = self._order_key(twin)[:3]
                where_twin = twin.relative_to(self.root).as_posix()
                part("same_run_id", f"{where_twin} {landed} {rank} {created}")
        if options.check_duplicates:
            for other in self._earlier_bundles(bundle):
                theirs = self.digest(other)
                if theirs is None:
                    return None
                part("earlier", f"{other.relative_to(self.root).as_posix()} {theirs}")
        return h.hexdigest()


def _corpora_of(tasks: Path) -> Path:
    from bench.tasks.load import default_corpus_root

    return default_corpus_root(tasks)


__all__ = ["FORMAT", "VerdictInputs", "code_digest", "tree_digest"]
