"""Every Python example in docs/API.md runs, in order, in a temporary copy of the examples."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import bench.api

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = re.findall(r"```python\n(.*?)```", (REPO / "docs" / "API.md").read_text(), re.S)


def test_the_page_has_examples_and_the_api_is_pinned() -> None:
    assert len(EXAMPLES) >= 4
    assert bench.api.__all__ == ["build_board", "compare", "run", "show", "verify"]


def test_every_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # No templates or methodology beside the examples: the board reads its packaged ones.
    shutil.copytree(
        REPO / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("__pycache__")
    )
    monkeypatch.chdir(tmp_path)
    for number, code in enumerate(EXAMPLES, start=1):
        namespace: dict[str, object] = {"__name__": f"api_example_{number}"}
        exec(compile(code, f"docs/API.md example {number}", "exec"), namespace)  # noqa: S102
