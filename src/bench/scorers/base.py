"""What every scorer is handed, the registry that maps a type name to its scorer, and the
sentence helpers the scorers share.

A scorer is a plain function ``(expectation, context) -> Verdict``. It reads only what the
context holds: the task, the trace, the set of passage ids the task's corpus contains (so
this package never needs to import the corpus), and the run's judge if it has one. Every
verdict carries a sentence, because the sentence is what a person reads in a failure list.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol, TypeVar, cast

from bench.core.score import Verdict
from bench.core.trace import Trace
from bench.tasks.expectations import EXPECTATION_TYPES, Expectation
from bench.tasks.model import Task


class JudgeOpinion(Protocol):
    """What a judge said about one answer."""

    @property
    def passed(self) -> bool: ...

    @property
    def reason(self) -> str: ...


class JudgeService(Protocol):
    """The run's LLM judge, as the ``judge`` scorer sees it (``bench.scorers.judge``).

    ``decide`` raises ``JudgeUnavailable`` when the judge could not decide (an outage, an
    unparseable reply). ``trusted`` is false until a calibration on file clears the floor;
    ``trust_note`` says why in a few words (e.g. ``κ 0.41 is below the floor 0.70``).
    """

    @property
    def trusted(self) -> bool: ...

    @property
    def trust_note(self) -> str: ...

    def decide(self, rubric: str, question: str, answer: str) -> JudgeOpinion: ...


@dataclass(frozen=True)
class ScoringContext:
    """Everything a check may read about one attempt."""

    task: Task
    trace: Trace
    known_passages: frozenset[str]
    """Every passage id in the task's corpus (empty when the task has no corpus)."""
    judge: JudgeService | None = None
    """The run's judge; None when the run has none (judged expectations are then undecided)."""


Scorer = Callable[[Expectation, ScoringContext], Verdict]
"""A check: one expectation and one attempt in, one verdict out."""

REGISTRY: dict[str, Scorer] = {}
"""Expectation type name -> scorer. Filled by importing ``bench.scorers``."""

_E = TypeVar("_E", bound=Expectation)
_ScorerFor = Callable[[_E, ScoringContext], Verdict]


def register(type_name: str) -> Callable[[_ScorerFor[_E]], _ScorerFor[_E]]:
    """Decorator: make ``fn`` the scorer for expectations of ``type_name``.

    Refuses a type name the task vocabulary does not have (a typo would otherwise register a
    scorer nothing ever calls) and a second scorer for a type that already has one.
    """
    if type_name not in EXPECTATION_TYPES:
        raise ValueError(
            f"'{type_name}' is not an expectation type ({', '.join(EXPECTATION_TYPES)})"
        )

    def decorate(fn: _ScorerFor[_E]) -> _ScorerFor[_E]:
        if type_name in REGISTRY:
            raise ValueError(f"a scorer for '{type_name}' is already registered")
        # The aggregate only hands a scorer expectations whose ``type`` is ``type_name``,
        # which is what makes the narrower parameter type safe to store as a ``Scorer``.
        REGISTRY[type_name] = cast(Scorer, fn)
        return fn

    return decorate


def registered_types() -> tuple[str, ...]:
    """The expectation types that have a scorer, in the task vocabulary's order."""
    return tuple(name for name in EXPECTATION_TYPES if name in REGISTRY)


# --- verdict helpers ---------------------------------------------------------------------


def passed(expectation: Expectation, sentence: str) -> Verdict:
    return Verdict(
        type=expectation.type,
        decided=True,
        passed=True,
        credit=1.0,
        weight=expectation.weight,
        sentence=sentence,
    )


def failed(expectation: Expectation, sentence: str, credit: float = 0.0) -> Verdict:
    """A decided failure; ``credit`` is the partial credit, clamped to [0, 1]."""
    return Verdict(
        type=expectation.type,
        decided=True,
        passed=False,
        credit=min(max(credit, 0.0), 1.0),
        weight=expectation.weight,
        sentence=sentence,
    )


def undecided(expectation: Expectation, sentence: str) -> Verdict:
    """The check could not decide; the aggregate leaves it out of the mean."""
    return Verdict(
        type=expectation.type,
        decided=False,
        passed=False,
        credit=0.0,
        weight=expectation.weight,
        sentence=sentence,
    )


# --- sentence helpers --------------------------------------------------------------------

QUOTE_LIMIT = 80
"""How many characters of the answer a sentence quotes before it truncates with '…'."""

_WHITESPACE = re.compile(r"\s+")
_CONTEXT_BEFORE = 20
EMPTY_ANSWER = "(empty answer)"


def squash(text: str) -> str:
    """Every run of whitespace becomes a single space (nothing else changes)."""
    return _WHITESPACE.sub(" ", text)


def truncate(text: str, limit: int = QUOTE_LIMIT) -> str:
    """At most ``limit`` characters, cut at a word boundary when one is near, then ' …'."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    if space >= limit // 2:
        return cut[:space].rstrip() + " …"
    return cut + "…"


def excerpt(text: str, at: int = 0, limit: int = QUOTE_LIMIT) -> str:
    """What a sentence quotes from ``text``: its start, or the stretch around position ``at``
    when that lies too far in for the start to show it ('… ' marks a quote that starts late).
    Whitespace is squashed for display only."""
    if not text.strip():
        return EMPTY_ANSWER
    begin = 0
    if at > limit - _CONTEXT_BEFORE:
        begin = max(0, at - _CONTEXT_BEFORE)
        boundary = _WHITESPACE.search(text, begin, at)
        if boundary is not None:
            begin = boundary.end()
    shown = truncate(squash(text[begin:]).strip(), limit)
    return shown if begin == 0 else "… " + shown


def names(items: Iterable[str], limit: int = 12) -> str:
    """``a, b, c`` — or ``nothing`` — with a tail count past ``limit`` items."""
    listed = list(items)
    if not listed:
        return "nothing"
    if len(listed) > limit:
        return ", ".join(listed[:limit]) + f", … (+{len(listed) - limit} more)"
    return ", ".join(listed)


def count(n: int, singular: str, plural: str | None = None) -> str:
    """``1 tool call``, ``7 tool calls``."""
    return f"{n} {singular if n == 1 else (plural or singular + 's')}"


__all__ = [
    "EMPTY_ANSWER",
    "QUOTE_LIMIT",
    "JudgeOpinion",
    "JudgeService",
    "REGISTRY",
    "Scorer",
    "ScoringContext",
    "count",
    "excerpt",
    "failed",
    "names",
    "passed",
    "register",
    "registered_types",
    "squash",
    "truncate",
    "undecided",
]
