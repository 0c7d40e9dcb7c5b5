"""Both directions against ssh-keygen: our signatures verify there, theirs verify here."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from bench.signing import (
    NAMESPACE,
    AllowedSigners,
    SignatureError,
    load_private_key,
    public_blob,
    public_line,
    sign,
    signer_line,
    verify,
)
from bench.signing.errors import KeyError_

MESSAGE = b'{"entrant":"alice","run_id":"20260101T000000Z-abcdef"}'
MakeKey = Callable[..., Path]


def _signers(tmp_path: Path, **keys: Path) -> Path:
    lines = []
    for principal, key in keys.items():
        pub = key.with_suffix(".pub").read_text().split()
        lines.append(signer_line(principal, f"{pub[0]} {pub[1]}"))
    path = tmp_path / "allowed_signers"
    path.write_text("\n".join(lines) + "\n")
    return path


def _ssh_verify(
    ssh_keygen: str, signers: Path, principal: str, sig: Path, message: bytes, namespace: str
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [ssh_keygen, "-Y", "verify", "-f", str(signers), "-I", principal, "-n", namespace,
         "-s", str(sig)],
        input=message,
        capture_output=True,
    )  # fmt: skip


def _ssh_sign(ssh_keygen: str, key: Path, message: Path, namespace: str) -> str:
    subprocess.run(
        [ssh_keygen, "-Y", "sign", "-f", str(key), "-n", namespace, str(message)],
        check=True,
        capture_output=True,
    )
    return message.with_name(message.name + ".sig").read_text()


def test_ours_verifies_with_ssh_keygen(ssh_keygen: str, make_key: MakeKey, tmp_path: Path) -> None:
    key = make_key("alice")
    signers = _signers(tmp_path, alice=key)
    sig = tmp_path / "manifest.json.sig"
    sig.write_text(sign(MESSAGE, load_private_key(key)))
    done = _ssh_verify(ssh_keygen, signers, "alice", sig, MESSAGE, NAMESPACE)
    assert done.returncode == 0, done.stderr
    assert b'Good "bundle-v1@bench-suite" signature for alice' in done.stdout
    # and ssh-keygen refuses the same signature for a changed message or another namespace
    assert _ssh_verify(ssh_keygen, signers, "alice", sig, MESSAGE + b" ", NAMESPACE).returncode
    assert _ssh_verify(ssh_keygen, signers, "alice", sig, MESSAGE, "git").returncode


def test_ssh_keygen_signature_verifies_with_ours(
    ssh_keygen: str, make_key: MakeKey, tmp_path: Path
) -> None:
    key = make_key("alice")
    signers = AllowedSigners.read(_signers(tmp_path, alice=key))
    message = tmp_path / "manifest.json"
    message.write_bytes(MESSAGE)
    theirs = _ssh_sign(ssh_keygen, key, message, NAMESPACE)
    assert verify(MESSAGE, theirs, signers.keys_for("alice")) == public_blob(
        load_private_key(key).public_key()
    )
    # Ed25519 is deterministic: our armour is byte-for-byte what ssh-keygen writes.
    assert sign(MESSAGE, load_private_key(key)) == theirs
    with pytest.raises(SignatureError) as bad:
        verify(MESSAGE + b"x", theirs, signers.keys_for("alice"))
    assert bad.value.reason == "bad" and bad.value.code == "SIGNATURE_INVALID"


def test_another_namespace_verifies_nowhere(
    ssh_keygen: str, make_key: MakeKey, tmp_path: Path
) -> None:
    key = make_key("alice")
    signers_file = _signers(tmp_path, alice=key)
    message = tmp_path / "manifest.json"
    message.write_bytes(MESSAGE)
    git_sig = _ssh_sign(ssh_keygen, key, message, "git")
    with pytest.raises(SignatureError) as ours:
        verify(MESSAGE, git_sig, AllowedSigners.read(signers_file).keys_for("alice"))
    assert ours.value.reason == "namespace"
    sig = message.with_name("manifest.json.sig")
    assert _ssh_verify(ssh_keygen, signers_file, "alice", sig, MESSAGE, NAMESPACE).returncode != 0
    # our own signature in another namespace is refused by ssh-keygen as well
    sig.write_text(sign(MESSAGE, load_private_key(key), namespace="git"))
    assert _ssh_verify(ssh_keygen, signers_file, "alice", sig, MESSAGE, NAMESPACE).returncode != 0


def test_wrong_key_and_unknown_principal(
    ssh_keygen: str, make_key: MakeKey, tmp_path: Path
) -> None:
    alice, mallory = make_key("alice"), make_key("mallory")
    signers_file = _signers(tmp_path, alice=alice)
    sig = tmp_path / "manifest.json.sig"
    sig.write_text(sign(MESSAGE, load_private_key(mallory)))
    with pytest.raises(SignatureError) as ours:
        verify(MESSAGE, sig.read_text(), AllowedSigners.read(signers_file).keys_for("alice"))
    assert ours.value.reason == "wrong_key"
    assert _ssh_verify(ssh_keygen, signers_file, "alice", sig, MESSAGE, NAMESPACE).returncode
    sig.write_text(sign(MESSAGE, load_private_key(alice)))
    assert _ssh_verify(ssh_keygen, signers_file, "mallory", sig, MESSAGE, NAMESPACE).returncode
    assert AllowedSigners.read(signers_file).keys_for("mallory") == []


@pytest.mark.parametrize("kind", ["rsa", "ecdsa"])
def test_other_key_types_are_refused(
    kind: str, ssh_keygen: str, make_key: MakeKey, tmp_path: Path
) -> None:
    key = make_key(f"other-{kind}", kind)
    with pytest.raises(KeyError_) as refused:
        load_private_key(key)
    assert refused.value.code == "KEY_TYPE"
    # an ssh-keygen signature with that key is refused for its type, whatever the signers say
    ed = make_key("alice")
    message = tmp_path / "m"
    message.write_bytes(MESSAGE)
    theirs = _ssh_sign(ssh_keygen, key, message, NAMESPACE)
    with pytest.raises(SignatureError) as bad:
        verify(MESSAGE, theirs, [public_blob(load_private_key(ed).public_key())])
    assert bad.value.reason == "key_type"
    # and allowed_signers refuses the key line
    pub = key.with_suffix(".pub").read_text().split()
    (tmp_path / "as").write_text(signer_line("alice", f"{pub[0]} {pub[1]}") + "\n")
    with pytest.raises(Exception) as lint:
        AllowedSigners.read(tmp_path / "as")
    assert getattr(lint.value, "code", None) == "SIGNERS_INVALID"


def test_encrypted_key_is_refused_with_a_hint(ssh_keygen: str, tmp_path: Path) -> None:
    path = tmp_path / "locked"
    subprocess.run(
        [ssh_keygen, "-q", "-t", "ed25519", "-N", "secret-pass", "-f", str(path)], check=True
    )
    with pytest.raises(KeyError_) as refused:
        load_private_key(path)
    assert refused.value.code == "KEY_INVALID"
    assert "passphrase" in refused.value.message


def test_public_line_matches_ssh_keygen(make_key: MakeKey) -> None:
    key = make_key("alice")
    assert (
        key.with_suffix(".pub")
        .read_text()
        .startswith(public_line(load_private_key(key).public_key()) + " ")
    )
