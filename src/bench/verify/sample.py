"""The seed of the sampled deeper checks (the re-scoring replay, the live re-run).

Every attempt is bound to its recording (``binding.py``); the sample picks which attempts are
also replayed through the cassette target and which public tasks a maintainer re-runs live. A
submitter must not be able to predict or choose it when signing, yet anyone must be able to
reproduce it afterwards. So the seed is the SHA-256 of the manifest's bytes together with a
commit the submitter does not control:

* with ``--base-ref REF`` (the pull-request check): the commit REF names, the tip of the base
  branch when the check ran (public beforehand, so a submitter can foresee this sample; the
  replay is a cross-check of the runner's own path, since every attempt is re-driven from its
  recording by ``binding.py`` whatever the sample, and main draws again from the merge);
* otherwise, when the bundle's manifest is committed in the git repository it sits in (the
  re-check on main, a maintainer's live re-run): the commit of the branch's first-parent line
  that added it, i.e. the merge commit (never the contributor's own commit behind it);
* otherwise (a local check of an uncommitted bundle): the manifest's hash alone, which the
  submitter can compute; the report says so.

``--seed N`` overrides all of this (for reproducing a report). docs/SUBMISSIONS.md, "Samples".
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from bench.records.bundle import MANIFEST

if TYPE_CHECKING:
    from .verifier import VerifyOptions

GIT_TIMEOUT_S = 30.0
DOMAIN = b"bench-suite sample v1\0"


def _git(args: list[str], cwd: Path | None) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, timeout=GIT_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.decode("ascii", "replace").strip()


def _commit_of(ref: str, cwd: Path | None) -> str | None:
    out = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"], cwd)
    return out if out and len(out) == 40 else None


def _adding_commit(bundle: Path) -> str | None:
    """The oldest commit of the checked-out branch's first-parent line that added the
    bundle's manifest, if the bundle is in git.

    First parent only: a pull request merged with a merge commit brings the manifest in on
    the contributor's own commit, which ``git log`` would name (the merge is TREESAME to that
    side and simplified away). The contributor makes that commit after signing and can remake
    it (another time, another message) until the sample suits them; the merge commit, made on
    the base branch when a maintainer merges, they cannot. ``-m`` diffs a merge against its
    first parent (what ``--first-parent`` implies from git 2.31, said for older ones)."""
    manifest = (bundle / MANIFEST).resolve()
    out = _git(
        ["log", "--first-parent", "-m", "--diff-filter=A", "--format=%H", "--", manifest.name],
        manifest.parent,
    )
    lines = [line for line in (out or "").splitlines() if len(line) == 40]
    return lines[-1] if lines else None


def seed_from(commit: str | None, manifest_raw: bytes) -> int:
    digest = hashlib.sha256(DOMAIN)
    digest.update((commit or "").encode("ascii"))
    digest.update(b"\0")
    digest.update(hashlib.sha256(manifest_raw).digest())
    return int.from_bytes(digest.digest()[:8], "big")


def resolve_seed(
    bundle: Path, manifest_raw: bytes, explicit: int | None, options: VerifyOptions
) -> tuple[int, str]:
    """The sample's seed and, in words, what it was derived from."""
    if explicit is not None:
        return explicit, f"seed {explicit} (given)"
    if options.base_ref is not None:
        commit = _commit_of(options.base_ref, options.git_dir)
        if commit is not None:
            return seed_from(commit, manifest_raw), f"base commit {commit[:12]} + manifest"
    commit = _adding_commit(bundle)
    if commit is not None:
        return seed_from(commit, manifest_raw), f"adding commit {commit[:12]} + manifest"
    basis = "manifest only, predictable: the bundle is not committed"
    return seed_from(None, manifest_raw), basis


__all__ = ["resolve_seed", "seed_from"]
