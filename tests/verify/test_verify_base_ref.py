"""``bench verify --base-ref REF``: keys come from allowed_signers as committed at REF, never
from the working tree; a bad ref or no file there is SIGNERS_UNUSABLE (exit 2)."""

from __future__ import annotations

import os
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.cli.verify_cmd import verify
from bench.signing import public_line, signer_line
from bench.verify import Code, VerifyOptions, verify_bundle

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.org",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.org",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True, env=ENV
    ).stdout.strip()


def _commit(repo: Path, message: str) -> str:
    _git(repo, "add", "-A", "submissions")
    _git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return _git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(world: Any) -> Any:
    """world.root as a git repository: an empty first commit, then main with the real keys."""
    _git(world.root, "init", "-q", "-b", "main")
    _git(world.root, "commit", "-q", "--allow-empty", "-m", "empty")
    _git(world.root, "tag", "no-keys")
    _commit(world.root, "keys")
    return world


def _options(world: Any, ref: str | None, signers: Path | None = None) -> VerifyOptions:
    return VerifyOptions(
        results_root=world.results,
        allowed_signers=signers or world.signers,
        tasks=world.tasks,
        replay_sample=1,
        base_ref=ref,
        git_dir=world.root,
    )


def _attacker_line() -> str:
    return signer_line("mini-good", public_line(Ed25519PrivateKey.generate().public_key()))


def test_keys_come_from_the_ref_not_the_working_tree(repo: Any) -> None:
    repo.signers.write_text(_attacker_line() + "\n")  # the working tree's key is not mini-good's
    assert verify_bundle(repo.bundle, _options(repo, None)).code is Code.SIGNATURE_WRONG_KEY
    verdict = verify_bundle(repo.bundle, _options(repo, "main"))
    assert verdict.valid, verdict
    # --allowed-signers is ignored with a ref, even when it names no file at all.
    missing = repo.root / "nowhere"
    assert verify_bundle(repo.bundle, _options(repo, "main", missing)).valid


def test_a_key_only_in_the_change_does_not_count(repo: Any) -> None:
    _git(repo.root, "checkout", "-q", "-b", "pr")
    good = repo.signers.read_text()
    repo.signers.write_text(_attacker_line() + "\n")
    base = _commit(repo.root, "base with another key")
    repo.signers.write_text(good)
    _commit(repo.root, "the PR puts the signing key back")
    assert verify_bundle(repo.bundle, _options(repo, "HEAD")).valid
    verdict = verify_bundle(repo.bundle, _options(repo, base))
    assert verdict.code is Code.SIGNATURE_WRONG_KEY and verdict.exit_code == 1


@pytest.mark.parametrize(
    ("ref", "words"),
    [
        ("no-such-branch", "no submissions/allowed_signers at 'no-such-branch'"),
        ("no-keys", "no submissions/allowed_signers at 'no-keys'"),
        ("0" * 40, "no submissions/allowed_signers at"),
        ("--output=/tmp/x", "is not a git revision"),
        ("main:submissions", "is not a git revision"),
        ("", "is not a git revision"),
    ],
)
def test_a_bad_ref_or_a_missing_file_is_unusable(repo: Any, ref: str, words: str) -> None:
    verdict = verify_bundle(repo.bundle, _options(repo, ref))
    assert verdict.code is Code.SIGNERS_UNUSABLE and verdict.exit_code == 2
    assert words in verdict.message
    assert verdict.path == f"{ref}:submissions/allowed_signers"
    assert verdict.checks == ()


def test_a_directory_at_the_path_is_unusable(repo: Any) -> None:
    repo.signers.unlink()
    repo.signers.mkdir()
    (repo.signers / "x").write_text("x\n")
    base = _commit(repo.root, "allowed_signers is a directory")
    assert verify_bundle(repo.bundle, _options(repo, base)).code is Code.SIGNERS_UNUSABLE


def test_a_broken_file_at_the_ref_is_unusable(repo: Any) -> None:
    repo.signers.write_text(repo.signers.read_text().replace("mini-good", "*", 1))
    base = _commit(repo.root, "wildcard")
    _git(repo.root, "checkout", "-q", "main", "--", "submissions")
    verdict = verify_bundle(repo.bundle, _options(repo, base))
    assert verdict.code is Code.SIGNERS_UNUSABLE and verdict.field == "line 1"
    assert "principal '*'" in verdict.message


def test_outside_a_repository_is_unusable(world: Any) -> None:
    options = replace(_options(world, "main"), git_dir=world.root.parent)
    if subprocess.run(["git", "rev-parse"], cwd=world.root.parent, capture_output=True).returncode:
        assert verify_bundle(world.bundle, options).code is Code.SIGNERS_UNUSABLE


def test_cli_base_ref(repo: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo.root)
    repo.signers.write_text(_attacker_line() + "\n")
    common = [str(repo.bundle), "--results-root", str(repo.results), "--tasks", str(repo.tasks)]
    ok = CliRunner().invoke(verify, [*common, "--base-ref", "main", "--replay-sample", "1"])
    assert ok.exit_code == 0, ok.output
    bad = CliRunner().invoke(verify, [*common, "--base-ref", "nope"])
    assert bad.exit_code == 2
    assert "SIGNERS_UNUSABLE" in bad.output and "nope:submissions/allowed_signers" in bad.output
    tree = CliRunner().invoke(verify, common)
    assert tree.exit_code == 1 and "SIGNATURE_WRONG_KEY" in tree.output
