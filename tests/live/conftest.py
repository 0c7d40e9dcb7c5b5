"""Live tests: the real HTTP client against the real mock server on 127.0.0.1 (no patched
transports). Back-off and timeouts are tiny so the whole directory runs in seconds."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from bench.testing.mock_server import MockServer

FAST_RETRY: dict[str, Any] = {"max_attempts": 4, "base_s": 0.01, "cap_s": 0.05, "seed": 7}
FAST_TIMEOUTS: dict[str, Any] = {"connect_s": 2, "read_s": 5, "request_s": 5, "deadline_s": 10}


@pytest.fixture
def server() -> Iterator[MockServer]:
    with MockServer(max_seconds=120) as running:
        yield running


TargetWriter = Callable[..., Path]


def write_target(directory: Path, name: str, base_url: str, **fields: Any) -> Path:
    """An HTTP target file (``openai`` unless ``kind`` says otherwise) with fast retries."""
    data: dict[str, Any] = {
        "format_version": 1,
        "kind": "openai",
        "entrant": f"live-{name}",
        "display_name": f"live {name}",
        "model": "bench-mock",
        "base_url": base_url,
        "pricing": {"prompt_per_mtok": 1.0, "completion_per_mtok": 2.0},
        "params": {"temperature": 0},
        "retry": dict(FAST_RETRY),
        "timeouts": dict(FAST_TIMEOUTS),
    }
    data.update(fields)
    path = directory / "targets" / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture
def target_file(mini: Path) -> TargetWriter:
    """``target_file(name, base_url, **fields)`` writes ``mini/targets/<name>.yaml``."""

    def write(name: str, base_url: str, **fields: Any) -> Path:
        return write_target(mini, name, base_url, **fields)

    return write
