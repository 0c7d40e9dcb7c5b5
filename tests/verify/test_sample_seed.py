"""The sample's seed on main is the merge commit's, never the contributor's own commit's.

A pull request merged with a merge commit brings its bundle in on the contributor's commit, and
``git log --diff-filter=A`` names that commit (the merge is TREESAME to that side). The
contributor makes it after signing and can remake it at will (another time, another message),
so a seed drawn from it is theirs to choose: the replayed sample and, without ``--base-ref``,
the public tasks a maintainer re-runs live. The seed must come from the merge commit, which a
maintainer makes on the base branch (bench.verify.sample).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from bench.verify import VerifyOptions
from bench.verify.sample import resolve_seed, seed_from


def _git(cwd: Path, *args: str, when: str = "2026-12-01T00:00:00Z") -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    return done.stdout.strip()


def _merged(root: Path, contributor_time: str) -> tuple[Path, str, str]:
    """A repository whose main merged (``--no-ff``) a branch adding a bundle's manifest:
    (the bundle, the contributor's commit, the merge commit)."""
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _git(root, "commit", "-q", "--allow-empty", "-m", "base")
    _git(root, "checkout", "-q", "-b", "contribution")
    bundle = root / "results" / "acme" / "20261201T000000Z-abcdef"
    bundle.mkdir(parents=True)
    (bundle / "manifest.json").write_bytes(b'{"entrant":"acme"}')
    _git(root, "add", "results")
    _git(root, "commit", "-q", "-m", "add my bundle", when=contributor_time)
    contributed = _git(root, "rev-parse", "HEAD")
    _git(root, "checkout", "-q", "main")
    _git(root, "merge", "-q", "--no-ff", "contribution", "-m", "Merge pull request #1")
    return bundle, contributed, _git(root, "rev-parse", "HEAD")


def _options(root: Path) -> VerifyOptions:
    return VerifyOptions(
        results_root=root / "results",
        allowed_signers=root / "allowed_signers",
        tasks=root / "tasks",
    )


def test_the_seed_of_a_merged_bundle_is_the_merge_commits(tmp_path: Path) -> None:
    bundle, contributed, merge = _merged(tmp_path / "repo", "2026-12-01T00:00:00Z")
    raw = (bundle / "manifest.json").read_bytes()
    seed, basis = resolve_seed(bundle, raw, None, _options(tmp_path / "repo"))
    assert basis == f"adding commit {merge[:12]} + manifest"
    assert seed == seed_from(merge, raw) != seed_from(contributed, raw)


def test_the_contributor_cannot_choose_the_seed_by_remaking_their_commit(tmp_path: Path) -> None:
    # The same bundle committed at two times the contributor picked: before the fix, two
    # seeds for the same merge (one per contributor commit); now the merge's alone decides.
    seeds = []
    for name, when in (("a", "2026-12-01T00:00:00Z"), ("b", "2026-12-01T00:00:07Z")):
        bundle, contributed, merge = _merged(tmp_path / name, when)
        raw = (bundle / "manifest.json").read_bytes()
        seed, basis = resolve_seed(bundle, raw, None, _options(tmp_path / name))
        assert contributed[:12] not in basis
        seeds.append((seed, merge))
    for seed, merge in seeds:
        assert seed == seed_from(merge, b'{"entrant":"acme"}')
