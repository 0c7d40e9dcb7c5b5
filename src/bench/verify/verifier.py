"""``verify_bundle``: every check, cheapest first, stopping at the first failure.

It reads the bundle, the results root (to find re-used run ids), ``allowed_signers`` and the
pinned task set, and writes nothing but a temp directory for replays.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from bench.core.clock import utc_now
from bench.signing import AllowedSigners, SignersError

from . import layout, manifest, records, scores
from .codes import Code, exit_code
from .failure import VerifyFailure

DEFAULT_REPOSITORY = "bench-suite"


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
    partial: bool = False

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
    seed: int = 0
    repository: str = DEFAULT_REPOSITORY
    max_error_rate: float = scores.MAX_ERROR_RATE
    now: datetime | None = None


@dataclass
class _Progress:
    checks: list[str] = field(default_factory=list)
    entrant: str | None = None
    run_id: str | None = None
    replayed: list[str] = field(default_factory=list)
    partial: bool = False


def _signers(path: Path) -> AllowedSigners:
    try:
        return AllowedSigners.read(path)
    except SignersError as exc:
        raise VerifyFailure(
            Code.SIGNERS_UNUSABLE, exc.message, path=exc.path or str(path), field=exc.field
        ) from None


def _run_checks(bundle: Path, options: VerifyOptions, progress: _Progress) -> None:
    done = progress.checks.append
    signers = _signers(options.allowed_signers)
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
    records.check_consistency(bundle, run, claimed)
    progress.partial = run.status.status == "partial"
    done("records")
    task_set = scores.pinned_tasks(options.tasks, options.corpus_root, run)
    scores.check_tasks(bundle, task_set, run, claimed)
    done("task set")
    scores.check_scores(bundle, task_set, run)
    done("scores")
    progress.replayed = scores.check_replay(
        bundle, task_set, run, options.replay_sample, options.seed
    )
    done("replay")
    scores.check_error_rate(bundle, run, options.max_error_rate)
    done("error rate")


def verify_bundle(bundle: Path, options: VerifyOptions | None = None) -> BundleVerdict:
    """Check ``bundle``; never raises for a bad bundle, returns the verdict instead."""
    opts = options or VerifyOptions()
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
        "partial": progress.partial,
    }
    if failure is None:
        return BundleVerdict(**common)  # type: ignore[arg-type]
    return BundleVerdict(
        code=failure.verify_code,
        path=failure.path,
        field=failure.field,
        message=failure.message,
        **common,  # type: ignore[arg-type]
    )


__all__ = ["DEFAULT_REPOSITORY", "BundleVerdict", "VerifyOptions", "verify_bundle"]
