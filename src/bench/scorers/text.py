"""Checks that read the answer text: ``contains``, ``not_contains``, ``regex``.

All three read the final answer (``trace.answer``, the answer to the last user turn).

``contains`` and ``not_contains`` are substring checks, case-insensitive unless the expectation
says ``case_sensitive``. Before matching, every run of whitespace in the answer becomes a single
space — and the same is done to the expected value, so that a value written across lines in a
task file can still match. Nothing else is normalised: no punctuation stripping, no Unicode
folding, no stemming, so a failure is always reproducible by reading the answer.

``regex`` runs ``re.search`` on the answer exactly as written (no whitespace squashing, so
``^``/``$`` under the ``m`` flag still see the lines), with the flags ``i``, ``m``, ``s``.

``contains`` and ``regex`` also read the answer as a whole (``answers``): a value found in an
answer over the length budget, or in one that pastes a tool result, does not count — the check
fails with the reason (``the answer contains '14:00 CET', but the answer is 212 words, over the
budget of 80``). ``not_contains`` reads every word, however many there are.

**A hedge is not an answer.** On a task whose corpus answers it (a ``citations`` check and no
``answerable`` one: the grounded questions that are not marked unanswerable), ``contains`` and
``regex`` also fail an answer that says it does not know (a decline phrase of ``answerable``,
``citations.DECLINE_PHRASES``) beside the value: "I don't know." in front of every answer
would otherwise pass every unanswerable question and lose nothing on the others.

Sentences quote the start of the answer (or, for a forbidden match far into the answer, the
stretch around it), truncated to about 80 characters with '…'.
"""

from __future__ import annotations

import functools
import re

from bench.core.score import Verdict
from bench.tasks.expectations import Answerable, Citations, Contains, NotContains, Regex

from . import answers
from .base import ScoringContext, excerpt, failed, passed, register, squash
from .citations import find_decline

_FLAGS: dict[str, re.RegexFlag] = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL}


@functools.lru_cache(maxsize=4096)
def _literal(value: str, case_sensitive: bool) -> re.Pattern[str]:
    """``value`` as a compiled literal pattern: compiled once per run, not once per attempt
    (``re``'s own cache costs more to look up with a flag than the search itself)."""
    return re.compile(re.escape(value), 0 if case_sensitive else re.IGNORECASE)


def _find(value: str, answer: str, case_sensitive: bool) -> re.Match[str] | None:
    """Where ``value`` first occurs in ``answer`` (both already whitespace-squashed)."""
    return _literal(value, case_sensitive).search(answer)


def _problem(answer: str, context: ScoringContext) -> str | None:
    """Why an answer holding the expected value still does not answer: ``answers.problem``
    (length, pasting), or a hedge on a question the corpus answers."""
    whole = answers.problem(answer, context.trace)
    if whole is not None:
        return whole
    expectations = context.task.expectations
    if not any(isinstance(e, Citations) for e in expectations) or any(
        isinstance(e, Answerable) for e in expectations
    ):
        return None
    decline = find_decline(answer)
    if decline is None:
        return None
    return (
        f"it also says '{decline.group(0)}': the corpus answers this question, and an answer "
        "that declines too is a hedge, not an answer"
    )


def _shown(value: str, case_sensitive: bool) -> str:
    return f"'{value}'" + (" (case-sensitive)" if case_sensitive else "")


@register("contains")
def score_contains(expectation: Contains, context: ScoringContext) -> Verdict:
    answer = squash(context.trace.answer)
    value = squash(expectation.value)
    shown = _shown(value, expectation.case_sensitive)
    if _find(value, answer, expectation.case_sensitive) is not None:
        whole = _problem(context.trace.answer, context)
        if whole is not None:
            return failed(expectation, f"the answer contains {shown}, but {whole}")
        return passed(expectation, f"the answer contains {shown}")
    return failed(expectation, f"the answer does not contain {shown}: {excerpt(answer)}")


@register("not_contains")
def score_not_contains(expectation: NotContains, context: ScoringContext) -> Verdict:
    answer = squash(context.trace.answer)
    value = squash(expectation.value)
    shown = _shown(value, expectation.case_sensitive)
    hit = _find(value, answer, expectation.case_sensitive)
    if hit is None:
        return passed(expectation, f"the answer does not contain {shown}")
    return failed(
        expectation,
        f"the answer contains {shown}, which the task forbids: {excerpt(answer, hit.start())}",
    )


def _flag_bits(flags: list[str]) -> re.RegexFlag:
    bits = re.RegexFlag(0)
    for flag in flags:
        bits |= _FLAGS[flag]
    return bits


def _slashed(expectation: Regex) -> str:
    """``/pattern/flags``, flags in the fixed order i, m, s."""
    flags = "".join(flag for flag in "ims" if flag in expectation.flags)
    return f"/{expectation.pattern}/{flags}"


@register("regex")
def score_regex(expectation: Regex, context: ScoringContext) -> Verdict:
    answer = context.trace.answer
    match = re.search(expectation.pattern, answer, _flag_bits(list(expectation.flags)))
    if match is not None:
        whole = _problem(answer, context)
        if whole is not None:
            return failed(expectation, f"{_slashed(expectation)} matches, but {whole}")
        return passed(
            expectation, f"{_slashed(expectation)} matches: {excerpt(answer, match.start())}"
        )
    return failed(expectation, f"{_slashed(expectation)} does not match: {excerpt(answer)}")


__all__ = ["score_contains", "score_not_contains", "score_regex"]
