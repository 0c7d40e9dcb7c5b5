"""The verifier's own inputs: found from the repository the bundle sits in, and all checked at
once, so one run of ``bench verify`` names every input that is missing.

The repository is the nearest directory above the bundle that holds a ``results/`` directory
containing it; its ``results/``, ``submissions/allowed_signers`` and ``tasks/`` are the defaults.
A bundle outside any such directory falls back to those paths under the current directory.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from bench.core.suite import DEFAULT_SUITE_NAME

from .codes import Code
from .failure import VerifyFailure

RESULTS = "results"
SIGNERS = Path("submissions") / "allowed_signers"
TASKS = "tasks"


def repository_of(bundle: Path) -> Path | None:
    """The directory holding the ``results/`` that ``bundle`` sits in, or None."""
    here = Path(os.path.abspath(bundle))
    for parent in here.parents:
        results = parent / RESULTS
        if results.is_dir() and here.is_relative_to(results):
            return parent
    return None


def default_inputs(
    bundle: Path,
    results_root: Path | None = None,
    allowed_signers: Path | None = None,
    tasks: Path | None = None,
) -> tuple[Path, Path, Path]:
    """(results root, allowed_signers, tasks): each one given, else the repository's."""
    base = repository_of(bundle) or Path()
    return (
        results_root if results_root is not None else base / RESULTS,
        allowed_signers if allowed_signers is not None else base / SIGNERS,
        tasks if tasks is not None else base / TASKS,
    )


def check_present(
    bundle: Path, results_root: Path, allowed_signers: Path | None, tasks: Path
) -> None:
    """Raise one unusable-input failure naming every missing input (``allowed_signers`` None:
    read from git at the base ref, not a file). Its code is the first missing input's."""
    missing: list[tuple[Code, str]] = []
    if not (bundle.is_dir() or bundle.is_symlink()):
        missing.append((Code.BUNDLE_NOT_FOUND, f"no bundle directory at {bundle}"))
    if not results_root.is_dir():
        missing.append(
            (Code.BUNDLE_NOT_FOUND, f"no results root at {results_root} (--results-root)")
        )
    if allowed_signers is not None and not allowed_signers.is_file():
        missing.append(
            (Code.SIGNERS_UNUSABLE, f"no allowed_signers at {allowed_signers} (--allowed-signers)")
        )
    if not tasks.exists():
        missing.append(
            (Code.TASKS_UNUSABLE, f"no task set at {tasks} (--tasks){_suite_hint(bundle)}")
        )
    if missing:
        noun = "input" if len(missing) == 1 else "inputs"
        message = f"{len(missing)} missing {noun}: " + "; ".join(text for _, text in missing)
        raise VerifyFailure(missing[0][0], message, path=str(bundle))


def _suite_hint(bundle: Path) -> str:
    """For a bundle of an imported suite, where its task set is named (``--suite-tasks``)."""
    from .records import read_config

    try:
        suite = read_config(bundle).task_set.suite.name
    except (VerifyFailure, OSError):
        return ""
    if suite == DEFAULT_SUITE_NAME:
        return ""
    return (
        f"; this bundle is a run of the suite {suite}: give its imported task set with "
        f"--suite-tasks DIR/tasks (docs/SUITES.md)"
    )


def tasks_for_suite(bundle: Path, default: Path, suite_tasks: Mapping[str, Path]) -> Path:
    """The task set a bundle is verified against: its suite's, when one was given (suite name
    -> task set: ``--suite-tasks``), else ``default``. The suite is read from config.json with
    the records' own reader; a config that cannot be read is the verifier's to refuse,
    against ``default``."""
    from .records import read_config

    if not suite_tasks:
        return default
    try:
        suite = read_config(bundle).task_set.suite.name
    except VerifyFailure:
        return default
    return suite_tasks.get(suite, default)


__all__ = [
    "RESULTS",
    "SIGNERS",
    "TASKS",
    "check_present",
    "default_inputs",
    "repository_of",
    "tasks_for_suite",
]
