"""Shared fixtures for the generator tests: the corpus inputs and one generated set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.cli.task_cmd import corpus_inputs
from bench.tasks.generators import build_tasks

REPO = Path(__file__).resolve().parents[2]
CORPORA = REPO / "corpora"
TASKS = REPO / "tasks"


@pytest.fixture(scope="session")
def corpus() -> tuple[dict[str, str], dict[str, bytes]]:
    return corpus_inputs(CORPORA)


@pytest.fixture(scope="session")
def generated(corpus: tuple[dict[str, str], dict[str, bytes]]) -> list[dict[str, Any]]:
    return build_tasks(corpus[0])
