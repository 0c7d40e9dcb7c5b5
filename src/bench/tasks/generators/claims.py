"""The claims a generated task makes, and how each one is looked up.

* a must-include phrase is in the passage it is attributed to, in the document's spelling
  (whitespace runs count as one space, nothing else is normalised);
* every tool an expectation or a call names is in the task's tool list;
* every applied call appears, with its arguments, in the transcript it claims;
* every extraction value appears in the rendered invoice, in a form its kind allows.

The generator refuses data that breaks one; ``tests/generators`` re-checks the written set.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

_WHITESPACE = re.compile(r"\s+")

MONTHS = {
    "en": (
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ),
    "tr": (
        "Ocak",
        "Şubat",
        "Mart",
        "Nisan",
        "Mayıs",
        "Haziran",
        "Temmuz",
        "Ağustos",
        "Eylül",
        "Ekim",
        "Kasım",
        "Aralık",
    ),
}

CURRENCY_MARKS = {
    "EUR": ("EUR", "€", "euro"),
    "USD": ("USD", "$"),
    "GBP": ("GBP", "£"),
    "TRY": ("TRY", "TL", "₺"),
}


def squash(text: str) -> str:
    return _WHITESPACE.sub(" ", text).strip()


def phrase_in_passage(phrase: str, passage_text: str) -> bool:
    """The phrase occurs in the passage as written (case-sensitive, whitespace squashed)."""
    return squash(phrase) in squash(passage_text)


def tools_named(expectations: Iterable[Mapping[str, Any]]) -> set[str]:
    """Every tool name the expectations refer to."""
    found: set[str] = set()
    for expectation in expectations:
        kind = expectation.get("type")
        if kind == "trajectory":
            for key in ("required", "order", "forbidden"):
                found.update(expectation.get(key, []))
        elif kind == "steps":
            found.update(step["tool"] for step in expectation.get("steps", []))
        elif kind == "state":
            found.add(expectation["tool"])
    return found


def transcript_calls(messages: Iterable[Mapping[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """(tool, arguments) of every call an assistant message in the transcript made."""
    calls: list[tuple[str, dict[str, Any]]] = []
    for message in messages:
        if message.get("role") == "assistant":
            for call in message.get("tool_calls", []):
                calls.append((call["name"], dict(call.get("arguments", {}))))
    return calls


def call_in_transcript(
    tool: str, args: Mapping[str, Any], messages: Iterable[Mapping[str, Any]]
) -> bool:
    return any(
        name == tool and arguments == dict(args) for name, arguments in transcript_calls(messages)
    )


def _amounts(value: float) -> set[str]:
    sign = "-" if value < 0 else ""
    magnitude = abs(value)
    plain = f"{magnitude:.2f}"
    whole, cents = plain.split(".")
    grouped = f"{int(whole):,}"
    forms = {
        f"{sign}{plain}",
        f"{sign}{grouped}.{cents}",
        f"{sign}{grouped.replace(',', '.')},{cents}",
        f"{sign}{whole},{cents}",
    }
    return forms


def _dates(iso: str) -> set[str]:
    year, month, day = iso.split("-")
    d, m = int(day), int(month)
    forms = {iso, f"{day}.{month}.{year}", f"{day}-{month}-{year}", f"{day}/{month}/{year}"}
    forms.add(f"{month}/{day}/{year}")
    for names in MONTHS.values():
        forms.add(f"{d} {names[m - 1]} {year}")
    return forms


_ISO_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


def renderings(value: Any) -> set[str]:
    """The forms in which ``value`` may appear in a document."""
    if isinstance(value, bool) or value is None:
        return set()
    if isinstance(value, int | float):
        return _amounts(float(value))
    text = str(value)
    if _ISO_DATE.match(text):
        return _dates(text)
    if text in CURRENCY_MARKS:
        return set(CURRENCY_MARKS[text])
    return {text}


def value_in_document(value: Any, document: str) -> bool:
    """True when some rendering of ``value`` occurs in ``document`` (case-insensitive).
    ``None`` (the document has no such value) is checked by the task's ``because``, not here."""
    if value is None:
        return True
    folded = squash(document).casefold()
    return any(form.casefold() in folded for form in renderings(value))


__all__ = [
    "CURRENCY_MARKS",
    "call_in_transcript",
    "phrase_in_passage",
    "renderings",
    "squash",
    "tools_named",
    "transcript_calls",
    "value_in_document",
]
