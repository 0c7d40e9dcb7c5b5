"""docs/SUBMISSIONS.md's walk-through, run as written: from "I have an endpoint" (a real
llama-cpp-python server) to the comment a green pull request gets, in a fresh git repository
holding this repository's tasks, corpora and submissions."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from .conftest import REPO, Servers

DOC = REPO / "docs" / "SUBMISSIONS.md"


def walkthrough() -> str:
    text = DOC.read_text(encoding="utf-8")
    block = text.split("<!-- walkthrough:begin -->", 1)[1].split("<!-- walkthrough:end -->")[0]
    body = block.strip()
    assert body.startswith("```sh\n") and body.endswith("```")
    return body.removeprefix("```sh\n").removesuffix("```")


def test_the_submission_walkthrough_runs_as_written(servers: Servers, tmp_path: Path) -> None:
    repo = tmp_path / "clone"
    repo.mkdir()
    for part in ("tasks", "corpora", "submissions"):
        shutil.copytree(REPO / part, repo / part)
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "ENDPOINT": servers.engines["a"].url + "/v1",
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
    }  # fmt: skip
    for command in (["git", "init", "-q", "-b", "main"], ["git", "add", "."],
                    ["git", "commit", "-q", "-m", "the repository"]):  # fmt: skip
        subprocess.run(command, cwd=repo, env=env, check=True)
    script = "set -euo pipefail\n" + walkthrough()
    done = subprocess.run(["bash", "-c", script], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=900)  # fmt: skip
    out = done.stdout
    assert done.returncode == 0, out[-3000:] + done.stderr[-3000:]
    assert "engine: llama-cpp-python" in out  # the probe named the server
    assert "status complete" in out  # the trial run finished
    [bundle] = (repo / "results" / "my-team").iterdir()
    assert (bundle / "manifest.json.sig").is_file()
    assert "✅ **Bundle valid**" in out, out[-3000:]  # the pull request's comment
    assert f"`results/my-team/{bundle.name}`" in out
    # the walk-through left the key out of every commit
    tracked = subprocess.run(["git", "ls-files"], cwd=repo, env=env, capture_output=True,
                             text=True, check=True).stdout  # fmt: skip
    assert "bench_ed25519" not in tracked
