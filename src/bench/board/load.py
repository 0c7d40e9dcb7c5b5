"""Stage 1: find the inputs. A :class:`Loader` yields loaded entries and the bytes they rest on.

Two loaders: :class:`RunsLoader` (every run directory under ``--runs``) and
:class:`BundlesLoader` (every ``results/<entrant>/<run_id>/`` bundle, checked with
``verify_bundle`` and read with ``bench.verify.records.load_run``, the reader verify itself
uses, so the board reads exactly what verify accepted, under the same size limits and text
rules, with or without ``--no-verify``; a bundle it cannot read is a ``BOARD_INPUT`` error
naming the verify code, never a traceback). Add a source by writing another class with the
same ``load`` method.
"""

from __future__ import annotations

import contextlib
import hashlib
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from bench.core.errors import BenchError
from bench.records.run import AttemptRecord, RunConfig, RunStatus
from bench.records.store import RunDir, RunStore

from .entries import EntryInput, from_summary
from .errors import BoardInputError

if TYPE_CHECKING:
    from bench.core.seal import SealKey
    from bench.verify import VerifyOptions
    from bench.verify.digeststore import DigestStore
    from bench.verify.taskcache import TaskCache


class Loader(Protocol):
    def load(self, repo_url: str | None) -> list[tuple[EntryInput, bytes]]:
        """Every entry and a digest of the files it was read from."""
        ...


def _digest(config: RunConfig, status: RunStatus, attempts: Iterable[AttemptRecord]) -> bytes:
    """A hash of what an entry was read from: each model as pydantic's own JSON (fields in
    model order, as read), a tenth of the CPU of sorted-key JSON of a dump (a third of a
    second per bundle of the whole BFCL suite)."""
    h = hashlib.sha256()
    for model in (config, status, *attempts):
        h.update(model.model_dump_json().encode())
        h.update(b"\n")
    return h.digest()


@dataclass(frozen=True)
class RunsLoader:
    root: Path

    def load(self, repo_url: str | None) -> list[tuple[EntryInput, bytes]]:
        return [_from_run(run, self.root.name, repo_url) for run in RunStore(self.root).runs()]


@dataclass(frozen=True)
class RunLoader:
    """One run directory: the board of a single run is its HTML report (``bench report``)."""

    run: RunDir

    def load(self, repo_url: str | None) -> list[tuple[EntryInput, bytes]]:
        return [_from_run(self.run, self.run.path.parent.name, repo_url)]


def _from_run(run: RunDir, root_name: str, repo_url: str | None) -> tuple[EntryInput, bytes]:
    from bench.reports.summary import summarize

    try:
        summary = summarize(run)
    except BenchError as exc:
        raise BoardInputError(exc.message, path=exc.path, field=exc.field) from None
    entry = from_summary(
        summary,
        source="run",
        source_path=f"{root_name}/{run.run_id}",
        verified=False,
        verified_note="local run, not verified",
        repo_url=repo_url,
    )
    return entry, _digest(summary.config, summary.status, summary.records)


@dataclass(frozen=True)
class _BundleRunDir(RunDir):
    """A bundle seen through the run-directory interface ``summarize`` reads."""

    loaded_config: RunConfig | None = None
    loaded_status: RunStatus | None = None
    loaded_attempts: tuple[AttemptRecord, ...] = ()

    def config(self) -> RunConfig:
        assert self.loaded_config is not None
        return self.loaded_config

    def status(self) -> RunStatus:
        assert self.loaded_status is not None
        return self.loaded_status

    def attempts(self) -> list[AttemptRecord]:
        return list(self.loaded_attempts)


@dataclass(frozen=True)
class BundlesLoader:
    root: Path
    verify: bool = True
    allowed_signers: Path | None = None
    tasks: Path | None = None
    suite_tasks: Mapping[str, Path] = field(default_factory=dict)
    """Suite name -> its task set: a bundle of that suite is verified against it (the rest
    against ``tasks``, by default the repository's ``tasks/``, bench-suite's own)."""

    def tasks_for(self, bundle: Path, default: Path) -> Path:
        """The task set a bundle is verified against: its suite's, when the build was given
        it (``bench.verify.inputs.tasks_for_suite``, as ``bench verify --suite-tasks``)."""
        from bench.verify.inputs import tasks_for_suite

        return tasks_for_suite(bundle, default, self.suite_tasks)

    def bundles(self) -> list[Path]:
        if not self.root.is_dir():
            return []
        return sorted(p.parent for p in self.root.glob("*/*/manifest.json") if p.parent.is_dir())

    def strays(self) -> list[Path]:
        """Every ``results/<entrant>/<run_id>/`` directory that holds no manifest.json: not a
        bundle, so never on the board, and never verified either (``--strict`` refuses it)."""
        if not self.root.is_dir():
            return []
        found = set(self.bundles())
        return sorted(p for p in self.root.glob("*/*") if p.is_dir() and p not in found)

    jobs: int = 1
    """Processes that verify and read the bundles (``bench board build --jobs``): 1 reads them
    here, one after the other; more spreads them over a pool of that many, with the same
    entries in the same order (each process derives the task sets once, ``TaskCache``)."""

    reused: list[int] = field(default_factory=list, compare=False)
    """How many bundles each ``load`` took from the cache (for the build's report)."""
    cache: Path | None = None
    """``bench board build --cache DIR``: entries kept from earlier builds, by a key over all
    they depend on (``entrycache``); None: every bundle is verified and read."""
    cache_key: SealKey | None = field(default=None, repr=False)
    """``--cache-key-env VAR``: the cache's files are sealed with this key and a file without
    its tag is a miss (``bench.core.seal``); None: the cache directory is trusted as it is."""
    cache_prune: bool = False
    """``--cache-prune``: after the build, remove every cached entry and digest this build's
    bundles do not use."""
    pruned: list[int] = field(default_factory=list, compare=False)
    """How many stale cache files each ``load`` removed (``cache_prune``)."""
    unwritten: list[str] = field(default_factory=list, compare=False)
    """Why the cache could not be written (``path: reason``), when it could not: the build
    goes on without it, and says so rather than report a cache the next build will not find."""
    digests_unwritten: list[str] = field(default_factory=list, compare=False)
    """Why a provenance digest could not be kept in the cache (``path: reason``), when one
    could not: the build is the same, the next one only slower (``digeststore.unwritten``)."""
    digests: Path | None = None
    """Where provenance keeps the bundles' digests (``DigestStore``): ``cache/provenance``
    with a cache; for a build without one, a private temporary directory that ``load`` makes
    and removes at the end. Either way the bundles to verify get their digests first (each
    bundle read once, by one of the processes), where each process used to read every other
    bundle in full."""

    def load(self, repo_url: str | None) -> list[tuple[EntryInput, bytes]]:
        from .entrycache import EntryCache

        bundles = self.bundles()
        store = EntryCache(self.cache, self.cache_key) if self.cache is not None else None
        if self.cache is not None:
            from bench.verify.digeststore import unwritten

            unwritten(self.cache / "provenance", forget=True)  # an earlier build's, if any
        keys: dict[Path, str | None] = {}
        found: dict[Path, tuple[EntryInput, bytes]] = {}
        if store is not None:
            keys = self._keys(bundles, repo_url)
            for bundle in bundles:
                hit = store.get(keys[bundle])
                if hit is not None:
                    found[bundle] = hit
        todo = [bundle for bundle in bundles if bundle not in found]
        with contextlib.ExitStack() as stack:
            loader = self
            if self.verify and self.cache is None and self.digests is None and len(todo) > 1:
                scratch = stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-board-"))
                loader = replace(self, digests=Path(scratch))
            for bundle, loaded in zip(todo, loader._load_many(todo, repo_url), strict=True):
                found[bundle] = loaded
                keep = store is not None and (loaded[0].verified or not self.verify)
                if keep and store is not None and not store.put(keys.get(bundle), *loaded):
                    error = store.unwritten
                    if error is not None:
                        self.unwritten.append(f"{error.filename}: {error.strerror or error}")
                    store = None  # unwritable since check_options tried it: go on without
        self.reused.append(len(bundles) - len(todo))
        if self.cache is not None and not self.digests_unwritten:
            from bench.verify.digeststore import unwritten

            said = unwritten(self.cache / "provenance")  # by this process's verifications
            if said is not None:
                self.digests_unwritten.append(said)
        if self.cache_prune and self.cache is not None:
            self.pruned.append(self._prune(bundles, keys))
        return [found[bundle] for bundle in bundles]

    def _prune(self, bundles: list[Path], keys: dict[Path, str | None]) -> int:
        """Remove the cache's entries and digests that none of ``bundles`` uses now."""
        from bench.verify.digeststore import DigestStore, digest_key

        from .entrycache import EntryCache

        assert self.cache is not None
        entries = {key for key in keys.values() if key is not None}
        removed = EntryCache(self.cache).prune(entries)
        digests = {key for bundle in bundles if (key := digest_key(bundle)) is not None}
        return removed + DigestStore(self.cache / "provenance").prune(digests)

    def _digest_dir(self) -> Path | None:
        if self.digests is not None:
            return self.digests
        return None if self.cache is None else self.cache / "provenance"

    def _keys(self, bundles: list[Path], repo_url: str | None) -> dict[Path, str | None]:
        from bench.verify.dependencies import VerdictInputs, code_digest

        from .entrycache import EntryCache

        inputs = VerdictInputs(self.root)
        inputs.prime(bundles, threads=self.jobs)
        keys: dict[Path, str | None] = {}
        for bundle in bundles:
            if self.verify:
                base = inputs.key(bundle, self._options(bundle, None))
            else:
                own = inputs.digest(bundle)
                where = f"{bundle.parent.name}/{bundle.name}"
                base = None if own is None else EntryCache.key(code_digest(), where, own)
            keys[bundle] = (
                None
                if base is None
                else EntryCache.key(base, repr(repo_url), self.root.name, repr(self.verify))
            )
        return keys

    def _load_many(
        self, bundles: list[Path], repo_url: str | None
    ) -> Iterator[tuple[EntryInput, bytes]]:
        """Each bundle loaded, in order; the first refusal is raised as a serial read meets
        it."""
        from bench.verify.taskcache import TaskCache

        # Every digest first, once (into the cache's store, or the build's own scratch one):
        # each verification then reads the others' digests instead of their bundles. One
        # bundle alone (a rebuild after one new) needs none of its own.
        prime = self.verify and self._digest_dir() is not None and len(bundles) > 1
        if self.jobs <= 1 or len(bundles) <= 1:
            cache = TaskCache()
            if prime:
                for bundle in bundles:
                    self._digest_said(_prime_digest((self, bundle)))
            for bundle in bundles:
                yield _raise(self.load_one(bundle, repo_url, cache))
            return
        import concurrent.futures

        with concurrent.futures.ProcessPoolExecutor(
            max_workers=min(self.jobs, len(bundles)), initializer=_start_worker
        ) as pool:
            if prime:  # every digest once, spread over the pool, before any bundle needs them
                for said in pool.map(_prime_digest, [(self, bundle) for bundle in bundles]):
                    self._digest_said(said)
            work = [(self, bundle, repo_url) for bundle in bundles]
            try:  # in the bundles' order: the first error is the one a serial read meets
                for loaded in pool.map(_load_in_worker, work):
                    yield _raise(loaded)
            except BoardInputError:
                pool.shutdown(wait=True, cancel_futures=True)
                raise

    def _digest_said(self, said: str | None) -> None:
        """Keep the first reason a digest could not be kept in the cache (not in a build's
        private scratch store, which is gone at its end anyway)."""
        if said is not None and self.cache is not None and not self.digests_unwritten:
            self.digests_unwritten.append(said)

    def _options(self, bundle: Path, cache: TaskCache | None) -> VerifyOptions:
        from bench.verify import VerifyOptions
        from bench.verify.inputs import SIGNERS, TASKS

        # Unless given: the keys and task set of the repository holding the results.
        repo = self.root.parent
        return VerifyOptions(
            results_root=self.root,
            allowed_signers=self.allowed_signers or repo / SIGNERS,
            tasks=self.tasks_for(bundle, self.tasks or repo / TASKS),
            task_cache=cache,
            digest_store=None if (where := self._digest_dir()) is None else self._store(where),
        )

    def _store(self, where: Path) -> DigestStore:
        """The digest store at ``where``: sealed with the cache's key when it is the cache's
        own (a build's private scratch directory is written by no one else)."""
        from bench.verify.digeststore import DigestStore

        return DigestStore(where, self.cache_key if self.digests is None else None)

    def load_one(self, bundle: Path, repo_url: str | None, cache: TaskCache) -> _Loaded:
        """One bundle's entry and digest, or the ``BOARD_INPUT`` error that refuses it (as
        values, so that a worker process hands either back)."""
        from bench.reports.summary import summarize
        from bench.verify.failure import VerifyFailure
        from bench.verify.records import load_run
        from bench.verify.render import render_text
        from bench.verify.verifier import verify_and_load

        verified, note, detail = False, "not verified (--no-verify)", None
        run = None
        if self.verify:  # first: its cheap checks run before the records are read
            verdict, run = verify_and_load(bundle, self._options(bundle, cache))
            verified = verdict.valid
            note = "verified" if verified else f"verification failed: {verdict.code}"
            detail = None if verified else render_text(verdict)
            if verdict.code == "SUITE_MISMATCH":
                note += f" (give suite {verdict.suite}'s task set with --suite-tasks)"
            elif verdict.code == "TASKS_UNUSABLE":  # the build's input, not the bundle
                note += f" ({verdict.message}; give the task set with --tasks)"
        if run is None:  # not read by verify: read here, by the very reader verify uses
            try:
                run = load_run(bundle)
            except VerifyFailure as exc:
                return _Refusal(f"{exc.code}: {exc.message}", exc.path, exc.field)
        if run.config.seed < 0:  # verify refuses it too; here for --no-verify and a build
            # that shows unverified bundles: the headline's draws take no negative seed.
            return _Refusal(
                f"RECORD_INVALID: the seed is {run.config.seed}; a seed is a non-negative "
                "integer (the headline interval is drawn with it)",
                str(bundle / "config.json"),
                "seed",
            )
        view = _BundleRunDir(bundle, run.config, run.status, tuple(run.attempts))
        try:
            summary = summarize(view)
        except BenchError as exc:
            return _Refusal(exc.message, exc.path, exc.field)
        rel = f"{self.root.name}/{bundle.parent.name}/{bundle.name}"
        entry = from_summary(
            summary,
            source="bundle",
            source_path=rel,
            verified=verified,
            verified_note=note,
            repo_url=repo_url,
        )
        if detail is not None:
            entry = replace(entry, verify_detail=detail)
        return entry, _digest(run.config, run.status, run.attempts)


@dataclass(frozen=True)
class _Refusal:
    message: str
    path: str | None
    field: str | None


_Loaded = tuple[EntryInput, bytes] | _Refusal


def _raise(loaded: _Loaded) -> tuple[EntryInput, bytes]:
    if isinstance(loaded, _Refusal):
        raise BoardInputError(loaded.message, path=loaded.path, field=loaded.field)
    return loaded


_WORKER_CACHE: list[TaskCache] = []


def _start_worker() -> None:
    from bench.verify.taskcache import TaskCache

    _WORKER_CACHE[:] = [TaskCache()]


def _prime_digest(work: tuple[BundlesLoader, Path]) -> str | None:
    """Put ``bundle``'s provenance digest in the loader's store (a bundle that cannot be
    read has none: its own verification says why); why it could not be kept, if it could
    not (``DigestStore.prime``)."""
    loader, bundle = work
    where = loader._digest_dir()
    return None if where is None else loader._store(where).prime(bundle)


def _load_in_worker(work: tuple[BundlesLoader, Path, str | None]) -> _Loaded:
    loader, bundle, repo_url = work
    return loader.load_one(bundle, repo_url, _WORKER_CACHE[0])


def suites_named(results: Path) -> dict[str, set[str | None]]:
    """Every suite the bundles under ``results`` name other than bench-suite: name -> the
    versions named. config.json is read with verify's own reader; a bundle whose config cannot
    be read is left to verify to refuse."""
    from bench.core.suite import DEFAULT_SUITE_NAME
    from bench.verify.failure import VerifyFailure
    from bench.verify.records import read_config

    found: dict[str, set[str | None]] = {}
    for bundle in BundlesLoader(results).bundles():
        try:
            suite = read_config(bundle).task_set.suite
        except VerifyFailure:
            continue
        if suite.name != DEFAULT_SUITE_NAME:
            found.setdefault(suite.name, set()).add(suite.version)
    return found


def load_all(loaders: Iterable[Loader], repo_url: str | None) -> tuple[list[EntryInput], str]:
    """Every entry sorted by (run id, source path), and the SHA-256 of all inputs."""
    loaded = [item for loader in loaders for item in loader.load(repo_url)]
    loaded.sort(key=lambda item: (item[0].run_id, item[0].source_path, item[1]))
    h = hashlib.sha256()
    for _, digest in loaded:
        h.update(digest)
    return [entry for entry, _ in loaded], h.hexdigest()


__all__ = ["BundlesLoader", "Loader", "RunLoader", "RunsLoader", "load_all", "suites_named"]
