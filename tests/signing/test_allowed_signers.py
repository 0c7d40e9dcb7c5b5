"""allowed_signers lint: every rule refuses exactly the line that breaks it."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.cli.submissions_cmd import key, submissions
from bench.signing import AllowedSigners, SignersError, lint_text, public_line, signer_line


def _pub() -> str:
    return public_line(Ed25519PrivateKey.generate().public_key())


def test_a_good_file_passes() -> None:
    alice, bob = signer_line("alice", _pub()), signer_line("bob", _pub())
    text = f"# entrants\n\n{alice} alice@example\n{bob}\n"
    signers, problems = lint_text(text)
    assert problems == []
    assert [s.principal for s in signers] == ["alice", "bob"]


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ('* namespaces="bundle-v1@bench-suite" {key}', "one literal id"),
        ('alice,bob namespaces="bundle-v1@bench-suite" {key}', "one literal id"),
        ('!bob namespaces="bundle-v1@bench-suite" {key}', "one literal id"),
        ('al?ce namespaces="bundle-v1@bench-suite" {key}', "one literal id"),
        ('Alice namespaces="bundle-v1@bench-suite" {key}', "not an entrant id"),
        ("alice {key}", "exactly one option"),
        ('alice namespaces="git" {key}', 'must be "bundle-v1@bench-suite"'),
        ('alice namespaces="bundle-v1@bench-suite,git" {key}', "must be"),
        ('alice cert-authority,namespaces="bundle-v1@bench-suite" {key}', "exactly one option"),
        ('alice namespaces="bundle-v1@bench-suite" ssh-rsa AAAAB3NzaC1yc2E=', "only ssh-ed25519"),
        ('alice namespaces="bundle-v1@bench-suite" ssh-ed25519 !!!', "base64"),
        ('alice namespaces="bundle-v1@bench-suite"', "no key"),
    ],
)
def test_bad_lines_are_refused(line: str, needle: str) -> None:
    _, problems = lint_text(line.format(key=_pub()))
    assert len(problems) == 1 and needle in problems[0].message, problems


def test_duplicate_principal_and_key(tmp_path: Path) -> None:
    one = _pub()
    text = "\n".join(
        [signer_line("alice", one), signer_line("alice", _pub()), signer_line("bob", one)]
    )
    _, problems = lint_text(text)
    assert [p.line for p in problems] == [2, 3]
    path = tmp_path / "allowed_signers"
    path.write_text(text)
    with pytest.raises(SignersError) as refused:
        AllowedSigners.read(path)
    assert refused.value.code == "SIGNERS_INVALID" and refused.value.field == "line 2"


def test_cli_lint_and_register(tmp_path: Path) -> None:
    private = Ed25519PrivateKey.generate()
    pub = tmp_path / "id_ed25519.pub"
    pub.write_text(public_line(private.public_key()) + " me@host\n")
    runner = CliRunner()
    registered = runner.invoke(key, ["register", "--entrant", "alice", "--pubkey", str(pub)])
    assert registered.exit_code == 0, registered.output
    line = registered.output.strip()
    assert line == signer_line("alice", public_line(private.public_key()))
    (tmp_path / "submissions").mkdir()
    signers = tmp_path / "submissions" / "allowed_signers"
    signers.write_text(line + "\n")
    (tmp_path / "submissions" / "alice.yaml").write_text(
        "display_name: Alice\norganisation: A\nmodel: m\nlinks: []\ncontact: a@a.example\n"
        "license: MIT\n"
    )
    ok = runner.invoke(submissions, ["lint", "--dir", str(tmp_path / "submissions")])
    assert ok.exit_code == 0 and "ok" in ok.output
    signers.write_text(line.replace("alice", "*", 1) + "\n")
    bad = runner.invoke(submissions, ["lint", "--dir", str(tmp_path / "submissions")])
    assert bad.exit_code == 1 and ":1: error[SIGNERS_INVALID]: principal '*'" in bad.output


def test_register_refuses_other_key_types(tmp_path: Path) -> None:
    pub = tmp_path / "id_rsa.pub"
    pub.write_text("ssh-rsa " + base64.b64encode(b"\x00\x00\x00\x07ssh-rsa").decode() + "\n")
    result = CliRunner().invoke(key, ["register", "--entrant", "alice", "--pubkey", str(pub)])
    assert result.exit_code != 0
    assert isinstance(result.exception, SignersError) or result.exception is not None
    assert getattr(result.exception, "code", None) == "KEY_TYPE"
