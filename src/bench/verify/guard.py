"""The pull-request path guard: what a results PR may change, decided from git's file list.

A results PR adds files inside exactly one new ``results/<entrant>/<run_id>/`` and nothing
else. It may not modify or delete anything under ``results/`` (accepted bundles are never
rewritten), may not touch ``submissions/allowed_signers`` in the same change (a key added with
the results it signs would vouch for itself), and may not change code, workflows or tasks.
A PR that only registers a key (``submissions/``) has nothing to verify and goes to review.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import PurePosixPath

from bench.core.errors import BenchError
from bench.core.ids import is_valid_id, looks_like_run_id


class GuardRefusal(BenchError):
    """The PR changes something a results PR may not (exit 1, like an invalid bundle)."""

    exit_code = 1
    default_code = "PR_REFUSED"


@dataclass(frozen=True)
class Change:
    status: str  # git's letter: A added, M modified, D deleted, R renamed, ...
    path: str


def changes_between(base: str, head: str = "HEAD") -> list[Change]:
    """``git diff --name-status`` from the merge base of ``base`` to ``head``, renames off."""
    out = subprocess.run(
        ["git", "diff", "--name-status", "--no-renames", "-z", f"{base}...{head}"],
        check=True,
        capture_output=True,
    ).stdout.decode("utf-8", errors="strict")
    fields = [f for f in out.split("\0") if f]
    return [Change(fields[i], fields[i + 1]) for i in range(0, len(fields) - 1, 2)]


def guard(changes: list[Change]) -> str | None:
    """The bundle directory the PR adds, or None when it adds none (a key registration)."""
    bundles: set[str] = set()
    touches_signers = False
    for change in changes:
        parts = PurePosixPath(change.path).parts
        if change.path == "submissions/allowed_signers":
            touches_signers = True
            continue
        if parts[:1] == ("submissions",) and len(parts) == 2:
            continue
        if parts[:1] != ("results",):
            raise GuardRefusal(
                "a results PR changes only results/ (and a registration only submissions/)",
                code="PR_OUTSIDE_RESULTS",
                path=change.path,
            )
        if change.status != "A":
            raise GuardRefusal(
                f"accepted results are never rewritten (git status {change.status})",
                code="PR_REWRITES_RESULTS",
                path=change.path,
            )
        if len(parts) < 4 or not is_valid_id(parts[1]) or not looks_like_run_id(parts[2]):
            raise GuardRefusal(
                "files go inside results/<entrant>/<run_id>/",
                code="PR_BAD_PLACE",
                path=change.path,
            )
        bundles.add(f"results/{parts[1]}/{parts[2]}")
    if len(bundles) > 1:
        raise GuardRefusal(
            f"one bundle per PR; this one adds {len(bundles)}: {', '.join(sorted(bundles))}",
            code="PR_MULTIPLE_BUNDLES",
        )
    if bundles and touches_signers:
        raise GuardRefusal(
            "a PR may not change submissions/allowed_signers and add results together",
            code="PR_KEYS_AND_RESULTS",
        )
    return next(iter(bundles), None)


__all__ = ["Change", "GuardRefusal", "changes_between", "guard"]
