"""Keys made by ssh-keygen, the reference implementation (the ``ssh_keygen`` fixture, in
tests/conftest.py, installs it when missing or fails loudly: interop tests never skip)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest


@pytest.fixture
def make_key(ssh_keygen: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    def make(name: str, kind: str = "ed25519") -> Path:
        path = tmp_path / "keys" / name
        path.parent.mkdir(exist_ok=True)
        extra = ["-b", "2048"] if kind == "rsa" else []
        subprocess.run(
            [ssh_keygen, "-q", "-t", kind, *extra, "-N", "", "-C", name, "-f", str(path)],
            check=True,
        )
        return path

    return make
