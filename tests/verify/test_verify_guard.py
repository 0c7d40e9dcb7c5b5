"""The PR path guard: on git's file lists (unit), and on real git repositories through
``guard_revisions`` and the ``bench pr-guard`` command (one entrant per PR, identifiers)."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.verify import guard as guard_module
from bench.verify.guard import (
    CODES,
    Change,
    GuardRefusal,
    changed_principals,
    guard,
    guard_revisions,
)

RUN_ID = "20261202T114029Z-ca4ab2"
RUN = f"results/acme/{RUN_ID}"
OLD_RUN = "results/other/20261101T000000Z-0a0a0a"
SIGNERS = "submissions/allowed_signers"
BENCH = Path(sys.executable).parent / "bench"
DOC = Path(__file__).resolve().parents[2] / "docs" / "SUBMISSIONS.md"


def added(*paths: str) -> list[Change]:
    return [Change("A", p) for p in paths]


def refusal(changes: list[Change], signers: tuple[str, str] | None = None) -> str:
    with pytest.raises(GuardRefusal) as info:
        guard(changes, signers)
    return info.value.code


def key(token: str) -> str:
    """A valid ssh-ed25519 public key (base64) named by ``token``: the guard lints the
    allowed_signers a registration leaves, as verify does (PR_SIGNERS_INVALID)."""
    blob = b"\0\0\0\x0bssh-ed25519\0\0\0\x20" + hashlib.sha256(token.encode()).digest()
    return base64.b64encode(blob).decode("ascii")


def line(principal: str, token: str = "AAAAkey") -> str:
    return f'{principal} namespaces="bundle-v1@bench-suite" ssh-ed25519 {key(token)}'


BASE_SIGNERS = f"# registered keys\n{line('other', 'AAAAother')}\n{line('third', 'AAAAthird')}\n"


# --- unit: results PRs ------------------------------------------------------------------------


def test_one_new_bundle_is_accepted() -> None:
    assert guard(added(f"{RUN}/manifest.json", f"{RUN}/manifest.json.sig")) == RUN


def test_a_results_pr_may_add_but_not_update_its_own_registry_file() -> None:
    assert guard([*added(f"{RUN}/manifest.json"), Change("A", "submissions/acme.yaml")]) == RUN
    # one the base branch holds is the registration's (tests/verify/test_forgery_round17.py)
    changes = [Change("M", "submissions/acme.yaml"), *added(f"{RUN}/manifest.json")]
    assert refusal(changes) == "PR_REGISTRY_AND_RESULTS"


@pytest.mark.parametrize("status", ["A", "M", "D"])
def test_a_results_pr_touching_another_entrants_registry_file_is_refused(status: str) -> None:
    changes = [*added(f"{RUN}/manifest.json"), Change(status, "submissions/other.yaml")]
    with pytest.raises(GuardRefusal) as info:
        guard(changes)
    assert info.value.code == "PR_OTHER_ENTRANT"
    assert info.value.path == "submissions/other.yaml"
    # ...whatever the order git lists the files in.
    assert refusal(list(reversed(changes))) == "PR_OTHER_ENTRANT"


def test_a_results_pr_touching_another_entrants_results_is_refused() -> None:
    for status in ("M", "D"):
        changes = [*added(f"{RUN}/manifest.json"), Change(status, f"{OLD_RUN}/manifest.json")]
        assert refusal(changes) == "PR_OTHER_ENTRANT"
    # Its own older bundle is still never rewritten.
    own_old = Change("M", "results/acme/20261101T000000Z-0a0a0a/manifest.json")
    assert refusal([*added(f"{RUN}/manifest.json"), own_old]) == "PR_REWRITES_RESULTS"


def test_no_pr_deletes_a_registry_file() -> None:
    assert refusal([*added(f"{RUN}/x"), Change("D", "submissions/acme.yaml")]) == (
        "PR_DELETES_SUBMISSION"
    )
    assert refusal([Change("D", "submissions/acme.yaml")]) == "PR_DELETES_SUBMISSION"
    assert refusal([Change("T", "submissions/acme.yaml")]) == "PR_DELETES_SUBMISSION"


def test_existing_refusals_keep_their_codes() -> None:
    assert refusal(added(f"{RUN}/manifest.json", "src/bench/__init__.py")) == "PR_OUTSIDE_RESULTS"
    assert refusal([Change("M", f"{RUN}/manifest.json")]) == "PR_REWRITES_RESULTS"
    assert refusal([Change("D", f"{RUN}/manifest.json")]) == "PR_REWRITES_RESULTS"
    assert refusal(added("results/acme/manifest.json")) == "PR_BAD_PLACE"
    assert refusal(added("results/Acme!/20261202T114029Z-ca4ab2/x")) == "PR_BAD_PLACE"
    other = "results/acme/20261203T114029Z-aaaaaa/manifest.json"
    assert refusal(added(f"{RUN}/manifest.json", other)) == "PR_MULTIPLE_BUNDLES"
    keys = [Change("M", SIGNERS), *added(f"{RUN}/manifest.json")]
    assert refusal(keys) == "PR_KEYS_AND_RESULTS"
    assert refusal(keys, (BASE_SIGNERS, BASE_SIGNERS + line("acme") + "\n")) == (
        "PR_KEYS_AND_RESULTS"
    )
    assert refusal(added(".github/workflows/publish.yml")) == "PR_OUTSIDE_RESULTS"
    assert refusal(added("submissions.yaml")) == "PR_OUTSIDE_RESULTS"


@pytest.mark.parametrize(
    "path",
    [
        "results/acme/２０２６１２０２T114029Z-ca4ab2/manifest.json",  # full-width digits
        "results/acme/20261202T114029Z-CA4AB2/manifest.json",  # hex in upper case
        "results/acme/20261202T114029Z-ca4ab2\n/manifest.json",  # a trailing newline
        "results/acme\n/20261202T114029Z-ca4ab2/manifest.json",
        "results/acmé/20261202T114029Z-ca4ab2/manifest.json",  # non-ASCII
        "results/Acme/20261202T114029Z-ca4ab2/manifest.json",  # a case twin
        "results/-acme/20261202T114029Z-ca4ab2/manifest.json",
        f"results/{'a' * 65}/20261202T114029Z-ca4ab2/manifest.json",
        "results/acme/20261202T114029Z-ca4ab2/manifest json",  # a space in a file name
        "results/acme/20261202T114029Z-ca4ab2/.hidden",
        "results/acme/20261202T114029Z-ca4ab2/a/manifest\u202e.json",  # bidi override
        "results/acme/20261202T114029Z-ca4ab2/x\udcff",  # a non-UTF-8 byte, as git gives it
    ],
)
def test_every_path_component_follows_the_identifier_rule(path: str) -> None:
    with pytest.raises(GuardRefusal) as info:
        guard(added(path))
    assert info.value.code == "PR_BAD_PLACE"
    rendered = info.value.render()
    assert "\n" not in rendered and rendered.isascii()  # one line, nothing to forge a log with


def test_deeper_files_inside_the_bundle_are_accepted() -> None:
    assert guard(added(f"{RUN}/attempts/a-1.json", f"{RUN}/manifest.json")) == RUN


# --- unit: registrations ----------------------------------------------------------------------


def test_a_registration_of_its_own_line_and_registry_file_has_nothing_to_verify() -> None:
    after = BASE_SIGNERS + line("acme") + "\n"
    changes = [Change("M", SIGNERS), *added("submissions/acme.yaml")]
    assert guard(changes, (BASE_SIGNERS, after)) is None
    assert guard(list(reversed(changes)), (BASE_SIGNERS, after)) is None


def test_a_registration_may_replace_or_remove_only_its_own_key() -> None:
    base = BASE_SIGNERS + line("acme", "AAAAold") + "\n"
    assert guard([Change("M", SIGNERS)], (base, BASE_SIGNERS + line("acme", "AAAAnew"))) is None
    assert guard([Change("M", SIGNERS)], (base, BASE_SIGNERS)) is None
    assert guard([Change("A", SIGNERS)], ("", line("acme"))) is None  # the first key of all
    # Reordering other lines or editing comments changes no principal's lines.
    shuffled = f"{line('third', 'AAAAthird')}\n\n{line('other', 'AAAAother')}\n# new\n"
    assert guard([Change("M", SIGNERS)], (BASE_SIGNERS, shuffled)) is None
    assert guard(added("submissions/acme.yaml")) is None
    assert guard([Change("M", "submissions/acme.yaml")]) is None


def test_a_registration_changing_another_principals_line_is_refused() -> None:
    changed = BASE_SIGNERS.replace(key("AAAAother"), key("AAAAmine")) + line("acme") + "\n"
    changes = [Change("M", SIGNERS), *added("submissions/acme.yaml")]
    with pytest.raises(GuardRefusal) as info:
        guard(changes, (BASE_SIGNERS, changed))
    assert info.value.code == "PR_OTHER_ENTRANT"
    assert info.value.path == SIGNERS
    assert "'acme', 'other'" in info.value.message
    # Without a registry file: two principals, or one that is not the registry file's.
    assert refusal([Change("M", SIGNERS)], (BASE_SIGNERS, changed)) == "PR_OTHER_ENTRANT"
    removed = BASE_SIGNERS.replace(line("third", "AAAAthird") + "\n", "")
    assert refusal(changes, (BASE_SIGNERS, removed + line("acme"))) == "PR_OTHER_ENTRANT"
    only_other = BASE_SIGNERS + line("other", "AAAAsecond")
    assert refusal(changes, (BASE_SIGNERS, only_other)) == "PR_OTHER_ENTRANT"


@pytest.mark.parametrize("principal", ["*", "acme,other", "Acme", "acmé"])
def test_a_registration_line_must_name_one_entrant(principal: str) -> None:
    after = BASE_SIGNERS + line(principal) + "\n"
    assert refusal([Change("M", SIGNERS)], (BASE_SIGNERS, after)) == "PR_OTHER_ENTRANT"


def test_a_registration_of_two_entrants_is_refused() -> None:
    assert refusal(added("submissions/acme.yaml", "submissions/other.yaml")) == "PR_OTHER_ENTRANT"
    changes = [Change("M", "submissions/acme.yaml"), Change("D", "submissions/other.yaml")]
    assert refusal(changes) == "PR_OTHER_ENTRANT"


def test_a_changed_allowed_signers_needs_its_texts() -> None:
    assert refusal([Change("M", SIGNERS)]) == "PR_REFUSED"


@pytest.mark.parametrize(
    "path",
    [
        "submissions/notes.txt",
        "submissions/acme.yml",
        "submissions/Acme.yaml",
        "submissions/acme\n.yaml",
        "submissions/.yaml",
        "submissions/nested/acme.yaml",
        "submissions/endpoints.yaml.bak",
        "submissions/allowed_signers.d/acme",
    ],
)
def test_only_registry_files_and_allowed_signers_live_in_submissions(path: str) -> None:
    assert refusal(added(path)) == "PR_SUBMISSIONS_PATH"


def test_changed_principals_reads_lines_like_the_lint() -> None:
    base = f"{line('a')}\n  # c\n{line('b')}\n"
    assert changed_principals(base, base) == set()
    assert changed_principals(base, f"{line('b')}\n{line('a')}\n") == set()
    assert changed_principals(base, f"  {line('a')}  \n{line('b', 'K2')}\n") == {"b"}
    assert changed_principals("", base) == {"a", "b"}
    assert changed_principals(base, base + line("a")) == {"a"}  # a duplicate line counts


def test_every_code_is_listed_and_documented() -> None:
    source = Path(guard_module.__file__).read_text(encoding="utf-8")
    raised = set(re.findall(r'code="([A-Z_]+)"', source)) | {GuardRefusal.default_code}
    assert raised == set(CODES)
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## What a pull request may change", 1)[1].split("\n## ", 1)[0]
    for code in CODES:
        assert f"| `{code}` |" in section, code


# --- real git repositories --------------------------------------------------------------------


def _git(repo: Path, *args: str | bytes) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}  # fmt: skip
    result = subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, env=env
    )  # fmt: skip
    return result.stdout.decode("utf-8", "replace").strip()


def _write(repo: Path, path: str | bytes, text: str = "x\n") -> None:
    target = os.path.join(os.fsencode(repo), os.fsencode(path))
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w", encoding="utf-8") as handle:
        handle.write(text)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """main: two entrants (keys, registry files, one accepted bundle); HEAD on branch ``pr``."""
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _write(root, SIGNERS, BASE_SIGNERS)
    _write(root, "submissions/other.yaml", "display_name: Other\n")
    _write(root, "submissions/third.yaml", "display_name: Third\n")
    _write(root, f"{OLD_RUN}/manifest.json", "{}\n")
    _write(root, "src/bench/__init__.py", "")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "base")
    _git(root, "checkout", "-q", "-b", "pr")
    monkeypatch.chdir(root)
    return root


def _commit(repo: Path) -> None:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "change")


def _add_bundle(repo: Path, entrant: str = "acme", run_id: str = RUN_ID) -> str:
    for name in ("manifest.json", "manifest.json.sig", "status.json"):
        _write(repo, f"results/{entrant}/{run_id}/{name}", "{}\n")
    return f"results/{entrant}/{run_id}"


def _refused(base: str = "main") -> GuardRefusal:
    with pytest.raises(GuardRefusal) as info:
        guard_revisions(base, "HEAD")
    return info.value


def _cli(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BENCH), "pr-guard", "--base", "main", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        errors="replace",
    )


def test_git_a_results_pr_with_its_own_registry_file_passes(repo: Path) -> None:
    bundle = _add_bundle(repo)
    _write(repo, "submissions/acme.yaml", "display_name: Acme\n")
    _commit(repo)
    assert guard_revisions("main") == bundle
    result = _cli(repo)
    assert (result.returncode, result.stdout, result.stderr) == (0, bundle + "\n", "")


def test_git_a_results_pr_editing_another_entrants_registry_file_is_refused(repo: Path) -> None:
    _add_bundle(repo)
    _write(repo, "submissions/other.yaml", "display_name: Hijacked\n")
    _commit(repo)
    error = _refused()
    assert (error.code, error.path) == ("PR_OTHER_ENTRANT", "submissions/other.yaml")
    result = _cli(repo)
    assert result.returncode == 1
    assert result.stderr.startswith("error[PR_OTHER_ENTRANT]: submissions/other.yaml: ")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stdout == ""


def test_git_a_results_pr_deleting_another_entrants_registry_file_is_refused(repo: Path) -> None:
    _add_bundle(repo)
    (repo / "submissions" / "other.yaml").unlink()
    _commit(repo)
    error = _refused()
    assert (error.code, error.path) == ("PR_OTHER_ENTRANT", "submissions/other.yaml")


def test_git_a_results_pr_touching_another_entrants_results_is_refused(repo: Path) -> None:
    _add_bundle(repo)
    _write(repo, f"{OLD_RUN}/manifest.json", '{"x": 1}\n')
    _commit(repo)
    assert _refused().code == "PR_OTHER_ENTRANT"


def test_git_a_registration_changing_another_principals_line_is_refused(repo: Path) -> None:
    signers = repo / SIGNERS
    text = signers.read_text().replace(key("AAAAother"), key("AAAAattacker"))
    signers.write_text(text + line("acme") + "\n")
    _write(repo, "submissions/acme.yaml", "display_name: Acme\n")
    _commit(repo)
    error = _refused()
    assert (error.code, error.path) == ("PR_OTHER_ENTRANT", SIGNERS)
    result = _cli(repo)
    assert result.returncode == 1
    assert result.stderr.startswith(f"error[PR_OTHER_ENTRANT]: {SIGNERS}: ")


def test_git_a_registration_of_its_own_line_and_registry_file_passes(repo: Path) -> None:
    signers = repo / SIGNERS
    signers.write_text(signers.read_text() + line("acme") + "\n")
    _write(repo, "submissions/acme.yaml", "display_name: Acme\n")
    _commit(repo)
    assert guard_revisions("main") is None
    result = _cli(repo)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_git_signers_are_compared_from_the_merge_base(repo: Path) -> None:
    """main moved on (another entrant registered) after the PR branched: not the PR's change."""
    signers = repo / SIGNERS
    signers.write_text(signers.read_text() + line("acme") + "\n")
    _commit(repo)
    _git(repo, "checkout", "-q", "main")
    signers.write_text(signers.read_text() + line("later") + "\n")
    _commit(repo)
    _git(repo, "checkout", "-q", "pr")
    assert guard_revisions("main") is None


def test_git_a_registration_deleting_a_registry_file_is_refused(repo: Path) -> None:
    (repo / "submissions" / "third.yaml").unlink()
    _commit(repo)
    assert _refused().code == "PR_DELETES_SUBMISSION"


def test_git_adding_files_to_an_accepted_bundle_is_refused(repo: Path) -> None:
    _write(repo, f"{OLD_RUN}/extra.json", "{}\n")
    _commit(repo)
    error = _refused()
    assert (error.code, error.path) == ("PR_REWRITES_RESULTS", OLD_RUN)


@pytest.mark.parametrize(
    "directory",
    [
        "results/acme/２０２６１２０２T114029Z-ca4ab2",  # full-width digits in the run id
        "results/acme\n/20261202T114029Z-ca4ab2",  # a trailing newline in the entrant
        "results/acmé/20261202T114029Z-ca4ab2",  # non-ASCII in the entrant
        b"results/acme\xff/20261202T114029Z-ca4ab2",  # not even UTF-8
    ],
    ids=["full-width-run-id", "newline-entrant", "non-ascii-entrant", "non-utf8-entrant"],
)
def test_git_bad_identifiers_in_the_path_are_refused(repo: Path, directory: str | bytes) -> None:
    raw = os.fsencode(directory)
    for name in (b"manifest.json", b"manifest.json.sig"):
        _write(repo, raw + b"/" + name, "{}\n")
    _commit(repo)
    error = _refused()
    assert error.code == "PR_BAD_PLACE"
    result = _cli(repo)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("error[PR_BAD_PLACE]: ")
    assert result.stderr.count("\n") == 1 and result.stderr.isascii()  # escaped, one line
    assert "Traceback" not in result.stderr


def test_git_a_code_change_is_refused(repo: Path) -> None:
    _add_bundle(repo)
    _write(repo, "src/bench/__init__.py", "print('hi')\n")
    _commit(repo)
    assert _refused().code == "PR_OUTSIDE_RESULTS"


def test_git_an_unknown_base_is_a_usage_error(repo: Path) -> None:
    result = subprocess.run(
        [str(BENCH), "pr-guard", "--base", "no-such-branch"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("error[USAGE]: ") and "Traceback" not in result.stderr


# --- symbolic links and other non-files (git mode 120000, 160000) -----------------------------


def test_git_a_registry_file_added_as_a_symlink_is_refused(repo: Path) -> None:
    """A registration adds submissions/acme.yaml as a link (to another entrant's record, or to a
    file outside the repository such as /proc/self/environ in the publish job): git lists it as
    an added file like any other, so the guard must read its mode."""
    os.makedirs(repo / "submissions", exist_ok=True)
    os.symlink("other.yaml", repo / "submissions" / "acme.yaml")
    _commit(repo)
    error = _refused()
    assert (error.code, error.path) == ("PR_SUBMISSIONS_PATH", "submissions/acme.yaml")


def test_git_a_results_pr_with_a_symlinked_registry_file_is_refused(repo: Path) -> None:
    _add_bundle(repo)
    os.symlink("/proc/self/environ", repo / "submissions" / "acme.yaml")
    _commit(repo)
    assert _refused().code == "PR_SUBMISSIONS_PATH"


def test_git_a_symlink_inside_a_new_bundle_is_refused(repo: Path) -> None:
    bundle = _add_bundle(repo)
    accepted = f"../../other/{OLD_RUN.rsplit('/', 1)[1]}/manifest.json"
    os.symlink(accepted, repo / bundle / "config.json")
    _commit(repo)
    error = _refused()
    assert (error.code, error.path) == ("PR_BAD_PLACE", f"{bundle}/config.json")


def test_git_allowed_signers_made_a_symlink_is_refused(repo: Path) -> None:
    (repo / SIGNERS).unlink()
    os.symlink("other.yaml", repo / SIGNERS)
    _commit(repo)
    error = _refused()
    assert (error.code, error.path) == ("PR_SUBMISSIONS_PATH", SIGNERS)


def test_a_change_reads_git_s_raw_mode() -> None:
    assert guard([Change("A", f"{RUN}/manifest.json", "100755")]) == RUN
    assert refusal([Change("A", f"{RUN}/manifest.json", "120000")]) == "PR_BAD_PLACE"
    assert refusal([Change("A", "submissions/acme.yaml", "160000")]) == "PR_SUBMISSIONS_PATH"
