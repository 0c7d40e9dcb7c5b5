"""The names a run asks the board to show, and why one cannot be shown: one rule for
``bench run`` (a warning at the start), ``bench bundle`` (refused before signing) and
``bench verify`` (``TEXT_INVALID``, ``NAME_LOOKALIKE``), so a bundle that bundles is one that
verifies.

A run shows its ``display_name`` (beside the registered name, as a row's label, on a chart
point) and its model (``comparable.model``, in the card's settings): either could pass for
another entrant's or another model's name.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping

from .lookalike import name_problem
from .text import FORBIDDEN_CATEGORIES, display_problem


def run_names(display_name: str, comparable: Mapping[str, object]) -> list[tuple[str, str]]:
    """``(field, name)`` of every name a run shows: its display name, and its model when the
    comparable settings name one."""
    names = [("display_name", display_name)]
    model = comparable.get("model")
    if isinstance(model, str):
        names.append(("comparable.model", model))
    return names


def name_refusal(field: str, name: str) -> tuple[str, str] | None:
    """``(verify code, problem)`` when ``bench verify`` refuses ``name`` shown as ``field``
    (``run_names``): ``TEXT_INVALID`` for a control or format character (and, for the display
    name, text that is not NFC, empty or too long), else ``NAME_LOOKALIKE``
    (``lookalike.name_problem``); None when it can be shown."""
    if field == "display_name":
        problem = display_problem(name)
    else:
        bad = next((ch for ch in name if unicodedata.category(ch) in FORBIDDEN_CATEGORIES), None)
        problem = None
        if bad is not None:
            char = unicodedata.name(bad, f"U+{ord(bad):04X}")
            problem = f"contains a control or format character ({char})"
    if problem is not None:
        return "TEXT_INVALID", problem
    problem = name_problem(name)
    return None if problem is None else ("NAME_LOOKALIKE", problem)


__all__ = ["name_refusal", "run_names"]
