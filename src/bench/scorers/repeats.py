"""What an answer repeats of the conversation: no credit for a reply already given.

A multi-turn task supplies earlier turns — the user's messages and the assistant's replies —
and an answer that repeats them holds whatever they said. Until 2026-12-07 an agent that never
acted, repeating the assistant's earlier replies beside a canned request for the last four
digits and the postcode and a cut-short cited quote, scored 0.25 / 0.125 in multi-turn-state
(public / private): "order 58213 is already packed", said by the task's own assistant turn,
passed the ``contains: packed`` of the turn that asks why the address cannot change. The echo
rule (``answers.echoed_share``) does not see it: the repeat is under 90 % of the answer, and an
assistant turn is no source of it.

So ``contains`` and ``regex`` look for their value in the answer **without what it repeats**
(:func:`unrepeated`). An *earlier turn* is a user message or an assistant reply that holds text
(supplied by the task or the agent's own, in any turn), the final answer left out. The answer
*repeats* one when it copies at least ``PASTE_SHARE`` (90 %) of the turn's words, as the paste
rule counts a copy (``answers.pasted_share``: words dropped, added or changed every few words,
glued, split or cut elsewhere, lookalike letters), and the turn has at least
``COPY_MIN_WORDS`` (4) words. The repeated part is every answer word that lies in one of the
answer's runs the turn holds, and a single word between two such words: for an assistant turn
the paste rule's runs (``answers.held_runs``, a word the copy changed or added skipped), for a
user message the echo rule's, of consecutive answer words (``answers.held_set``) — an answer
restates the question around its value ("turning the lever to the left gives filtered water"
for "which lever position on the Pure unit gives filtered water?", 90 % of it), and the words it
puts between the question's are its own. A repeat the answer disguises (its words glued, split
or cut along other boundaries, so that ``answers.as_copied`` reads them otherwise) has no words
of its own to keep, and the whole answer is the repeated part. Restating a clause of an earlier
reply ("Order 58213 is already packed, so its delivery address can't be changed." copies 10 of
the 16 words of "I'm sorry — order 58213 is already packed, so it can't be cancelled any
more.") is an answer, and keeps every word.
"""

from __future__ import annotations

import functools
import re

from bench.core.trace import Trace

from .answers import (
    COPY_MIN_WORDS,
    PASTE_SHARE,
    as_copied,
    citation_spans,
    fold,
    held_runs,
    held_set,
    pasted_share,
    run_positions,
    tokens,
)

_WORD = re.compile(r"\w+")
MARK = "\ufffc"
"""What stands in :func:`unrepeated`'s text for each repeated stretch: no value holds it, and
it joins no two words around it into one value."""


def earlier_turns(trace: Trace) -> list[tuple[str, list[str]]]:
    """The role and words of each earlier turn of ``trace`` of at least ``COPY_MIN_WORDS``
    words: user messages and assistant messages that hold text, the final answer's own message
    left out."""
    answer = trace.answer
    final = None
    if answer:
        said = [at for at, m in enumerate(trace.messages) if m.role == "assistant"]
        final = max((at for at in said if trace.messages[at].content == answer), default=None)
    turns: list[tuple[str, list[str]]] = []
    for at, message in enumerate(trace.messages):
        if at == final or message.role not in ("user", "assistant") or not message.content:
            continue
        listed = tokens(message.content)
        if len(listed) >= COPY_MIN_WORDS:
            turns.append((message.role, listed))
    return turns


@functools.lru_cache(maxsize=1024)
def _folded(char: str) -> str:
    return fold(char)


def word_spans(text: str) -> list[tuple[str, int, int]]:
    """The words of ``text`` as the copy rules read them (folded, cited passage ids left out),
    each with where it lies in ``text`` (start, end)."""
    blanked = list(text)
    for begin, end in citation_spans(text):
        blanked[begin:end] = " " * (end - begin)
    plain = "".join(blanked)
    if plain.isascii():
        return [(m.group().lower(), m.start(), m.end()) for m in _WORD.finditer(plain)]
    folded: list[str] = []
    owner: list[int] = []
    for at, char in enumerate(plain):
        read = _folded(char)
        folded.append(read)
        owner += [at] * len(read)
    return [
        (m.group(), owner[m.start()], owner[m.end() - 1] + 1)
        for m in _WORD.finditer("".join(folded))
    ]


def repeated_spans(text: str, trace: Trace) -> list[tuple[int, int]]:
    """Where the answer ``text`` repeats an earlier turn of ``trace`` (the module docstring):
    the stretches of ``text``, in order, that are no credit to it."""
    spans = word_spans(text)
    listed = [word for word, _, _ in spans]
    marked = [False] * len(listed)
    for role, turn in earlier_turns(trace):
        if pasted_share(listed, trace, [turn]) < PASTE_SHARE:
            continue
        if as_copied(listed, turn) != listed:
            return [(0, len(text))] if text else []
        if role == "user":
            held = held_set(listed, turn)
            paths = run_positions(len(listed), 0)
        else:
            held = {run for run, _, _ in held_runs(listed, turn)}
            paths = run_positions(len(listed))
        for path in paths:
            if tuple(listed[at] for at in path) in held:
                marked[path[0] : path[-1] + 1] = [True] * (path[-1] + 1 - path[0])
    for at in range(1, len(marked) - 1):
        if marked[at - 1] and marked[at + 1]:
            marked[at] = True
    found: list[tuple[int, int]] = []
    for at, (_, begin, end) in enumerate(spans):
        if not marked[at]:
            continue
        if at and marked[at - 1]:
            found[-1] = (found[-1][0], end)
        else:
            found.append((begin, end))
    return found


def unrepeated(text: str, trace: Trace) -> str:
    """``text`` with each stretch that repeats an earlier turn (:func:`repeated_spans`) replaced
    by ``MARK``: what a value must be found in to count."""
    pieces, last = [], 0
    for begin, end in repeated_spans(text, trace):
        pieces += [text[last:begin], MARK]
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


__all__ = ["MARK", "earlier_turns", "repeated_spans", "unrepeated", "word_spans"]
