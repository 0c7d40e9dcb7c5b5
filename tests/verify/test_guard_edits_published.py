"""A registration pull request (no bundle) that edits the registry file of an entrant already on
the board (``PR_EDITS_PUBLISHED``, ``bench.verify.guard``).

Before: anyone could open one, and its check was green: the guard saw one entrant's own file,
and the board check passes any name that looks like no other ("Example Support Bot (official)",
links to another site). The registry file names and describes the entrant's rows, and git's file
list cannot tell the entrant from someone else. A results PR could still change its entrant's
file: its bundle must be signed with the key registered on the base branch, which was taken to
prove who asks. A new entrant's registration is unchanged.

(Round 15: a results PR no longer may either: its bundle's signature shows who made it, not who
opens the pull request; tests/verify/test_forgery_round15.py.)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.verify.guard import Change, GuardRefusal, guard, guard_revisions

BENCH = Path(sys.executable).parent / "bench"
OLD_RUN = "results/other/20261101T000000Z-0a0a0a"
NEW_RUN = "results/other/20261202T114029Z-ca4ab2"
RECORD = "display_name: {0}\norganisation: o\nmodel: m\nlinks: []\ncontact: c\nlicense: l\n"
PUBLISHED = {"other"}.__contains__


@pytest.mark.parametrize("status", ["M", "A"])
def test_a_registration_editing_a_published_entrants_file_is_refused(status: str) -> None:
    with pytest.raises(GuardRefusal) as info:
        guard([Change(status, "submissions/other.yaml")], None, PUBLISHED)
    assert (info.value.code, info.value.path) == ("PR_EDITS_PUBLISHED", "submissions/other.yaml")
    assert "'other'" in info.value.message


def test_other_registry_changes_are_unchanged() -> None:
    # a new entrant, or one with no bundle yet
    assert guard([Change("A", "submissions/acme.yaml")], None, PUBLISHED) is None
    assert guard([Change("M", "submissions/acme.yaml")], None, PUBLISHED) is None
    # a results PR of a published entrant: its signed bundle shows who made it, not who opens
    # the PR (tests/verify/test_forgery_round15.py), so it is refused the same edit
    changes = [Change("A", f"{NEW_RUN}/manifest.json"), Change("M", "submissions/other.yaml")]
    with pytest.raises(GuardRefusal):
        guard(changes, None, PUBLISHED)
    # without knowing what is published (a unit call), as before
    assert guard([Change("M", "submissions/other.yaml")]) is None


# --- on a real repository, through bench pr-guard ----------------------------------------------


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}  # fmt: skip
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env)


def _write(repo: Path, path: str, text: str) -> None:
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _write(root, "submissions/other.yaml", RECORD.format("Other"))
    _write(root, "submissions/third.yaml", RECORD.format("Third"))
    _write(root, f"{OLD_RUN}/manifest.json", "{}\n")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "base")
    _git(root, "checkout", "-q", "-b", "pr")
    monkeypatch.chdir(root)
    return root


def _commit(repo: Path) -> None:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "change")


def test_git_a_stranger_renaming_a_published_entrant_is_refused(repo: Path) -> None:
    """Before: ``bench pr-guard`` exited 0 and printed nothing (a registration)."""
    _write(repo, "submissions/other.yaml", RECORD.format("Other (official)"))
    _commit(repo)
    with pytest.raises(GuardRefusal) as info:
        guard_revisions("main")
    assert info.value.code == "PR_EDITS_PUBLISHED"
    result = subprocess.run(
        [str(BENCH), "pr-guard", "--base", "main"], cwd=repo, capture_output=True, text=True
    )
    assert result.returncode == 1
    assert result.stderr.startswith("error[PR_EDITS_PUBLISHED]: submissions/other.yaml: ")
    assert "Traceback" not in result.stderr


def test_git_an_entrant_with_no_bundle_edits_its_file(repo: Path) -> None:
    _write(repo, "submissions/third.yaml", RECORD.format("Third, renamed"))
    _commit(repo)
    assert guard_revisions("main") is None


def test_git_a_results_pr_of_a_published_entrant_leaves_its_file_alone(repo: Path) -> None:
    _write(repo, f"{NEW_RUN}/manifest.json", "{}\n")
    _write(repo, "submissions/other.yaml", RECORD.format("Other, renamed"))
    _commit(repo)
    with pytest.raises(GuardRefusal) as info:
        guard_revisions("main")
    assert info.value.code == "PR_EDITS_PUBLISHED"
