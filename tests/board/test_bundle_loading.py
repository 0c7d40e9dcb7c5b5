"""Reading bundles for the board: verify's own read is shared, and a pool of processes gives
the serial board byte for byte; a bundle verify refuses is refused through either path."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
import rfc8785
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.board import BuildOptions, build
from bench.board.build import BuildResult
from bench.board.entries import EntryInput, from_summary
from bench.board.entrycache import EntryCache
from bench.board.errors import BoardInputError
from bench.board.load import BundlesLoader, _BundleRunDir, _digest
from bench.core.seal import MAGIC, SealKey, seal
from bench.reports.summary import summarize
from bench.runner import RunRequest, start_run
from bench.signing import public_line, signer_line
from bench.signing.bundle import build_bundle
from bench.testing.keys import write_private_key
from bench.verify import VerifyOptions, verify_bundle
from bench.verify.records import load_run
from bench.verify.render import render_text
from bench.verify.taskcache import TaskCache

REPO = Path(__file__).resolve().parents[2]
MINI = REPO / "tests" / "fixtures" / "mini"
# good and bob run the same deterministic agent: bob's later bundle is a duplicate
ENTRANTS = (
    ("mini-good", "good"),
    ("mini-crashes-on-refunds", "crashes_on_refunds"),
    ("bob", "bob"),
)


@dataclass(frozen=True)
class Results:
    root: Path
    results: Path
    signers: Path
    tasks: Path


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Results:
    root = tmp_path_factory.mktemp("bundles")
    shutil.copytree(MINI, root / "mini", ignore=shutil.ignore_patterns("__pycache__"))
    good = (root / "mini" / "targets" / "good.yaml").read_text(encoding="utf-8")
    (root / "mini" / "targets" / "bob.yaml").write_text(
        good.replace("entrant: mini-good", "entrant: bob"), encoding="utf-8"
    )
    keys = {name: Ed25519PrivateKey.generate() for name, _ in ENTRANTS}
    signers = root / "submissions" / "allowed_signers"
    signers.parent.mkdir()
    signers.write_text(
        "".join(signer_line(n, public_line(k.public_key())) + "\n" for n, k in keys.items())
    )
    for name, target in ENTRANTS:
        run, _ = start_run(
            RunRequest(
                tasks=root / "mini" / "tasks",
                target_file=root / "mini" / "targets" / f"{target}.yaml",
                runs_dir=root / "runs",
                split="public",
                concurrency=1,
            )
        )
        key = root / "keys" / name
        write_private_key(key, keys[name])
        build_bundle(
            run, entrant=name, key_file=key, out_root=root / "results", allowed_signers=signers
        )
    return Results(root, root / "results", signers, root / "mini" / "tasks")


@pytest.fixture
def results(made: Results, tmp_path: Path) -> Results:
    """A private copy, which a test may tamper with."""
    shutil.copytree(made.root, tmp_path / "w", ignore=shutil.ignore_patterns("runs"))
    root = tmp_path / "w"
    return Results(root, root / "results", root / made.signers.relative_to(made.root),
                   root / "mini" / "tasks")  # fmt: skip


@dataclass(frozen=True)
class FormerLoader:
    """The loader as it was: verify_bundle, then load_run again, then summarize."""

    loader: BundlesLoader

    def load(self, repo_url: str | None) -> list[tuple[EntryInput, bytes]]:
        out = []
        for bundle in self.loader.bundles():
            options = VerifyOptions(
                results_root=self.loader.root,
                allowed_signers=self.loader.allowed_signers or Path("x"),
                tasks=self.loader.tasks or Path("x"),
            )
            verdict = verify_bundle(bundle, options)
            note = "verified" if verdict.valid else f"verification failed: {verdict.code}"
            run = load_run(bundle)
            summary = summarize(_BundleRunDir(bundle, run.config, run.status, tuple(run.attempts)))
            rel = f"{self.loader.root.name}/{bundle.parent.name}/{bundle.name}"
            entry = from_summary(
                summary,
                source="bundle",
                source_path=rel,
                verified=verdict.valid,
                verified_note=note,
                repo_url=repo_url,
            )
            if not verdict.valid:  # why, for --strict's error (bench verify's own line)
                entry = replace(entry, verify_detail=render_text(verdict))
            out.append((entry, _digest(run.config, run.status, run.attempts)))
        return out


def _loader(results: Results, jobs: int) -> BundlesLoader:
    return BundlesLoader(
        results.results, allowed_signers=results.signers, tasks=results.tasks, jobs=jobs
    )


def _options(results: Results, out: Path, jobs: int) -> BuildOptions:
    return BuildOptions(
        runs=None,
        results=results.results,
        out=out,
        submissions=None,
        allowed_signers=results.signers,
        tasks=results.tasks,
        resamples=50,
        frontier_resamples=50,
        jobs=jobs,
    )


def _files(site: Path) -> Iterator[tuple[str, bytes]]:
    for path in sorted(site.rglob("*")):
        if path.is_file():
            yield str(path.relative_to(site)), path.read_bytes()


def test_the_shared_read_and_a_pool_give_the_former_entries(results: Results) -> None:
    former = FormerLoader(_loader(results, 1)).load(None)
    verified = {e.entrant: e.verified for e, _ in former}
    # bob's run and mini-good's are the same answers: provenance refuses the later of the two
    # (created_at, then run id: either may be, within one second)
    assert verified["mini-crashes-on-refunds"] and verified["bob"] != verified["mini-good"]
    assert _loader(results, 1).load(None) == former
    assert _loader(results, 2).load(None) == former


def test_a_pool_builds_the_serial_board_byte_for_byte(results: Results, tmp_path: Path) -> None:
    serial = build(_options(results, tmp_path / "serial", 1))
    pooled = build(_options(results, tmp_path / "pooled", 3))
    assert list(_files(tmp_path / "serial")) == list(_files(tmp_path / "pooled"))
    assert serial.warnings == pooled.warnings
    former = build(
        replace(_options(results, tmp_path / "former", 1), results=None,
                extra_loaders=(FormerLoader(_loader(results, 1)),))
    )  # fmt: skip
    # The former loader is given as an extra loader, which no row's transcript is read from:
    # the pages and their data are the same bytes but for the rows' transcript keys.
    viewer = [n for n, _ in _files(tmp_path / "serial") if n.startswith("transcript")]
    assert "transcript.html" in viewer and len(viewer) > 1
    key = re.compile(rb'"transcripts": "[0-9a-f]{24}"')

    def unkeyed(site: Path) -> list[tuple[str, bytes]]:
        return [(n, key.sub(b'"transcripts": null', b)) for n, b in _files(site) if n not in viewer]

    assert unkeyed(tmp_path / "former") == unkeyed(tmp_path / "serial")
    assert former.board.inputs_hash == serial.board.inputs_hash


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_cold_build_makes_each_digest_once_in_a_private_directory_it_removes(
    results: Results, jobs: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without ``--cache`` the bundles' provenance digests are made first, one per bundle,
    into a temporary directory of the build's own (every process reads the others' from there
    instead of reading those bundles in full), and the directory is gone afterwards; the
    verdicts are those of the former loader (the duplicate is still refused)."""
    import tempfile as real

    seen: list[list[str]] = []

    class Watched(real.TemporaryDirectory):  # type: ignore[type-arg]
        def cleanup(self) -> None:
            if Path(self.name).name.startswith("bench-board-"):  # the build's, not signing's
                seen.append(sorted(p.name for p in Path(self.name).rglob("*.tokens")))
            super().cleanup()

    monkeypatch.setattr("bench.board.load.tempfile.TemporaryDirectory", Watched)
    scratch = tmp_path / "temp"
    scratch.mkdir()
    monkeypatch.setattr(real, "tempdir", str(scratch))
    loaded = _loader(results, jobs).load(None)
    assert len(seen) == 1 and len(seen[0]) == len(_loader(results, jobs).bundles()) == 3
    assert not list(scratch.iterdir())  # nothing left behind
    assert loaded == FormerLoader(_loader(results, 1)).load(None)


def _good(results: Results) -> Path:
    (bundle,) = (results.results / "mini-good").iterdir()
    return bundle


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_tampered_bundle_is_still_refused(results: Results, jobs: int) -> None:
    attempts = _good(results) / "attempts.jsonl.gz"
    lines = gzip.decompress(attempts.read_bytes()).replace(b'"value":0.0', b'"value":1.0', 1)
    attempts.write_bytes(gzip.compress(lines))
    loaded = {e.entrant: e for e, _ in _loader(results, jobs).load(None)}
    assert not loaded["mini-good"].verified
    assert loaded["mini-good"].verified_note == "verification failed: FILE_HASH_MISMATCH"
    assert loaded["mini-crashes-on-refunds"].verified


def test_a_missing_task_set_is_named_with_the_option_that_gives_it(
    results: Results, tmp_path: Path
) -> None:
    """A build without the task set said only "verification failed: TASKS_UNUSABLE" for each
    bundle; it now names the path it looked at and the option."""
    loader = BundlesLoader(
        results.results, allowed_signers=results.signers, tasks=tmp_path / "no-tasks", jobs=1
    )
    notes = {e.verified_note for e, _ in loader.load(None)}
    [note] = notes
    assert note.startswith("verification failed: TASKS_UNUSABLE (")
    assert str(tmp_path / "no-tasks") in note and note.endswith("give the task set with --tasks)")


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_unreadable_bundle_is_a_typed_error_from_either_path(
    results: Results, jobs: int
) -> None:
    (_good(results) / "attempts.jsonl.gz").write_bytes(b"not gzip at all")
    with pytest.raises(BoardInputError) as raised:
        _loader(results, jobs).load(None)
    assert "RECORD_INVALID: not gzip" in raised.value.message
    assert raised.value.path == str(_good(results) / "attempts.jsonl.gz")


# --- bench board build --cache (entrycache.py, bench.verify.dependencies) -------------------


def _cached(results: Results, out: Path, cache: Path, jobs: int = 1) -> BuildOptions:
    return replace(_options(results, out, jobs), cache=cache)


def test_a_warm_cache_builds_the_same_board_without_verifying(
    results: Results, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = build(_options(results, tmp_path / "plain", 1))
    cold = build(_cached(results, tmp_path / "cold", tmp_path / "cache", jobs=2))
    assert cold.reused == 0
    assert list(_files(tmp_path / "cold")) == list(_files(tmp_path / "plain"))
    assert plain.reused is None

    import bench.verify.verifier

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("a warm cache verified a bundle again")

    # Only the refused duplicate (bob's or mini-good's) is verified again: refusals are not kept.
    seen: list[Path] = []
    real = bench.verify.verifier.verify_and_load

    def spy(bundle: Path, options: VerifyOptions):  # type: ignore[no-untyped-def]
        seen.append(bundle)
        return real(bundle, options)

    monkeypatch.setattr(bench.verify.verifier, "verify_and_load", spy)
    # The duplicate's provenance check takes the others' digests from the cache's store
    # (written by the pool's workers), not from reading their attempts again.
    from bench.verify import digeststore

    assert list((tmp_path / "cache" / "provenance").rglob("*.tokens"))
    digeststore._MEMO.clear()

    def unread(bundle: Path) -> None:
        raise AssertionError(f"{bundle}: its digest was not taken from the store")

    monkeypatch.setattr(digeststore, "read_other", unread)
    warm = build(_cached(results, tmp_path / "warm", tmp_path / "cache"))
    assert warm.reused == 2 and len(seen) == 1
    assert list(_files(tmp_path / "warm")) == list(_files(tmp_path / "plain"))
    assert warm.warnings == plain.warnings


def test_a_bundle_changed_after_it_was_cached_is_verified_again(
    results: Results, tmp_path: Path
) -> None:
    build(_cached(results, tmp_path / "cold", tmp_path / "cache"))
    attempts = results.results / "mini-crashes-on-refunds"
    (bundle,) = attempts.iterdir()
    data = bundle / "attempts.jsonl.gz"
    lines = gzip.decompress(data.read_bytes()).replace(b'"value":0.0', b'"value":1.0', 1)
    data.write_bytes(gzip.compress(lines))
    warm = build(_cached(results, tmp_path / "warm", tmp_path / "cache"))
    (row,) = [
        e for c in warm.board.cohorts for e in c.entries if e.entrant == "mini-crashes-on-refunds"
    ]
    assert not row.verified  # the recompressed file: FILE_SIZE_MISMATCH or FILE_HASH_MISMATCH
    assert any(
        "mini-crashes-on-refunds" in w and "verification failed: FILE_" in w for w in warm.warnings
    )


def test_new_keys_or_tasks_miss_the_cache(results: Results, tmp_path: Path) -> None:
    build(_cached(results, tmp_path / "cold", tmp_path / "cache"))
    # mini-good's key removed: its bundle no longer verifies, whatever the cache holds
    kept = [
        line
        for line in results.signers.read_text().splitlines(keepends=True)
        if not line.startswith("mini-crashes-on-refunds ")
    ]
    results.signers.write_text("".join(kept))
    warm = build(_cached(results, tmp_path / "warm", tmp_path / "cache"))
    assert warm.reused is not None and warm.reused <= 1
    assert any("mini-crashes-on-refunds" in w for w in warm.warnings)


def test_a_corrupt_cache_is_a_miss_and_an_unwritable_one_a_typed_error(
    results: Results, tmp_path: Path
) -> None:
    from bench.board.errors import BoardUsageError

    build(_cached(results, tmp_path / "cold", tmp_path / "cache"))
    written = [p for p in (tmp_path / "cache").rglob("*.json")]
    assert len(written) == 2
    written[0].write_bytes(b'{"format": "bench-board-entry/1", "entry": {"entrant": 1}}')
    written[1].write_bytes(b"\xff not json")
    again = build(_cached(results, tmp_path / "again", tmp_path / "cache"))
    assert again.reused == 0
    assert list(_files(tmp_path / "again")) == list(_files(tmp_path / "cold"))
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(BoardUsageError) as raised:
        build(_cached(results, tmp_path / "never", blocker))
    assert raised.value.code == "BOARD_CACHE"
    assert not (tmp_path / "never").exists()


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_digest_the_cache_cannot_keep_is_said_once_and_the_build_goes_on(
    results: Results, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    """A provenance digest that a full disk refused was dropped without a word: the build
    said nothing, and the next one read every bundle again (helper F12)."""
    import errno

    from bench.verify import digeststore

    plain = build(_options(results, tmp_path / "plain", 1))

    def full(directory: Path, *_: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    digeststore._MEMO.clear()
    monkeypatch.setattr(digeststore, "write_keyed", full)  # the entries are kept; digests not
    cache = tmp_path / "cache"
    done = build(_cached(results, tmp_path / "site", cache, jobs=jobs))
    said = [w for w in done.warnings if "digest" in w]
    assert said == [
        f"--cache: a provenance digest not kept ({cache / 'provenance'}: "
        f"{os.strerror(errno.ENOSPC)}): the board is the same, the next build reads those "
        "bundles again"
    ], done.warnings
    assert [w for w in done.warnings if w not in said] == list(plain.warnings)
    assert list(_files(tmp_path / "site")) == list(_files(tmp_path / "plain"))
    monkeypatch.undo()
    digeststore._MEMO.clear()
    again = build(_cached(results, tmp_path / "again", cache, jobs=jobs))  # room again
    assert list(again.warnings) == list(
        plain.warnings
    )  # not the earlier build's failure said again


def test_the_key_follows_what_the_verdict_depends_on(results: Results) -> None:
    from bench.verify import provenance
    from bench.verify.dependencies import VerdictInputs, tree_digest

    bundles = _loader(results, 1).bundles()
    options = {
        b: VerifyOptions(results_root=results.results, allowed_signers=results.signers,
                         tasks=results.tasks)
        for b in bundles
    }  # fmt: skip

    def keys() -> dict[Path, str | None]:
        inputs = VerdictInputs(results.results)
        return {b: inputs.key(b, options[b]) for b in bundles}

    before = keys()
    assert None not in before.values() and len(set(before.values())) == 3
    assert keys() == before  # nothing changed: the same keys
    created = {b: provenance.created_of(b) for b in bundles}
    first = min(bundles, key=lambda b: (created[b], b.name, str(b)))
    last = max(bundles, key=lambda b: (created[b], b.name, str(b)))
    assert all(provenance.earlier(first, b, {}, created) for b in bundles if b != first)
    # a byte of the last bundle: its key changes, and no earlier bundle's
    with (last / "config.json").open("ab") as handle:
        handle.write(b" ")
    after = keys()
    assert after[last] != before[last]
    assert all(after[b] == before[b] for b in bundles if b != last)
    # a byte of the first: every later bundle's key changes (provenance compares with it)
    with (first / "config.json").open("ab") as handle:
        handle.write(b" ")
    later = keys()
    assert all(later[b] != after[b] for b in bundles)
    # another directory with the same run id (RUN_ID_REUSED)
    (results.results / "someone" / first.name).mkdir(parents=True)
    (results.results / "someone" / first.name / "manifest.json").write_text("{}")
    assert keys()[first] is None or keys()[first] != later[first]
    # the task set and its corpora
    before_tasks = keys()
    with next(p for p in results.tasks.rglob("*") if p.is_file()).open("ab") as handle:
        handle.write(b"\n")
    assert all(keys()[b] != before_tasks[b] for b in bundles)
    # a symlink anywhere in a bundle: no key, never cached
    (last / "link").symlink_to(last / "config.json")
    assert tree_digest(last) is None and keys()[last] is None


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_digests_hashed_in_threads_are_the_serial_ones(results: Results, threads: int) -> None:
    from bench.verify.dependencies import VerdictInputs, tree_digest

    bundles = _loader(results, 1).bundles()
    (bundles[-1] / "link").symlink_to(bundles[-1] / "config.json")  # no digest: None
    missing = results.results / "nobody" / "nothing"
    paths = [*bundles, missing, bundles[0], results.tasks]
    inputs = VerdictInputs(results.results)
    inputs.prime(paths, threads=threads)
    assert inputs._trees == {Path(os.path.abspath(p)): tree_digest(p) for p in paths}
    assert inputs.digest(bundles[-1]) is None and inputs.digest(bundles[0]) is not None
    options = VerifyOptions(
        results_root=results.results, allowed_signers=results.signers, tasks=results.tasks
    )
    serial = VerdictInputs(results.results)
    assert [inputs.key(b, options) for b in bundles] == [serial.key(b, options) for b in bundles]


# --- a sealed cache (--cache-key-env, bench.core.seal) and --cache-prune --------------------

KEY = SealKey(b"k" * 32)
OTHER_KEY = SealKey(b"o" * 32)


def _sealed(results: Results, out: Path, cache: Path, key: SealKey | None) -> BuildOptions:
    return replace(_cached(results, out, cache), cache_key=key)


def test_a_sealed_cache_is_reused_only_under_its_own_key(results: Results, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cold = build(_sealed(results, tmp_path / "cold", cache, KEY))
    assert cold.reused == 0
    files = [p for p in cache.rglob("*") if p.is_file() and p.suffix in {".json", ".tokens"}]
    assert files and all(p.read_bytes().startswith(MAGIC) for p in files)
    warm = build(_sealed(results, tmp_path / "warm", cache, KEY))
    assert warm.reused == 2
    assert list(_files(tmp_path / "warm")) == list(_files(tmp_path / "cold"))
    for key in (OTHER_KEY, None):  # another key, or none: nothing is taken from it
        other = build(_sealed(results, tmp_path / f"other-{key}", cache, key))
        assert other.reused == 0
        assert list(_files(tmp_path / f"other-{key}")) == list(_files(tmp_path / "cold"))


def _forged_cache(results: Results, tmp_path: Path) -> tuple[Path, Path, str]:
    """The attack a sealed cache stops: mini-crashes-on-refunds' bundle tampered with so it
    no longer verifies, and an entry planted under the very key a build computes for it,
    saying it verified. Returns (cache, tampered bundle, its key)."""

    cache = tmp_path / "cache"
    build(_cached(results, tmp_path / "cold", cache))
    (bundle,) = (results.results / "mini-crashes-on-refunds").iterdir()
    data = bundle / "attempts.jsonl.gz"
    lines = gzip.decompress(data.read_bytes()).replace(b'"value":0.0', b'"value":1.0', 1)
    data.write_bytes(gzip.compress(lines))
    loader = replace(_loader(results, 1), cache=cache)
    keys = loader._keys(loader.bundles(), None)
    entry, digest = loader.load_one(bundle, None, TaskCache())  # type: ignore[misc]
    assert not entry.verified
    forged = replace(entry, verified=True, verified_note="verified", verify_detail=None)
    key = keys[bundle]
    assert key is not None
    EntryCache(cache).put(key, forged, digest)
    return cache, bundle, key


def _row(result: BuildResult, entrant: str) -> Any:
    (row,) = [e for c in result.board.cohorts for e in c.entries if e.entrant == entrant]
    return row


def test_a_planted_entry_fools_a_trusted_cache_but_not_a_sealed_one(
    results: Results, tmp_path: Path
) -> None:
    cache, bundle, key = _forged_cache(results, tmp_path)
    # Unsealed, the planted entry is believed; the copy of the attempts for the transcript
    # viewer then finds bytes that are not the manifest's, and the build stops.
    with pytest.raises(BoardInputError) as caught:
        build(_cached(results, tmp_path / "trusted", cache))
    assert caught.value.code == "BOARD_INPUT" and str(caught.value.path).endswith(".jsonl.gz")
    # With the manifest rewritten to match (its signature no longer does), the attack works.
    manifest = json.loads((bundle / "manifest.json").read_bytes())
    data = (bundle / "attempts.jsonl.gz").read_bytes()
    for listed in manifest["files"]:
        if listed["path"] == "attempts.jsonl.gz":
            listed.update(sha256=hashlib.sha256(data).hexdigest(), size=len(data))
    (bundle / "manifest.json").write_bytes(rfc8785.dumps(manifest))
    planted = EntryCache(cache).get(key)
    assert planted is not None
    loader = replace(_loader(results, 1), cache=cache)
    EntryCache(cache).put(loader._keys(loader.bundles(), None)[bundle], *planted)
    trusted = build(_cached(results, tmp_path / "trusted", cache))
    assert _row(trusted, "mini-crashes-on-refunds").verified
    sealed = build(_sealed(results, tmp_path / "sealed", cache, KEY))
    assert not _row(sealed, "mini-crashes-on-refunds").verified
    # A sealed file's tag names its key: the planted body under a good tag of another key,
    # or a sealed entry moved to this key, is refused as well.
    path = cache / key[:2] / f"{key}.json"
    body = path.read_bytes()
    for name in (f"entry:{'0' * 64}", f"entry:{key}x"):
        path.write_bytes(seal(KEY, name, body))
        again = build(_sealed(results, tmp_path / f"again-{name[-1]}", cache, KEY))
        assert not _row(again, "mini-crashes-on-refunds").verified


def test_a_planted_digest_is_a_miss_in_a_sealed_store(results: Results, tmp_path: Path) -> None:
    from bench.verify import digeststore
    from bench.verify.digeststore import DigestStore, _encode, digest_key
    from bench.verify.provenance import Digest

    (bundle,) = (results.results / "mini-good").iterdir()
    store = tmp_path / "store"
    real = DigestStore(store, KEY).digest(bundle)
    assert real is not None and real.tasks
    key = digest_key(bundle)
    assert key is not None
    # a digest that rules every pair out (no tasks): a duplicate would hide behind it
    empty = Digest(frozenset(), frozenset(), frozenset(), frozenset())
    (store / key[:2] / f"{key}.tokens").write_bytes(_encode(empty))
    digeststore._MEMO.clear()
    assert DigestStore(store).digest(bundle) == empty  # trusted as it is: fooled
    sealed = DigestStore(store, KEY)
    assert sealed.digest(bundle) == real and sealed.misses == 1


def test_prune_removes_only_stale_files_of_the_cache_layout(
    results: Results, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    build(_sealed(results, tmp_path / "cold", cache, KEY))
    kept = sorted(p for p in cache.rglob("*") if p.is_file())
    stale = [
        cache / "ab" / f"ab{'1' * 62}.json",
        cache / "provenance" / "cd" / f"cd{'2' * 62}.tokens",
    ]
    foreign = [cache / "notes.txt", cache / "ab" / "README", cache / "ef" / f"ab{'3' * 62}.json"]
    for path in [*stale, *foreign]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    pruned = build(replace(_sealed(results, tmp_path / "pruned", cache, KEY), cache_prune=True))
    assert pruned.pruned == 2 and pruned.reused == 2
    assert not any(p.exists() for p in stale)
    assert all(p.exists() for p in foreign)
    now = sorted(p for p in cache.rglob("*") if p.is_file())
    assert now == sorted([*kept, *foreign])
    assert not (cache / "provenance" / "cd").exists()
    assert list(_files(tmp_path / "pruned")) == list(_files(tmp_path / "cold"))


def test_the_cli_reads_the_seal_key_from_the_environment_and_never_prints_it(
    results: Results, tmp_path: Path
) -> None:
    from click.testing import CliRunner

    from bench.board.errors import BoardUsageError
    from bench.cli.board_cmd import board

    args = [
        "build", "--no-runs", "--results", str(results.results), "--out", str(tmp_path / "site"),
        "--allowed-signers", str(results.signers), "--tasks", str(results.tasks),
        "--submissions", str(tmp_path / "none"), "--resamples", "50", "--jobs", "1",
    ]  # fmt: skip
    secret = "s3cret-" + "x" * 30
    cache = ["--cache", str(tmp_path / "cache")]
    sealed = [*cache, "--cache-key-env", "BENCH_TEST_SEAL"]
    runner = CliRunner()
    cases = [
        (sealed, {}, "BOARD_CACHE_KEY"),
        (sealed, {"BENCH_TEST_SEAL": "short"}, "BOARD_CACHE_KEY"),
        (["--cache-key-env", "BENCH_TEST_SEAL"], {"BENCH_TEST_SEAL": secret}, "BOARD_CACHE"),
        (["--cache-prune"], {}, "BOARD_CACHE"),
    ]  # fmt: skip
    for extra, env, code in cases:
        result = runner.invoke(board, [*args, *extra], env={"BENCH_TEST_SEAL": None, **env})
        assert isinstance(result.exception, BoardUsageError), result.output
        assert result.exception.code == code and result.exception.exit_code == 2
        assert "short" not in str(result.exception) and secret not in str(result.exception)
    assert not (tmp_path / "site").exists()
    extra = [*sealed, "--cache-prune"]
    for reused in (0, 2):
        result = runner.invoke(board, [*args, *extra], env={"BENCH_TEST_SEAL": secret})
        assert result.exit_code == 0, result.output
        assert secret not in result.output
        line = f"cache: {reused} bundle(s) reused from {tmp_path / 'cache'}, sealed; 0 stale"
        assert line in result.output


def test_a_sealed_cache_that_is_a_link_is_refused_before_anything_is_read(
    results: Results, tmp_path: Path
) -> None:
    from bench.board.errors import BoardUsageError

    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real", target_is_directory=True)
    with pytest.raises(BoardUsageError) as raised:
        build(_sealed(results, tmp_path / "site", tmp_path / "link", KEY))
    assert raised.value.code == "BOARD_CACHE" and raised.value.field == "--cache"
    assert not (tmp_path / "site").exists() and not any((tmp_path / "real").iterdir())
