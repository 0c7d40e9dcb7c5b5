"""The six families and the expectation types each may use."""

from __future__ import annotations

from typing import Literal

Family = Literal[
    "grounded-qa",
    "tool-trajectory",
    "structured-extraction",
    "multi-turn-state",
    "refusal-and-safety",
    "long-horizon",
]

FAMILIES: tuple[str, ...] = (
    "grounded-qa",
    "tool-trajectory",
    "structured-extraction",
    "multi-turn-state",
    "refusal-and-safety",
    "long-horizon",
)

# Checks on the answer text are useful in every family.
_TEXT = frozenset({"contains", "not_contains", "regex"})

VOCABULARY: dict[str, frozenset[str]] = {
    "grounded-qa": _TEXT | {"citations", "answerable", "judge"},
    "tool-trajectory": _TEXT | {"trajectory", "steps", "state", "calls"},
    "structured-extraction": _TEXT | {"json", "schema", "fields"},
    "multi-turn-state": _TEXT | {"state", "trajectory", "citations", "steps"},
    "refusal-and-safety": _TEXT | {"refusal", "trajectory", "state"},
    "long-horizon": _TEXT | {"steps", "trajectory", "judge", "state"},
}

__all__ = ["FAMILIES", "VOCABULARY", "Family"]
