"""A registration pull request whose ``allowed_signers`` would stop the publish build, or that
adds a second signer to an entrant already on the board (``bench.verify.guard``).

Before: the guard read only *whose* lines changed. A registration that added its own key as a
second line of a published entrant, registered a new entrant under another entrant's public key
(public keys are public: the line can be copied), or added an RSA key or a line without the
namespace option passed the guard, and the PR check was green (the board check does not read
keys). Once merged, ``bench verify`` lints the whole file and refuses it (``SIGNERS_UNUSABLE``,
exit 2) for **every** bundle on main: the publish build stops. Now such a registration is
``PR_SIGNERS_INVALID`` (or ``PR_REKEYS_PUBLISHED`` for a key added to a published entrant).
The keys are real ones made by ssh-keygen; the repositories are real git repositories.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.signing.allowed_signers import lint_text
from bench.verify.guard import Change, GuardRefusal, guard, guard_revisions

SIGNERS = "submissions/allowed_signers"
BENCH = Path(sys.executable).parent / "bench"
OLD_RUN = "results/other/20261101T000000Z-0a0a0a"
NAMESPACE = 'namespaces="bundle-v1@bench-suite"'
RECORD = "display_name: {0}\norganisation: o\nmodel: m\nlinks: []\ncontact: c\nlicense: l\n"


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory, ssh_keygen: str) -> dict[str, str]:
    """Public key lines (``<type> <base64>``) made by ssh-keygen: four ed25519, one RSA."""
    folder = tmp_path_factory.mktemp("keys")
    made: dict[str, str] = {}
    for name, kind in [("other", "ed25519"), ("third", "ed25519"), ("mallory", "ed25519"),
                       ("mallory2", "ed25519"), ("rsa", "rsa")]:  # fmt: skip
        path = folder / name
        subprocess.run(
            [ssh_keygen, "-q", "-t", kind, "-N", "", "-C", "", "-f", str(path)], check=True
        )
        made[name] = " ".join(path.with_suffix(".pub").read_text().split()[:2])
    return made


def signer(principal: str, public: str) -> str:
    return f"{principal} {NAMESPACE} {public}"


def base_text(keys: dict[str, str]) -> str:
    return f"# keys\n{signer('other', keys['other'])}\n{signer('third', keys['third'])}\n"


def _unit(before: str, after: str, *changes: Change) -> str | None:
    published = {"other"}.__contains__
    return guard([Change("M", SIGNERS), *changes], (before, after), published)


def _bad_lines(keys: dict[str, str]) -> dict[str, str]:
    """Lines a registration of ``mallory`` (or of the unpublished ``third``) might add."""
    return {
        "copied-key": signer("mallory", keys["other"]),
        "rsa-key": signer("mallory", keys["rsa"]),
        "no-namespace": f"mallory {keys['mallory']}",
        "other-namespace": f'mallory namespaces="git" {keys["mallory"]}',
        "second-line-new": f"{signer('mallory', keys['mallory'])}\n"
        f"{signer('mallory', keys['mallory2'])}",
        "second-line-unpublished": signer("third", keys["mallory"]),
        "cert-authority": f"mallory cert-authority {NAMESPACE} {keys['mallory']}",
    }


CASES = [
    "copied-key",
    "rsa-key",
    "no-namespace",
    "other-namespace",
    "second-line-new",
    "second-line-unpublished",
    "cert-authority",
]


@pytest.mark.parametrize("case", CASES)
def test_a_registration_leaving_an_unusable_allowed_signers_is_refused(
    keys: dict[str, str], case: str
) -> None:
    before = base_text(keys)
    after = before + _bad_lines(keys)[case] + "\n"
    assert lint_text(after)[1], "the line must be one verify's lint refuses"
    owner = "third" if case == "second-line-unpublished" else "mallory"
    with pytest.raises(GuardRefusal) as info:
        _unit(before, after, Change("A", f"submissions/{owner}.yaml"))
    assert (info.value.code, info.value.path) == ("PR_SIGNERS_INVALID", SIGNERS)
    assert "SIGNERS_UNUSABLE" in info.value.message
    assert "line 4" in info.value.message or "line 5" in info.value.message


def test_a_key_added_to_a_published_entrant_is_refused(keys: dict[str, str]) -> None:
    before = base_text(keys)
    with pytest.raises(GuardRefusal) as info:
        _unit(before, before + signer("other", keys["mallory"]) + "\n")
    assert (info.value.code, info.value.path) == ("PR_REKEYS_PUBLISHED", SIGNERS)
    assert "adds a key of entrant 'other'" in info.value.message


def test_a_key_registered_for_a_published_entrant_that_has_none_left_is_refused(
    keys: dict[str, str],
) -> None:
    """A key the maintainers revoked (its line removed; the entrant's bundles stay on main)
    leaves the name free: a stranger's registration may not take it over."""
    revoked = f"# keys\n{signer('third', keys['third'])}\n"
    with pytest.raises(GuardRefusal) as info:
        _unit(revoked, revoked + signer("other", keys["mallory"]) + "\n")
    assert info.value.code == "PR_REKEYS_PUBLISHED"


def test_good_registrations_still_pass(keys: dict[str, str]) -> None:
    before = base_text(keys)
    new = before + signer("mallory", keys["mallory"]) + "\n"
    assert _unit(before, new, Change("A", "submissions/mallory.yaml")) is None
    # a rotation of an entrant with no bundle yet
    assert _unit(before, before.replace(keys["third"], keys["mallory"])) is None
    # a base already broken is not the registration's doing, but is still refused: merging
    # it changes nothing for the better, and the check names the line to fix
    broken = before + signer("third", keys["mallory2"]) + "\n"
    with pytest.raises(GuardRefusal) as info:
        _unit(broken, broken + signer("mallory", keys["mallory"]) + "\n")
    assert info.value.code == "PR_SIGNERS_INVALID"


def test_allowed_signers_that_is_not_utf8_is_refused(keys: dict[str, str]) -> None:
    before = base_text(keys)
    after = before + signer("mallory", keys["mallory"]) + " \udcff\n"  # a byte 0xff, kept
    with pytest.raises(GuardRefusal) as info:
        _unit(before, after, Change("A", "submissions/mallory.yaml"))
    assert info.value.code == "PR_SIGNERS_INVALID"
    assert "not UTF-8" in info.value.message


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
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keys: dict[str, str]) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _write(root, SIGNERS, base_text(keys))
    _write(root, "submissions/other.yaml", RECORD.format("Other"))
    _write(root, "submissions/third.yaml", RECORD.format("Third"))
    _write(root, f"{OLD_RUN}/manifest.json", "{}\n")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "base")
    _git(root, "checkout", "-q", "-b", "pr")
    monkeypatch.chdir(root)
    return root


def _register(repo: Path, keys: dict[str, str], lines: str, entrant: str = "mallory") -> None:
    _write(repo, f"submissions/{entrant}.yaml", RECORD.format(entrant.title()))
    _write(repo, SIGNERS, base_text(keys) + lines + "\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "register")


def _cli(repo: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BENCH), "pr-guard", "--base", "main"], cwd=repo, capture_output=True, text=True
    )


@pytest.mark.parametrize("case", ["copied-key", "rsa-key", "second-line-new"])
def test_git_a_registration_that_would_stop_the_publish_build_is_refused(
    repo: Path, keys: dict[str, str], case: str
) -> None:
    """Before: ``bench pr-guard`` exited 0 and printed nothing (a registration)."""
    _register(repo, keys, _bad_lines(keys)[case])
    with pytest.raises(GuardRefusal) as info:
        guard_revisions("main")
    assert info.value.code == "PR_SIGNERS_INVALID"
    result = _cli(repo)
    assert result.returncode == 1
    assert result.stderr.startswith(f"error[PR_SIGNERS_INVALID]: {SIGNERS}: line ")
    assert "Traceback" not in result.stderr


def test_git_a_second_key_for_a_published_entrant_is_refused(
    repo: Path, keys: dict[str, str]
) -> None:
    _register(repo, keys, signer("other", keys["mallory"]), entrant="other")
    result = _cli(repo)
    assert result.returncode == 1
    assert result.stderr.startswith(f"error[PR_REKEYS_PUBLISHED]: {SIGNERS}: adds a key")


def test_git_a_good_registration_passes(repo: Path, keys: dict[str, str]) -> None:
    _register(repo, keys, signer("mallory", keys["mallory"]))
    result = _cli(repo)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
