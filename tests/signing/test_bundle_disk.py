"""A disk that fills (or goes read-only) while `bench bundle` writes is said as it is, naming
the bundle, and leaves nothing: it was reported as "a bundle for this run appeared meanwhile"
(BUNDLE_EXISTS), which sent the contributor looking for a bundle that was never there."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.core.errors import RunStoreError
from bench.records import RunDir
from bench.runner import RunRequest, start_run
from bench.signing import public_line, signer_line
from bench.signing.bundle import build_bundle
from bench.testing.keys import write_private_key

MINI = Path(__file__).resolve().parents[1] / "fixtures" / "mini"
ENTRANT = "mini-good"


@pytest.fixture
def signed_run(tmp_path: Path) -> tuple[Path, Path, Path]:
    for part in ("tasks", "corpora", "targets"):
        shutil.copytree(MINI / part, tmp_path / part)
    shutil.copy(MINI / "agents.py", tmp_path / "agents.py")
    key = Ed25519PrivateKey.generate()
    write_private_key(tmp_path / "key", key)
    signers = tmp_path / "allowed_signers"
    signers.write_text(signer_line(ENTRANT, public_line(key.public_key())) + "\n")
    run, status = start_run(
        RunRequest(
            tasks=tmp_path / "tasks",
            target_file=tmp_path / "targets" / "good.yaml",
            runs_dir=tmp_path / "runs",
            split="public",
        )
    )
    assert status.status == "complete"
    return run.path, tmp_path / "key", signers


def bundle(run: Path, key: Path, signers: Path, out: Path) -> Path:
    return build_bundle(
        RunDir(run), entrant=ENTRANT, key_file=key, out_root=out, allowed_signers=signers
    )


def test_a_full_disk_names_the_bundle_and_leaves_nothing(
    signed_run: tuple[Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, key, signers = signed_run
    out = tmp_path / "results"
    real_write = os.write
    calls = [0]

    def filling(fd: int, data: bytes) -> int:
        calls[0] += 1
        if calls[0] > 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", filling)
    with pytest.raises(OSError) as info:
        bundle(run, key, signers, out)
    monkeypatch.setattr(os, "write", real_write)
    assert not isinstance(info.value, RunStoreError)
    assert info.value.errno == errno.ENOSPC
    destination = out / ENTRANT / run.name
    assert info.value.filename == str(destination)
    assert not out.exists()  # no bundle, no staging directory, no results/<entrant>/ (F16)
    # and with room again, the same command writes it
    assert bundle(run, key, signers, out) == destination


def test_a_bundle_that_exists_is_still_bundle_exists(
    signed_run: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    run, key, signers = signed_run
    out = tmp_path / "results"
    bundle(run, key, signers, out)
    with pytest.raises(RunStoreError) as info:
        bundle(run, key, signers, out)
    assert info.value.code == "BUNDLE_EXISTS"
