"""A registration pull request that swaps the key of an entrant already on the board
(``PR_REKEYS_PUBLISHED``, ``bench.verify.guard``).

Anyone may open one: git's file list cannot tell the key's holder from someone else, and before
this the PR check was green (a registration has nothing to verify). Once merged, the new key
signs as that entrant, and every bundle the old key signed fails verification on main, which
stops the publish build. A first key, an added entrant, or a rotation for an entrant with no
bundle yet is still a plain registration.
"""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.verify.guard import Change, GuardRefusal, guard, guard_revisions

SIGNERS = "submissions/allowed_signers"
BENCH = Path(sys.executable).parent / "bench"
OLD_RUN = "results/other/20261101T000000Z-0a0a0a"


def key(token: str) -> str:
    """A valid ssh-ed25519 public key (base64) named by ``token``: the guard lints the
    allowed_signers a registration leaves, as verify does (PR_SIGNERS_INVALID)."""
    blob = b"\0\0\0\x0bssh-ed25519\0\0\0\x20" + hashlib.sha256(token.encode()).digest()
    return base64.b64encode(blob).decode("ascii")


def line(principal: str, token: str) -> str:
    return f'{principal} namespaces="bundle-v1@bench-suite" ssh-ed25519 {key(token)}'


BASE = f"# keys\n{line('other', 'AAAAother')}\n{line('third', 'AAAAthird')}\n"
ON_BOARD = {"other"}  # entrants with bundles on the base branch


def _guard(after: str, *changes: Change) -> str | None:
    return guard([Change("M", SIGNERS), *changes], (BASE, after), ON_BOARD.__contains__)


@pytest.mark.parametrize(
    "after",
    [
        BASE.replace(key("AAAAother"), key("AAAAmallory")),  # replaced
        BASE.replace(line("other", "AAAAother") + "\n", ""),  # removed
    ],
    ids=["replaced", "removed"],
)
def test_a_registration_swapping_a_published_entrants_key_is_refused(after: str) -> None:
    with pytest.raises(GuardRefusal) as info:
        _guard(after)
    assert (info.value.code, info.value.path) == ("PR_REKEYS_PUBLISHED", SIGNERS)
    assert "'other'" in info.value.message


def test_a_registration_with_its_registry_file_swapping_the_key_is_refused() -> None:
    after = BASE.replace(key("AAAAother"), key("AAAAmallory"))
    with pytest.raises(GuardRefusal) as info:
        _guard(after, Change("M", "submissions/other.yaml"))
    assert info.value.code == "PR_REKEYS_PUBLISHED"


def test_other_registrations_are_unchanged() -> None:
    # a new entrant's first key
    assert (
        _guard(BASE + line("acme", "AAAAacme") + "\n", Change("A", "submissions/acme.yaml")) is None
    )
    # a rotation for an entrant with no bundle yet
    assert _guard(BASE.replace(key("AAAAthird"), key("AAAAnew"))) is None
    # without knowing what is published (a unit call), as before
    rotated = BASE.replace(key("AAAAother"), key("AAAAx"))
    assert guard([Change("M", SIGNERS)], (BASE, rotated)) is None


# --- on a real repository, through bench pr-guard ----------------------------------------------


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}  # fmt: skip
    result = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env)
    return result.stdout.decode("utf-8", "replace").strip()


def _write(repo: Path, path: str, text: str) -> None:
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _write(root, SIGNERS, BASE)
    _write(root, "submissions/other.yaml", "display_name: Other\n")
    _write(root, "submissions/third.yaml", "display_name: Third\n")
    _write(root, f"{OLD_RUN}/manifest.json", "{}\n")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "base")
    _git(root, "checkout", "-q", "-b", "pr")
    monkeypatch.chdir(root)
    return root


def _commit(repo: Path) -> None:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "change")


def test_git_a_stranger_swapping_a_published_entrants_key_is_refused(repo: Path) -> None:
    """Before: ``bench pr-guard`` exited 0 and printed nothing (a registration)."""
    _write(repo, SIGNERS, BASE.replace(key("AAAAother"), key("AAAAmallory")))
    _commit(repo)
    with pytest.raises(GuardRefusal) as info:
        guard_revisions("main")
    assert info.value.code == "PR_REKEYS_PUBLISHED"
    result = subprocess.run(
        [str(BENCH), "pr-guard", "--base", "main"], cwd=repo, capture_output=True, text=True
    )
    assert result.returncode == 1
    assert result.stderr.startswith(f"error[PR_REKEYS_PUBLISHED]: {SIGNERS}: ")
    assert "Traceback" not in result.stderr


def test_git_a_rotation_for_an_entrant_with_no_bundle_passes(repo: Path) -> None:
    _write(repo, SIGNERS, BASE.replace(key("AAAAthird"), key("AAAAnew")))
    _commit(repo)
    assert guard_revisions("main") is None
