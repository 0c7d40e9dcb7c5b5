"""Display text: what a name may look like on the board.

A display name (a run's ``display_name``, a registry file's ``display_name``) is shown beside
others in a ranked table, so it must look like what it is: it is NFC-normalised (so one name
has one form), and control, format (bidi overrides and isolates, zero-width characters), line
and paragraph separators, surrogate, private-use and unassigned characters are not allowed in
it (a right-to-left override can make one entrant read as another). ``display_problem`` says
why a name is refused (``bench verify``, ``TEXT_INVALID``); ``display_text`` neutralises it
(the board, which never trusts that a check ran before it).
"""

from __future__ import annotations

import unicodedata

FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
MAX_DISPLAY = 200


def _bad(ch: str) -> bool:
    return unicodedata.category(ch) in FORBIDDEN_CATEGORIES


def display_problem(value: str) -> str | None:
    """Why ``value`` cannot be shown as a name (None when it can)."""
    for ch in value:
        if _bad(ch):
            name = unicodedata.name(ch, f"U+{ord(ch):04X}")
            return f"contains a control or format character ({name})"
    if unicodedata.normalize("NFC", value) != value:
        return "is not NFC-normalised"
    if not value.strip():
        return "is empty"
    if len(value) > MAX_DISPLAY:
        return f"is longer than {MAX_DISPLAY} characters"
    return None


def display_text(value: str) -> str:
    """``value`` made safe to show: NFC, forbidden characters removed, cut to length; a name
    left empty reads ``(unnamed)``."""
    cleaned = "".join(ch for ch in unicodedata.normalize("NFC", value) if not _bad(ch))
    cleaned = " ".join(cleaned.split())[:MAX_DISPLAY]
    return cleaned or "(unnamed)"


__all__ = ["FORBIDDEN_CATEGORIES", "display_problem", "display_text"]
