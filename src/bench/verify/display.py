"""The names a bundle asks the board to show: NFC, no control or format characters; and the
settings it shows beside them (``comparable``, and the judge it claims) free of bidirectional
controls."""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.core.text import FORBIDDEN_CATEGORIES, display_problem
from bench.records.bundle import CONFIG

from .codes import Code
from .failure import VerifyFailure
from .records import BundleRun

BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Embeddings, overrides and isolates: they reorder the text around them as it is drawn, so
a string holding one can be read as other words than it holds ("Trojan Source")."""


def _strings(value: Any, where: str) -> Iterator[tuple[str, str]]:
    """Every string of ``value`` (keys too) with its field path."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            # The path names a key that may hold the very character refused: escaped, so
            # the verdict (a PR comment) never draws it.
            name = str(key)
            shown = ascii(name)[1:-1] if any(_bad(ch) for ch in name) else name
            yield f"{where}.{shown}", name
            yield from _strings(item, f"{where}.{shown}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, f"{where}[{index}]")


def _bad(ch: str) -> bool:
    return unicodedata.category(ch) in FORBIDDEN_CATEGORIES


def _refuse(bundle: Path, field: str, problem: str, what: str = "a name") -> VerifyFailure:
    return VerifyFailure(
        Code.TEXT_INVALID,
        f"{what} the board shows {problem}",
        path=str(bundle / CONFIG),
        field=field,
    )


def _char(ch: str) -> str:
    return unicodedata.name(ch, f"U+{ord(ch):04X}")


def check_display_names(bundle: Path, run: BundleRun) -> None:
    # The board shows the run's display name; the target's own copy is never shown (it is
    # held only to the text rule every record follows).
    fields = {"display_name": run.config.display_name}
    for field, value in fields.items():
        problem = display_problem(value)
        if problem is not None:
            raise _refuse(bundle, field, problem)
    # The card shows the comparable settings as the row's model and settings, character for
    # character: its model is a name (no control or format character at all), and no string
    # of it (or of the judge the run claims) may reorder the text drawn around it.
    model = run.config.comparable.get("model")
    if isinstance(model, str):
        bad = next((ch for ch in model if _bad(ch)), None)
        if bad is not None:
            problem = f"contains a control or format character ({_char(bad)})"
            raise _refuse(bundle, "comparable.model", problem)
    shown = _strings(run.config.comparable, "comparable")
    if run.config.judge is not None:  # the card shows its fingerprint; the rest is beside it
        shown = itertools.chain(shown, _strings(run.config.judge, "judge"))
    for field, text in shown:
        bad = next((ch for ch in text if ch in BIDI_CONTROLS), None)
        if bad is not None:
            problem = f"contains a bidirectional control ({_char(bad)})"
            raise _refuse(bundle, field, problem, "a setting")


__all__ = ["BIDI_CONTROLS", "check_display_names"]
