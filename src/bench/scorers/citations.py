"""Checks that read the answer against the corpus: ``citations`` and ``answerable``.

Both read the final answer (``trace.answer``).

citations
---------
A citation is any passage id written in the answer in the form ``doc.md#anchor`` — matched by
``CITATION_PATTERN`` anywhere in the text, so ``[faq.md#refunds]``, ``(faq.md#refunds)`` and a
bare ``faq.md#refunds`` all count. Repeats count once. The check fails when

* a ``required`` id is not cited;
* a cited id was never retrieved in the trace, and ``forbid_unretrieved`` is set ("retrieved"
  means returned by retrieval: ``trace.retrieved``, together with the ``retrieved`` list of
  every tool call, which a well-formed trace already folds into ``trace.retrieved``);
* a cited id does not exist in the task's corpus (``known_passages``); such an id is reported
  only as nonexistent, never also as unretrieved;
* fewer than ``min_citations`` distinct ids are cited;
* the task requires ids, every one is cited, and fewer than half of the ids cited are required
  ones: citing
  passages that were not needed costs (credit is also capped by that share, the citation
  precision), so citing everything search returned is not a way to cite the right one.

Credit rule: ``min(share of required ids cited, share of min_citations met)`` — each share is
1 when there is nothing to meet — and **zero** as soon as the answer cites a nonexistent
passage or (under ``forbid_unretrieved``) an unretrieved one, because a fabricated or unread
source is the failure this check exists to catch. The second share is there so that a failing
verdict never carries full credit (an answer that cites nothing when one citation is asked for
gets 0, not 1).

The check leaves the denominator (undecided) rather than blaming the agent when the harness
cannot judge it: when no passage ids are known for the task, or when the task requires an id
its own corpus does not contain.

answerable
----------
A phrase list, not a judge: ``DECLINE_PHRASES`` below, matched case-insensitively as substrings
of the answer after whitespace is squashed and typographic apostrophes (’ ‘) become ``'``. It
has false negatives (an agent that declines in words nobody listed is marked as answering) and
some false positives (an answer that says "if you cannot find your order number…" reads as a
decline); that is the price of a check that is free, reproducible and readable in a diff. Argue
with the list here.

* ``answerable: false`` — the answer must decline (contain a phrase) and be a decline as a
  whole (``answers``: within the length budget, pasting no tool result): "I don't know." after
  three pasted passages is an answer, not a decline. An empty answer is not a decline.
* ``answerable: true`` — the answer must not be empty, must not decline, and must be an answer
  as a whole (the same two rules).
"""

from __future__ import annotations

import re

from bench.core.score import Verdict
from bench.tasks.expectations import Answerable, Citations

from . import answers
from .base import (
    ScoringContext,
    count,
    excerpt,
    failed,
    names,
    passed,
    register,
    squash,
    truncate,
    undecided,
)

PRECISION_FLOOR = 0.5
"""When a task requires ids, at least this share of the cited ids must be required ones."""

CITATION_PATTERN = answers.CITATION_PATTERN

DECLINE_PHRASES: tuple[str, ...] = (
    "i don't know",
    "i do not know",
    "cannot find",
    "can't find",
    "could not find",
    "couldn't find",
    "unable to find",
    "not in the documents",
    "not in the provided documents",
    "no information",
    "not enough information",
    "insufficient information",
    "unable to answer",
    "cannot answer",
    "can't answer",
    "the documents do not say",
    "the documents don't say",
    "the documents do not mention",
    "the documents don't mention",
    "not mentioned in the",
    "not covered in the",
    "i cannot determine",
    "i can't determine",
)
"""Phrases that make an answer a decline (lower case, straight apostrophes)."""

_DECLINE_RE = re.compile("|".join(re.escape(phrase) for phrase in DECLINE_PHRASES), re.IGNORECASE)
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'"})
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)|\n")


def cited_passages(text: str) -> tuple[str, ...]:
    """Every passage id the text cites, first occurrence first, each once."""
    return tuple(dict.fromkeys(text[a:b] for a, b in answers.citation_spans(text)))


def _retrieved(context: ScoringContext) -> set[str]:
    seen = set(context.trace.retrieved)
    for call in context.trace.tool_calls:
        seen.update(call.retrieved)
    return seen


@register("citations")
def score_citations(expectation: Citations, context: ScoringContext) -> Verdict:
    known = context.known_passages
    if not known:
        return undecided(
            expectation, "no passage ids are known for this task, so citations cannot be checked"
        )
    required = list(dict.fromkeys(expectation.required))
    not_in_corpus = [pid for pid in required if pid not in known]
    if not_in_corpus:
        return undecided(
            expectation,
            f"the task requires {names(not_in_corpus)}, which its corpus does not contain",
        )

    cited = cited_passages(context.trace.answer)
    retrieved = _retrieved(context)
    missing = [pid for pid in required if pid not in cited]
    nonexistent = [pid for pid in cited if pid not in known]
    unretrieved = (
        [pid for pid in cited if pid in known and pid not in retrieved]
        if expectation.forbid_unretrieved
        else []
    )
    too_few = len(cited) < expectation.min_citations
    needed = [pid for pid in cited if pid in required]
    precision = len(needed) / len(cited) if required and cited else 1.0
    unneeded = [pid for pid in cited if pid not in required]

    problems: list[str] = []
    if missing:
        problems.append(f"did not cite {names(missing)}")
    if unretrieved:
        problems.append(f"cited without retrieving: {names(unretrieved)}")
    if len(nonexistent) == 1:
        problems.append(f"cited a passage that does not exist: {nonexistent[0]}")
    elif nonexistent:
        problems.append(f"cited passages that do not exist: {names(nonexistent)}")
    if too_few:
        problems.append(
            f"cited {count(len(cited), 'passage')}, "
            f"the task asks for at least {expectation.min_citations}"
        )
    if precision < PRECISION_FLOOR and not missing:
        problems.append(
            f"cited {count(len(unneeded), 'passage')} the answer did not need: {names(unneeded)}"
        )
    if not problems:
        if not cited:
            return passed(expectation, "cited no passages, and none were asked for")
        return passed(expectation, f"cited {names(cited)}")

    if nonexistent or unretrieved:
        credit = 0.0
    else:
        required_share = (len(required) - len(missing)) / len(required) if required else 1.0
        enough_share = (
            min(1.0, len(cited) / expectation.min_citations) if expectation.min_citations else 1.0
        )
        credit = min(required_share, enough_share, precision)
    return failed(expectation, "; ".join(problems), credit)


def find_decline(answer: str) -> re.Match[str] | None:
    """The first decline phrase in ``answer`` (matched on ``_for_declines(answer)``)."""
    return _DECLINE_RE.search(_for_declines(answer))


def _for_declines(answer: str) -> str:
    return squash(answer).translate(_APOSTROPHES)


def _sentence_around(text: str, start: int, end: int) -> str:
    """The sentence of ``text`` that holds ``text[start:end]``, truncated for quoting."""
    begin = 0
    for stop in _SENTENCE_END.finditer(text, 0, start):
        begin = stop.end()
    after = _SENTENCE_END.search(text, end)
    finish = after.start() + 1 if after is not None else len(text)
    sentence = text[begin:finish].strip()
    return truncate(sentence) if begin == 0 else "… " + truncate(sentence)


@register("answerable")
def score_answerable(expectation: Answerable, context: ScoringContext) -> Verdict:
    answer = context.trace.answer
    text = _for_declines(answer)
    decline = _DECLINE_RE.search(text)
    empty = not answer.strip()
    if not expectation.answerable:
        whole = answers.problem(answer, context.trace)
        if decline is not None and whole is not None:
            return failed(
                expectation,
                f"the corpus cannot answer this; the answer says it does not know but is not a "
                f"decline as a whole: {whole}",
            )
        if decline is not None:
            quoted = _sentence_around(text, decline.start(), decline.end())
            return passed(expectation, f"declined a question the corpus cannot answer: {quoted}")
        if empty:
            return failed(
                expectation, "the corpus cannot answer this and the answer is empty, not a decline"
            )
        return failed(
            expectation,
            f"the corpus cannot answer this and the agent answered anyway: {excerpt(answer)}",
        )
    if empty:
        return failed(expectation, "the corpus answers this and the answer is empty")
    if decline is not None:
        quoted = _sentence_around(text, decline.start(), decline.end())
        return failed(expectation, f"declined a question the corpus answers: {quoted}")
    whole = answers.problem(answer, context.trace)
    if whole is not None:
        return failed(expectation, f"the corpus answers this, and {whole}")
    return passed(expectation, f"answered a question the corpus answers: {excerpt(answer)}")


__all__ = [
    "CITATION_PATTERN",
    "PRECISION_FLOOR",
    "DECLINE_PHRASES",
    "cited_passages",
    "find_decline",
    "score_answerable",
    "score_citations",
]
