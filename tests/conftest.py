"""Shared fixtures: the mini task set and its scripted entrants live in tests/fixtures/mini."""

from __future__ import annotations

import shutil
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
