"""Shared fixtures: the mini task set and its scripted entrants live in tests/fixtures/mini."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
MINI = FIXTURES / "mini"
REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def mini(tmp_path: Path) -> Path:
    """A private copy of the mini task set, corpus, agents and targets."""
    target = tmp_path / "mini"
    shutil.copytree(MINI, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def ensure_ssh_keygen() -> str:
    """ssh-keygen, the reference SSHSIG implementation: installed when missing (CI as root), or
    the test fails loudly. Tests that need it never skip."""
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
        "ssh-keygen (openssh-client) is required for the SSHSIG tests and could not be "
        "installed (needs root and apt-get); install openssh-client",
        pytrace=False,
    )


@pytest.fixture(scope="session")
def ssh_keygen() -> str:
    return ensure_ssh_keygen()
