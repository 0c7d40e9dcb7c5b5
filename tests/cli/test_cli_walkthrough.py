"""docs/SUBMISSIONS.md's walk-through, run as written against the project's mock server (the
real-server run of it is tests/real/test_real_walkthrough.py): from `bench probe` to the pull
request's comment, in a fresh git repository holding what a clone holds."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench.testing.mock_server import MockServer

REPO = Path(__file__).resolve().parents[2]

# ssh-keygen is installed when missing, or the test fails (tests/conftest.py): never skipped.
pytestmark = pytest.mark.usefixtures("ssh_keygen")


def _walkthrough() -> str:
    text = (REPO / "docs" / "SUBMISSIONS.md").read_text(encoding="utf-8")
    block = text.split("<!-- walkthrough:begin -->", 1)[1].split("<!-- walkthrough:end -->")[0]
    return block.strip().removeprefix("```sh\n").removesuffix("```")


def test_the_walkthrough_runs_against_the_mock_server_and_leaves_no_key_in_the_clone(
    tmp_path: Path,
) -> None:
    clone = tmp_path / "clone"
    clone.mkdir()
    for part in ("tasks", "corpora", "submissions"):
        shutil.copytree(REPO / part, clone / part)
    shutil.copy(REPO / ".gitignore", clone / ".gitignore")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
    }  # fmt: skip
    for command in (["git", "init", "-q", "-b", "main"], ["git", "add", "."],
                    ["git", "commit", "-q", "-m", "the repository"]):  # fmt: skip
        subprocess.run(command, cwd=clone, env=env, check=True)
    with MockServer() as server:
        done = subprocess.run(
            ["bash", "-c", "set -euo pipefail\n" + _walkthrough()], cwd=clone,
            env={**env, "ENDPOINT": server.url + "/v1"}, capture_output=True, text=True,
        )  # fmt: skip
    out = done.stdout
    assert done.returncode == 0, out[-3000:] + done.stderr[-3000:]
    assert "engine: bench-mock" in out and "status complete" in out
    [bundle] = (clone / "results" / "my-team").iterdir()
    assert "✅ **Bundle valid**" in out and f"`results/my-team/{bundle.name}`" in out
    # The private key was made in the clone, one `git add .` away from a public pull request.
    untracked = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=clone, env=env,
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()  # fmt: skip
    assert untracked == ["?? my-target.yaml"]
