"""The floor check of ``bench task lint``: run no-model entrants over a task set, in process, and
name every task one of them passes (a task an empty agent passes measures nothing).

Each entrant is a scripted callable (``module:function``, e.g. ``bench.baselines:echo``); the
caller passes them in, so this module does not depend on where they live. Every entrant runs
once per task through :func:`start_run` — the real runner, world and scorers — from a temporary
target file ``kind: scripted`` into a temporary runs directory that is removed afterwards.

A refuse/help pair is scored as a pair (docs/SCORING.md, "Pairs"), so a side counts as passed
only when the other side in the same run passed too: refusing everything passes no pair.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bench.core.errors import InputError
from bench.core.pairs import partner

from .session import RunRequest, start_run


@dataclass(frozen=True)
class FloorPass:
    """``entrant`` passed ``task_id`` (its score was a pass, its pair partner's too)."""

    entrant: str
    task_id: str


def _target_file(directory: Path, name: str, callable_ref: str) -> Path:
    path = directory / f"{name}.yaml"
    path.write_text(
        "format_version: 1\n"
        "kind: scripted\n"
        f"entrant: baseline-{name}\n"
        f"display_name: baseline {name}\n"
        f"model: baseline-{name}\n"
        f"callable: {callable_ref}\n",
        encoding="utf-8",
    )
    return path


def floor_passes(
    tasks: Path, entrants: Mapping[str, str], corpus_root: Path | None = None
) -> list[FloorPass]:
    """Every (entrant, task) where the entrant passes the task, entrants in the given order and
    tasks by id. ``entrants`` maps a name to a ``module:function`` scripted callable."""
    found: list[FloorPass] = []
    with tempfile.TemporaryDirectory(prefix="bench-floor-") as scratch:
        root = Path(scratch)
        for name, callable_ref in entrants.items():
            request = RunRequest(
                tasks=tasks,
                target_file=_target_file(root, name, callable_ref),
                corpus_root=corpus_root,
                repeats=1,
                concurrency=8,
                runs_dir=root / "runs",
            )
            run, status = start_run(request)
            if status.status != "complete":
                raise InputError(
                    f"baseline '{name}' did not finish its run ({status.status})",
                    code="LINT_BASELINE",
                    path=tasks,
                )
            passed = {record.task_id: bool(record.passed) for record in run.attempts()}
            for task_id, ok in sorted(passed.items()):
                other = partner(task_id)
                if ok and (other not in passed or passed[other]):
                    found.append(FloorPass(name, task_id))
    return found


__all__ = ["FloorPass", "floor_passes"]
