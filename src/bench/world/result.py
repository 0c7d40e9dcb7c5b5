"""What a tool call gives back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ToolResult:
    """A result or an error, and the passage ids a search returned (in rank order)."""

    result: Any = None
    error: str | None = None
    retrieved: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.error is None


__all__ = ["ToolResult"]
