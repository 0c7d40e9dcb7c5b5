"""Identifiers: one ASCII rule for every id and path component, and run ids that sort by time
and never collide.

**The one rule** (docs/SUBMISSIONS.md, "Identifiers"). Every entrant id, run id, task id and
every path component of a bundle is drawn from the ASCII alphabet ``A-Z a-z 0-9 . _ -``, starts
with a letter or a digit, is at most 128 characters, and has no ``..``. Each kind narrows it:

* ``entrant``, ``task``: lowercase letters, digits and ``-`` (``[a-z0-9][a-z0-9-]*``), so an id
  has no case twin; an entrant id is at most 64 characters;
* ``run``: ``YYYYMMDDTHHMMSSZ-xxxxxx`` (ASCII digits, six lowercase hex digits);
* ``file``: the whole alphabet (``manifest.json.sig``).

``identifier_problem`` is the only check: ``bench pr-guard``, ``bench verify``, the registry and
the board all call it (directly or through ``is_valid_id`` / ``looks_like_run_id``). Python's
``\\d`` and ``\\w`` match any script's digits and letters and ``$`` matches before a final
newline, so nothing here uses them: full-width digits or a trailing newline are refused.
"""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from typing import Literal

IdKind = Literal["entrant", "task", "run", "file"]

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"
MAX_LENGTH = 128
MAX_ENTRANT_LENGTH = 64
# For pydantic's (Rust) regex, where `$` is the end of the text and classes are as written.
ID_PATTERN = r"^[a-z0-9][a-z0-9-]*$"
_ALLOWED = frozenset(ALPHABET)
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")
_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_RUN_ID_RE = re.compile(r"[0-9]{8}T[0-9]{6}Z-[0-9a-f]{6}", re.ASCII)


def identifier_problem(value: object, kind: IdKind) -> str | None:
    """Why ``value`` is not a valid identifier of ``kind`` (None when it is)."""
    if not isinstance(value, str):
        return "is not a string"
    if not value:
        return "is empty"
    limit = MAX_ENTRANT_LENGTH if kind == "entrant" else MAX_LENGTH
    if len(value) > limit:
        return f"is longer than {limit} characters"
    if not _ALLOWED.issuperset(value):
        bad = next(ch for ch in value if ch not in _ALLOWED)
        return f"has {ascii(bad)}, outside the ASCII alphabet [A-Za-z0-9._-]"
    if value[0] not in _START:
        return "does not start with an ASCII letter or digit"
    if ".." in value:
        return "contains '..'"
    if kind in ("entrant", "task") and not _LOWER.issuperset(value):
        return "has characters outside [a-z0-9-] (lowercase letters, digits and '-')"
    if kind == "run" and not _RUN_ID_RE.fullmatch(value):
        return "is not a run id (YYYYMMDDTHHMMSSZ-xxxxxx, ASCII digits and hex)"
    return None


def is_valid_id(value: str) -> bool:
    """An entrant or task id (``identifier_problem(value, "task")`` is None)."""
    return identifier_problem(value, "task") is None


def new_run_id(now: datetime | None = None) -> str:
    """``20261202T114029Z-ca4ab2``: sorts by start time; the random tail avoids collisions."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    return f"{moment.strftime('%Y%m%dT%H%M%SZ')}-{os.urandom(3).hex()}"


def looks_like_run_id(value: str) -> bool:
    return identifier_problem(value, "run") is None


__all__ = [
    "ALPHABET",
    "ID_PATTERN",
    "IdKind",
    "identifier_problem",
    "is_valid_id",
    "looks_like_run_id",
    "new_run_id",
]
