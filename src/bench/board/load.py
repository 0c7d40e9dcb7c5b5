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

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from bench.core.canonical import canonical_json
from bench.core.errors import BenchError
from bench.records.run import AttemptRecord, RunConfig, RunStatus
from bench.records.store import RunDir, RunStore

from .entries import EntryInput, from_summary
from .errors import BoardInputError


class Loader(Protocol):
    def load(self, repo_url: str | None) -> list[tuple[EntryInput, bytes]]:
        """Every entry and a digest of the files it was read from."""
        ...


def _digest(config: RunConfig, status: RunStatus, attempts: Iterable[AttemptRecord]) -> bytes:
    h = hashlib.sha256()
    for model in (config, status, *attempts):
        h.update(canonical_json(model.model_dump(mode="json")))
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
        it. The suite is read from config.json with verify's own reader; a config that
        cannot be read is verify's to refuse, against the default task set."""
        from bench.verify.failure import VerifyFailure
        from bench.verify.records import read_config

        if not self.suite_tasks:
            return default
        try:
            suite = read_config(bundle).task_set.suite.name
        except VerifyFailure:
            return default
        return self.suite_tasks.get(suite, default)

    def bundles(self) -> list[Path]:
        if not self.root.is_dir():
            return []
        return sorted(p.parent for p in self.root.glob("*/*/manifest.json") if p.parent.is_dir())

    def load(self, repo_url: str | None) -> list[tuple[EntryInput, bytes]]:
        from bench.reports.summary import summarize
        from bench.verify import VerifyOptions, verify_bundle
        from bench.verify.failure import VerifyFailure
        from bench.verify.inputs import SIGNERS, TASKS
        from bench.verify.records import load_run

        out = []
        for bundle in self.bundles():
            verified, note = False, "not verified (--no-verify)"
            if self.verify:  # first: its cheap checks run before the records are read
                # Unless given: the keys and task set of the repository holding the results.
                repo = self.root.parent
                options = VerifyOptions(
                    results_root=self.root,
                    allowed_signers=self.allowed_signers or repo / SIGNERS,
                    tasks=self.tasks_for(bundle, self.tasks or repo / TASKS),
                )
                verdict = verify_bundle(bundle, options)
                verified = verdict.valid
                note = "verified" if verified else f"verification failed: {verdict.code}"
                if verdict.code == "SUITE_MISMATCH":
                    note += f" (give suite {verdict.suite}'s task set with --suite-tasks)"
            try:  # the very reader verify uses: its limits and text rules hold here too
                run = load_run(bundle)
            except VerifyFailure as exc:
                raise BoardInputError(
                    f"{exc.code}: {exc.message}", path=exc.path, field=exc.field
                ) from None
            view = _BundleRunDir(bundle, run.config, run.status, tuple(run.attempts))
            try:
                summary = summarize(view)
            except BenchError as exc:
                raise BoardInputError(exc.message, path=exc.path, field=exc.field) from None
            rel = f"{self.root.name}/{bundle.parent.name}/{bundle.name}"
            entry = from_summary(
                summary,
                source="bundle",
                source_path=rel,
                verified=verified,
                verified_note=note,
                repo_url=repo_url,
            )
            out.append((entry, _digest(run.config, run.status, run.attempts)))
        return out


def load_all(loaders: Iterable[Loader], repo_url: str | None) -> tuple[list[EntryInput], str]:
    """Every entry sorted by (run id, source path), and the SHA-256 of all inputs."""
    loaded = [item for loader in loaders for item in loader.load(repo_url)]
    loaded.sort(key=lambda item: (item[0].run_id, item[0].source_path, item[1]))
    h = hashlib.sha256()
    for _, digest in loaded:
        h.update(digest)
    return [entry for entry, _ in loaded], h.hexdigest()


__all__ = ["BundlesLoader", "Loader", "RunLoader", "RunsLoader", "load_all"]
