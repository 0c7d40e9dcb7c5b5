"""A newcomer who installed the package and follows the docs literally, from a directory that
is not a clone: every command that needs the project's files says where they are, a command
that needs git says it is not in a repository in one line, and the docs say what verify does
with a subset run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench.cli.main import cli

REPO = Path(__file__).resolve().parents[2]


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    ("args", "path", "exit_code"),
    [
        # README's first command, and docs/TASKSET.md's, run where there is no clone.
        (("task", "validate", "examples/tasks"), "examples/tasks", 3),
        (("task", "validate", "tasks"), "tasks", 3),
        (("task", "lint", "tasks"), "tasks", 3),
        (("run", "--tasks", "tasks", "--split", "public", "--target", "t.yaml"), "tasks", 3),
    ],
)
def test_a_missing_task_path_says_the_task_set_comes_with_a_clone(
    args: tuple[str, ...], path: str, exit_code: int, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    code, out, err = invoke(*args)
    assert code == exit_code, err
    assert err.startswith(f"error[FILE_MISSING]: {path}: no such file or directory (")
    assert "come with a clone of its repository, not with the installed package" in err
    assert "Traceback" not in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []  # nothing written where the user stood


def test_pr_guard_outside_a_repository_says_so_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SUBMISSIONS.md runs `bench pr-guard --base main` in the clone; run anywhere else, git's
    own usage text (over 100 lines) used to follow the error."""
    outside = tmp_path / "not a clone"
    outside.mkdir()
    monkeypatch.chdir(outside)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    code, _, err = invoke("pr-guard", "--base", "main")
    assert code == 2
    assert err == (
        "error[USAGE]: git diff main...HEAD failed: not a git repository: run it inside the "
        "clone that holds the pull request's branch\n"
    )


def _section(doc: str, heading: str) -> str:
    text = (REPO / "docs" / doc).read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## )", text, re.S | re.M)
    assert match, f"{doc}: no section {heading!r}"
    return " ".join(match.group(1).split())


def test_the_docs_say_a_subset_run_verifies_as_verify_does() -> None:
    """tests/verify/test_verify_subset.py shows a subset bundle verifying; RUNS.md and
    VERIFY-ERRORS.md said `bench verify` refuses every subset run (TASK_SET_MISMATCH)."""
    runs = _section("RUNS.md", "Subsets")
    assert "never published" not in runs and "refuses it" not in runs
    assert "It bundles and verifies: `bench verify` checks that the subset was drawn" in runs
    [row] = [
        line
        for line in (REPO / "docs" / "VERIFY-ERRORS.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| `TASK_SET_MISMATCH` |")
    ]
    assert "that was not drawn from the pinned split" in row
    assert "A subset drawn from the pinned split verifies" in row
