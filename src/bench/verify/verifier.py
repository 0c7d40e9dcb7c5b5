"""``verify_bundle``: every check, cheapest first, stopping at the first failure.

It reads the bundle, the results root (to find re-used run ids), ``allowed_signers`` and the
pinned task set, and writes nothing but a temp directory for replays.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from bench.core.clock import utc_now
from bench.signing import AllowedSigners, SignersError
from bench.signing.allowed_signers import MAX_SIGNERS_BYTES, decode_signers

from . import (
    binding,
    display,
    inputs,
    judgeclaim,
    layout,
    lookalike,
    manifest,
    privacy,
    provenance,
    records,
    sample,
    scores,
    server,
    targetfields,
    timing,
    wire,
)
from .codes import Code, exit_code
from .digeststore import DigestStore
from .failure import VerifyFailure
from .records import BundleRun
from .taskcache import TaskCache

DEFAULT_REPOSITORY = "bench-suite"
SIGNERS_IN_REPO = "submissions/allowed_signers"
GIT_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class BundleVerdict:
    """The answer: valid, or the one code, file and field that failed."""

    bundle: str
    code: Code | None = None
    path: str | None = None
    field: str | None = None
    message: str = "valid"
    entrant: str | None = None
    run_id: str | None = None
    checks: tuple[str, ...] = ()
    replayed: tuple[str, ...] = ()
    replay_applies: bool = True
    """False for an agent's bundle: its turns are all re-driven by the binding check instead."""
    partial: bool = False
    sample_basis: str | None = None
    suite: str | None = None
    """The suite the bundle's run names (``bfcl-v4 2026.3.23``), once its records were read."""

    @property
    def valid(self) -> bool:
        return self.code is None

    @property
    def exit_code(self) -> int:
        return exit_code(self.code)


@dataclass(frozen=True)
class VerifyOptions:
    results_root: Path = Path("results")
    allowed_signers: Path = Path("submissions/allowed_signers")
    tasks: Path = Path("tasks")
    corpus_root: Path | None = None
    replay_sample: int = 3
    # None: derived from the base commit (or the commit that added the bundle) and the
    # manifest's hash, so a submitter can neither predict nor choose it (sample.py).
    seed: int | None = None
    repository: str = DEFAULT_REPOSITORY
    max_harness_fault_share: float = scores.MAX_HARNESS_FAULT_SHARE
    # Look for duplicates of the bundle among the others under the results root (provenance).
    check_duplicates: bool = True
    now: datetime | None = None
    # When set, keys come from ``git cat-file blob <base_ref>:submissions/allowed_signers``
    # (the base branch), run in ``git_dir`` (None: the current directory), not from the
    # working tree; ``allowed_signers`` is then ignored.
    base_ref: str | None = None
    git_dir: Path | None = None
    # What is derived from the pinned task set (loaded, hashed, fingerprinted, its worlds),
    # shared by every bundle verified with these options (a board build); None: derived
    # afresh for each bundle (taskcache.py). It never changes a verdict.
    task_cache: TaskCache | None = field(default=None, compare=False)
    # Where provenance takes other bundles' digests from between processes (a board's
    # ``--cache``, digeststore.py); None: each is read. It never changes a verdict.
    digest_store: DigestStore | None = field(default=None, compare=False)


@dataclass
class _Progress:
    checks: list[str] = field(default_factory=list)
    entrant: str | None = None
    run_id: str | None = None
    replayed: list[str] = field(default_factory=list)
    replay_applies: bool = True
    partial: bool = False
    sample_basis: str | None = None
    suite: str | None = None
    run: BundleRun | None = None


def _signers_at_ref(ref: str, git_dir: Path | None) -> AllowedSigners:
    """``submissions/allowed_signers`` as committed at ``ref``; never the working tree."""
    where = f"{ref}:{SIGNERS_IN_REPO}"
    if not ref or ref.startswith("-") or any(ch.isspace() or ch in ":\0" for ch in ref):
        raise SignersError(f"--base-ref '{ref}' is not a git revision", path=where)
    try:
        done = subprocess.run(
            ["git", "cat-file", "blob", where],
            cwd=git_dir,
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SignersError(f"cannot run git: {exc}", path=where) from None
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = detail[-1] if detail else f"git exited {done.returncode}"
        raise SignersError(
            f"no {SIGNERS_IN_REPO} at '{ref}' (a bad ref, or the file is not there): {reason}",
            path=where,
        )
    if len(done.stdout) > MAX_SIGNERS_BYTES:
        raise SignersError(f"larger than {MAX_SIGNERS_BYTES} bytes", path=where)
    return AllowedSigners.parse(decode_signers(done.stdout, where), where)


def _signers(options: VerifyOptions) -> AllowedSigners:
    path = options.allowed_signers
    try:
        if options.base_ref is not None:
            return _signers_at_ref(options.base_ref, options.git_dir)
        return AllowedSigners.read(path)
    except SignersError as exc:
        raise VerifyFailure(
            Code.SIGNERS_UNUSABLE, exc.message, path=exc.path or str(path), field=exc.field
        ) from None


def _run_checks(bundle: Path, options: VerifyOptions, progress: _Progress) -> None:
    done = progress.checks.append
    signers_file = None if options.base_ref is not None else options.allowed_signers
    inputs.check_present(bundle, options.results_root, signers_file, options.tasks)
    signers = _signers(options)
    placement = layout.place(bundle, options.results_root)
    progress.entrant, progress.run_id = placement.entrant, placement.run_id
    sizes = layout.scan(bundle)
    done("layout")
    raw, claimed = manifest.read_manifest(bundle, sizes)
    done("canonical manifest")
    manifest.check_binding(claimed, placement, options.repository, str(bundle / "manifest.json"))
    manifest.check_signature(bundle, raw, signers, placement, sizes)
    manifest.check_time(claimed, options.now or utc_now(), str(bundle / "manifest.json"))
    done("signature")
    manifest.check_unique(bundle, placement)
    done("unique run id")
    manifest.check_files(bundle, claimed, sizes)
    done("file hashes")
    run = records.load_run(bundle)
    manifest.check_run_time(bundle, run.config.created_at, claimed)
    progress.run = run
    progress.suite = run.config.task_set.suite_label()
    judgeclaim.check_judge_claim(bundle, run)  # before anything hashes the config
    records.check_consistency(bundle, run, claimed)
    timing.check_times(bundle, run, claimed)
    progress.partial = run.status.status == "partial"
    display.check_display_names(bundle, run)
    lookalike.check_display_name(bundle, run)
    privacy.check_privacy(bundle, run)
    records.check_target_copies(bundle, run.config)
    targetfields.check_target_fields(bundle, run.config)
    server.check_server(bundle, run)
    scores.check_harness_faults(bundle, run, options.max_harness_fault_share)
    done("records")
    cache = options.task_cache or TaskCache()
    task_set = scores.pinned_tasks(options.tasks, options.corpus_root, run, cache)
    task_set = scores.check_tasks(bundle, task_set, run, claimed, cache)
    judgeclaim.check_judged_tasks(bundle, task_set, run)
    done("task set")
    scores.check_scores(bundle, task_set, run, cache)
    done("scores")
    binding.check_recording(bundle, run)
    wire.check_wire(bundle, run)
    binding.check_binding(bundle, task_set, run, cache)
    binding.check_reference(bundle, run)
    done("every attempt bound to its recording")
    seed, progress.sample_basis = sample.resolve_seed(bundle, raw, options.seed, options)
    progress.replay_applies = scores.replay_applies(run)
    progress.replayed = scores.check_replay(
        bundle, task_set, run, options.replay_sample, seed, cache
    )
    done("replay")
    if options.check_duplicates:
        store = options.digest_store
        provenance.check_provenance(
            bundle, placement, run, store.digest if store is not None else None
        )
        done("provenance")
    scores.check_error_rate(bundle, run)
    done("error rate")


def verify_bundle(bundle: Path, options: VerifyOptions | None = None) -> BundleVerdict:
    """Check ``bundle``; never raises for a bad bundle, returns the verdict instead. Without
    ``options``, the inputs are those of the repository the bundle sits in (``inputs``)."""
    return verify_and_load(bundle, options)[0]


def verify_and_load(
    bundle: Path, options: VerifyOptions | None = None
) -> tuple[BundleVerdict, BundleRun | None]:
    """:func:`verify_bundle`, and the run it read with ``records.load_run`` (None when the
    checks stopped before the records were read, or at them): the board shows the very
    records verify checked, without reading the bundle twice."""
    if options is None:
        root, signers, tasks = inputs.default_inputs(bundle)
        options = VerifyOptions(results_root=root, allowed_signers=signers, tasks=tasks)
    opts = options
    progress = _Progress()
    failure: VerifyFailure | None = None
    try:
        _run_checks(bundle, opts, progress)
    except VerifyFailure as exc:
        failure = exc
    common = {
        "bundle": str(bundle),
        "entrant": progress.entrant,
        "run_id": progress.run_id,
        "checks": tuple(progress.checks),
        "replayed": tuple(progress.replayed),
        "replay_applies": progress.replay_applies,
        "partial": progress.partial,
        "sample_basis": progress.sample_basis,
        "suite": progress.suite,
    }
    if failure is None:
        return BundleVerdict(**common), progress.run  # type: ignore[arg-type]
    verdict = BundleVerdict(
        code=failure.verify_code,
        path=failure.path,
        field=failure.field,
        message=failure.message,
        **common,  # type: ignore[arg-type]
    )
    return verdict, progress.run


__all__ = [
    "DEFAULT_REPOSITORY",
    "SIGNERS_IN_REPO",
    "BundleVerdict",
    "VerifyOptions",
    "verify_and_load",
    "verify_bundle",
]
