"""The shape of a resource cap, shared by a task's budget and a run's budgets."""

from __future__ import annotations

from pydantic import Field

from .models import Strict


class Budget(Strict):
    """Caps; ``None`` means no cap. Exceeding one makes an attempt *over budget* (a failure)."""

    tokens: int | None = Field(None, ge=0)
    tool_calls: int | None = Field(None, ge=0)
    seconds: float | None = Field(None, gt=0)
    dollars: float | None = Field(None, ge=0)


__all__ = ["Budget"]
