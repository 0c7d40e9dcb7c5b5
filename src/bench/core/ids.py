"""Identifiers: the id grammar and run ids that sort by time and never collide."""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime

ID_PATTERN = r"^[a-z0-9][a-z0-9-]*$"
_ID_RE = re.compile(ID_PATTERN)
_RUN_ID_RE = re.compile(r"^\d{8}T\d{6}Z-[0-9a-f]{6}$")


def is_valid_id(value: str) -> bool:
    return bool(_ID_RE.match(value)) and len(value) <= 128


def new_run_id(now: datetime | None = None) -> str:
    """``20261202T114029Z-ca4ab2``: sorts by start time; the random tail avoids collisions."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    return f"{moment.strftime('%Y%m%dT%H%M%SZ')}-{os.urandom(3).hex()}"


def looks_like_run_id(value: str) -> bool:
    return bool(_RUN_ID_RE.match(value))


__all__ = ["ID_PATTERN", "is_valid_id", "looks_like_run_id", "new_run_id"]
