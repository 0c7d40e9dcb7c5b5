"""Base class for every on-disk and wire model: strict, versioned."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

FORMAT_VERSION: Literal[1] = 1


class Strict(BaseModel):
    """Unknown fields are refused; values are validated on assignment."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


__all__ = ["FORMAT_VERSION", "Strict"]
