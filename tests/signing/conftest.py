"""ssh-keygen is the reference implementation: install it when missing (CI as root), or fail
loudly — interop tests never skip."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest


def ensure_ssh_keygen() -> str:
    found = shutil.which("ssh-keygen")
    if found:
        return found
    apt = shutil.which("apt-get")
    if apt and os.geteuid() == 0:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run([apt, "update"], check=True, capture_output=True, env=env)
        subprocess.run(
            [apt, "install", "-y", "openssh-client"], check=True, capture_output=True, env=env
        )
        found = shutil.which("ssh-keygen")
        if found:
            return found
    pytest.fail(
        "ssh-keygen (openssh-client) is required for the SSHSIG interop tests and could not be "
        "installed (needs root and apt-get); install openssh-client",
        pytrace=False,
    )


@pytest.fixture(scope="session")
def ssh_keygen() -> str:
    return ensure_ssh_keygen()


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
