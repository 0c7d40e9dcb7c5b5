"""Task builders for the world tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bench.tasks.model import Task

MakeTask = Callable[..., Task]


def build_task(
    tools: list[dict[str, Any]],
    state: dict[str, Any] | None = None,
    corpus: list[str] | None = None,
) -> Task:
    return Task.model_validate(
        {
            "id": "world-test",
            "family": "tool-trajectory",
            "split": "public",
            "input": [{"role": "user", "content": "Where is my order?"}],
            "tools": tools,
            "state": state or {},
            "corpus": corpus or [],
            "expectations": [{"type": "contains", "value": "order"}],
            "because": "exercises the mock world",
        }
    )


@pytest.fixture
def make_task() -> MakeTask:
    return build_task
