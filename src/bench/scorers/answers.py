"""The answer as a whole: the two rules that keep text checks from being bought by volume.

A text check asks whether a value appears in the answer; on its own it rewards an answer that
holds everything. So every check that reads the answer's words (``contains``, ``regex``,
``answerable``, and a ``refusal`` that must decline) first asks whether the answer is an
answer at all:

* **Length budget.** At most ``WORD_BUDGET`` words (80), not counting cited passage ids. A
  support answer that needs more is rare; an answer that pads, stuffs keywords or pastes
  several passages always needs more.
* **No pasting.** The answer must not reproduce a whole passage, tool result or user message the
  agent was given: the words of one source (a passage text, any string in a tool result, a tool
  result as JSON, a user message) that the answer copies (below) must stay under
  ``PASTE_SHARE`` (90 %) of a source of at least ``PASTE_MIN_WORDS`` (20) words. Quoting the
  sentence that answers is fine; handing back the search result, or the question, is not. And
  an answer that *is* a copy — at least ``PASTE_SHARE`` of its own words (and at least
  ``COPY_MIN_WORDS``, 4) copied from a user message or from what a tool other than
  ``search_docs`` returned, as the agent saw it — repeats instead of answering, however short.
  (Search results are left out of this second test: the answer to a documentation question
  may well be one sentence of a passage, quoted.)

What counts as copied survives a copy that drops, adds or changes a word every few words —
or every second word — swaps neighbouring words, or reorders sentences. For the paste rule, the
answer's runs are ``SHINGLE`` (3) of its words in order with at most ``ANSWER_SKIP`` (1) answer
word between two of them (a word the copy changed or added; :func:`run_positions`); they are
looked for in the source in the same order, with at most ``SKIP`` (2) other source words between
two of a run's words (:func:`held_runs`) — except that where the answer skipped a number the
source may not skip one too (the same words around other numbers state another fact). A source
word is copied when it lies from the first to the last word of such a place. For the echo rule,
a run is ``SHINGLE`` consecutive answer words, and an answer word is copied when it lies in a run
the source holds (:func:`held_set`; a record restated field by field, "4410112 kaydı — ad: …",
is an answer, not an echo). In either rule, a single word between two copied words is copied
too. A copy keeps at least one word in ``SKIP + 1``, so a source more than that many times the
answer's length is never a paste of it. (The longest run shared word for word, the former
measure, was halved by one word dropped in the middle; runs of consecutive answer words, the
measure until 2026-12-06, by a word changed every second or third word.)

Against each source, the answer is read as a copy of it would show it (:func:`as_copied`): an
answer word that spells 2 to ``JOIN`` (4) consecutive source words run together is read as those
words (:func:`unglued`: "areissued"), and 2 to ``JOIN`` consecutive answer words that spell one
source word run together as that word (:func:`joined`: "r efund", "r-efund", "r.efund", a word
split by a braille blank). The budget counts an answer word that spells words of what the agent
was handed as those words (:func:`budget_length`). Until 2026-12-06 a passage with every second
plain word split in two, or every two or three plain words written as one, was no copy (0.42 and
0.53 in public grounded-qa), and three passages cut short and written four words as one fitted
the budget (0.51 / 0.36; ``tests/scorers/test_content_free_cheats.py``). An answer with no such
word is read as it is.

A copy with its word boundaries moved — its letters run together and cut anywhere ("refun dsare
issue dtoth"), every few letters or at random, between real boundaries, with a letter or two
changed, dropped or added now and then — has a copy's letters and none of its words. So the answer's
letters (its words run together: spaces, punctuation, hyphens and blanks between them ignored) are
held against each source's too (:func:`realigned`): where at least ``LETTER_RUN`` (24) of them
follow the source's letters in order — from a source word whose first ``LETTER_SEED`` (8) letters
they share, and past each letter or two changed, dropped or added that ``LETTER_SEED`` shared
letters follow (:mod:`bench.scorers.letters`) — an answer word read as exactly one source word is
kept as it is (a quote, even with a letter changed, is read as the word rules always read it), and
each run of other answer words is read as the source words it spells. The budget counts such a run
as the words of what the agent was handed that it spells, and a word of more than ``JOINED_LETTERS``
letters as one word per ``JOINED_LETTERS`` letters (:func:`budget_words`: no word of a support
answer is longer, and the letters read stay bounded). Until 2026-12-07 the top passage's plain words
run together and cut every 3, 5 or 7 letters, at random places, or every 5 with one letter in 20
changed, scored 0.35–0.40 in public grounded-qa and 0.125–0.30 in private (v2: 0.388 / 0.275); 0
now.

Words are runs of letters and digits (``\\w+``) of the text as :func:`fold` reads it: compared
case-insensitively, with compatibility forms (full-width, ligatures, mathematical letters)
folded, accents, combining marks and invisible characters (zero-width spaces, soft hyphens)
deleted, and Cyrillic and Greek letters that look Latin read as Latin — so punctuation, JSON
quoting and lookalike characters do not hide a copy. ``problem`` returns the sentence a failing
check appends (the same words as when only a copy word for word counted), or None when the answer
is within both rules.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections import deque
from collections.abc import Iterator
from typing import Any

from bench.core.trace import Trace

from .base import count
from .letters import LETTER_RUN, LETTER_SEED, realigned

WORD_BUDGET = 80
PASTE_SHARE = 0.9
PASTE_MIN_WORDS = 20
COPY_MIN_WORDS = 4
SHINGLE = 3
"""Answer words in a run that marks words as copied (:func:`held_runs`, :func:`held_set`)."""
SKIP = 2
"""The most source words a copied run may skip between two of its words."""
ANSWER_SKIP = 1
"""The most answer words a copied run may skip between two of its words (a word the copy
changed or added)."""
JOIN = 4
"""The most consecutive answer words read as the one source word they spell run together (a
word split by a space, a hyphen, a dot or a blank that is not a space: :func:`joined`), and the
most consecutive source words an answer word is read as when it spells them run together
(words written as one: :func:`unglued`)."""
JOINED_LETTERS = 64
"""The longest spelling :func:`joined` and :func:`unglued` read (no word of a support answer
is longer): an answer of a few huge "words" costs no more than reading it. The budget counts a
longer word as one word per ``JOINED_LETTERS`` letters (:func:`budget_words`)."""

_WORD = re.compile(r"\w+")
CITATION_PATTERN = re.compile(r"[A-Za-z0-9_./-]+\.md#[a-z0-9_-]+")
"""What a citation looks like (``faq.md#refunds``). Found with :func:`citation_spans`, never
with this regex: its every start inside a long run of its characters scanned to the run's end,
so an agent's 100,000-letter answer took seconds to score (and verify re-scores every answer;
docs/PERFORMANCE.md, "Secret shapes in linear time")."""

_CITATION_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./-")
_CITATION_TAIL = re.compile(r"\.md#[a-z0-9_-]+")


def citation_spans(text: str) -> list[tuple[int, int]]:
    """The spans ``CITATION_PATTERN.finditer(text)`` gives, in linear time. ``#`` ends every
    run of a citation's characters, so the leftmost match is at the first ``.md#`` (with a
    name after it) that has at least one such character before it since the last match: it
    starts where that run starts."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for tail in _CITATION_TAIL.finditer(text):
        at = tail.start()
        if at - 1 < pos or text[at - 1] not in _CITATION_CHARS:
            continue
        begin = at - 1
        while begin > pos and text[begin - 1] in _CITATION_CHARS:
            begin -= 1
        spans.append((begin, tail.end()))
        pos = tail.end()
    return spans


_LOOKALIKES = str.maketrans(
    # Cyrillic and Greek letters that look like Latin ones, and the Turkish dotless i
    "асеорхуіјѕԁԛԝһӏвкмнтαοριυνκτχβεıɡ",
    "aceopxyijsdqwhlbkmhtaopiuvktxbeig",
)


class _Hidden(dict[int, int | None]):
    """``str.translate``'s table of what is deleted before words are read: invisible characters
    (zero-width spaces and joiners, soft hyphens, tags, variation selectors) and combining marks
    in planes 0, 1 and 14 (where all but a few rare combining marks are). Filled as characters
    are met (``__missing__``): the whole table took 35 ms to make, paid by every run that met one
    character other than ASCII."""

    def __missing__(self, code: int) -> int | None:
        planes = code < 0x20000 or 0xE0000 <= code < 0xE1000
        hidden = planes and unicodedata.category(chr(code)) in ("Cf", "Mn", "Me")
        self[code] = None if hidden else code
        return self[code]


_HIDDEN = _Hidden()


def fold(text: str) -> str:
    """``text`` as the copy rules read it: compatibility forms folded (full-width letters and
    digits, ligatures, mathematical letters), accents, combining marks and invisible characters
    deleted, lower case, and letters that look like Latin ones read as those. A copy with a
    lookalike letter or a zero-width space in every other word is still a copy."""
    if text.isascii():  # nothing to fold but case; most of a large tool result
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text).translate(_HIDDEN)
    return unicodedata.normalize("NFKC", decomposed).lower().translate(_LOOKALIKES)


def tokens(text: str) -> list[str]:
    """The words of ``text`` as the copy rules compare them (:func:`fold`, then ``\\w+``)."""
    return _WORD.findall(fold(text))


def words(text: str) -> list[str]:
    """The answer's words, folded (:func:`fold`), cited passage ids left out."""
    pieces, last = [], 0
    for begin, end in citation_spans(text):
        pieces += [text[last:begin], " "]
        last = end
    pieces.append(text[last:])
    return tokens("".join(pieces))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def copied_from(trace: Trace) -> list[list[str]]:
    """What an answer must not merely repeat: user messages, and tool results (other than
    search results) as the agent was shown them."""
    return [
        tokens(message.content)
        for message in trace.messages
        if message.role == "user" or (message.role == "tool" and message.name != "search_docs")
    ]


def sources(trace: Trace) -> list[list[str]]:
    """Everything the agent was handed (tool results, user messages), as word lists long enough
    to count as a paste."""
    found: list[list[str]] = []
    for message in trace.messages:
        if message.role == "user":
            listed = tokens(message.content)
            if len(listed) >= PASTE_MIN_WORDS:
                found.append(listed)
    for call in trace.tool_calls:
        texts = list(_strings(call.result))
        if call.result is not None and not isinstance(call.result, str):
            # Keys sorted: a bundle keeps a trace as canonical JSON (sorted keys), so the order
            # a tool built its result in is gone by verify; a rule that read it scored a run
            # one way and its bundle another (SCORE_MISMATCH on a genuine bundle).
            texts.append(json.dumps(call.result, ensure_ascii=False, sort_keys=True))
        for text in texts:
            listed = tokens(text)
            if len(listed) >= PASTE_MIN_WORDS:
                found.append(listed)
    return found


def longest_shared_run(answer: list[str], source: list[str]) -> int:
    """Length of the longest run of consecutive words that ``answer`` and ``source`` share (the
    paste rules' former measure; they read :func:`held_runs` now).

    In time linear in both lengths, whatever they repeat: the suffix automaton of ``answer``
    (the short side: an answer is at most ``WORD_BUDGET`` words here), then ``source`` read
    through it once, keeping the longest suffix of what was read that occurs in ``answer``.
    The table of every pair of positions (the former way) took 80 × the source's length: a
    trace with a tool result of a million words cost a verifier 16 s per answer."""
    if not answer or not source:
        return 0
    link, length, step = _suffix_automaton(answer)
    best = state = run = 0
    for word in source:
        while state and word not in step[state]:
            state = link[state]
            run = length[state]
        found = step[state].get(word)
        if found is None:
            state = run = 0
            continue
        state, run = found, run + 1
        best = max(best, run)
    return best


def _suffix_automaton(words: list[str]) -> tuple[list[int], list[int], list[dict[str, int]]]:
    """The suffix automaton of ``words``: each state's suffix link, longest length and
    transitions; state 0 is the start."""
    link, length, step = [-1], [0], [dict[str, int]()]
    last = 0
    for word in words:
        current = len(length)
        link.append(0)
        length.append(length[last] + 1)
        step.append({})
        at = last
        while at != -1 and word not in step[at]:
            step[at][word] = current
            at = link[at]
        if at != -1:
            then = step[at][word]
            if length[at] + 1 == length[then]:
                link[current] = then
            else:
                clone = len(length)
                link.append(link[then])
                length.append(length[at] + 1)
                step.append(dict(step[then]))
                while at != -1 and step[at].get(word) == then:
                    step[at][word] = clone
                    at = link[at]
                link[then] = link[current] = clone
        last = current
    return link, length, step


def run_positions(size: int, answer_skip: int = ANSWER_SKIP) -> list[tuple[int, ...]]:
    """Where the runs of an answer of ``size`` words lie: ``SHINGLE`` positions in order, with at
    most ``answer_skip`` answer words between two of them (a word the copy changed or added);
    ``(answer_skip + 1) ** (SHINGLE - 1)`` runs start at each word. The paste rule reads runs
    with ``ANSWER_SKIP``; the echo rule, runs of consecutive words (``answer_skip=0``)."""
    paths: list[tuple[int, ...]] = [(at,) for at in range(size)]
    for _ in range(SHINGLE - 1):
        paths = [
            path + (at,)
            for path in paths
            for at in range(path[-1] + 1, min(path[-1] + answer_skip + 2, size))
        ]
    return paths


def _shingles(words: list[str], answer_skip: int = ANSWER_SKIP) -> Iterator[tuple[str, ...]]:
    """The answer's runs (:func:`run_positions`), as words."""
    return (tuple(words[at] for at in path) for path in run_positions(len(words), answer_skip))


def _number(word: str) -> bool:
    return any(ch.isdigit() for ch in word)


Prefixes = dict[tuple[str, ...], set[tuple[bool, ...]]]


@functools.lru_cache(maxsize=2)  # one answer against each of its sources; not kept after
def _prefix_index(answer: tuple[str, ...]) -> tuple[Prefixes, frozenset[tuple[str, ...]]]:
    """:func:`_run_prefixes` of ``answer`` and the prefixes it holds without skipping a number
    (which fit any source): made once per answer, not once per source it is held against."""
    prefixes = _run_prefixes(list(answer))
    free = frozenset(held for held, ways in prefixes.items() if any(not any(w) for w in ways))
    return prefixes, free


def _run_prefixes(answer: list[str]) -> Prefixes:
    """The answer's runs (:func:`run_positions`) and their shorter prefixes, as words, each with
    where the answer skipped a number between two of its words (one flag per gap; a run may lie
    in the answer more than one way). Built a word at a time, keeping only prefixes that reach a
    whole run before the answer ends: exactly the prefixes of :func:`run_positions`' runs."""
    numeric = [_number(word) for word in answer]
    size = len(answer)
    found: Prefixes = {}
    level: list[tuple[tuple[str, ...], tuple[bool, ...], int]] = [
        ((answer[at],), (), at) for at in range(size - SHINGLE + 1)
    ]
    for held, skipped, _ in level:
        found.setdefault(held, set()).add(skipped)
    for length in range(2, SHINGLE + 1):
        last_allowed = size - 1 - (SHINGLE - length)  # room left for the words still to come
        longer = []
        for held, skipped, last in level:
            for at in range(last + 1, min(last + ANSWER_SKIP + 2, last_allowed + 1)):
                entry = (held + (answer[at],), skipped + (any(numeric[last + 1 : at]),), at)
                longer.append(entry)
                found.setdefault(entry[0], set()).add(entry[1])
        level = longer
    return found


def held_runs(answer: list[str], source: list[str]) -> Iterator[tuple[tuple[str, ...], int, int]]:
    """Where ``source`` holds a run of the answer (``SHINGLE`` answer words in their order, with
    at most ``ANSWER_SKIP`` answer words between two of them: words a copy changed or added),
    with at most ``SKIP`` other source words between two of them (words a copy dropped): the
    run's words, and the source indices of its first and last word. Where the answer skipped a
    number, the source may not skip one too: "takes 3 to 5 working days" is no copy of "takes 1
    to 2 working days" but another fact in the same words. Each source word starts at most
    ``(SKIP + 1) ** (SHINGLE - 1)`` (9) such places, found by at most 13 lookups."""
    prefixes, free = _prefix_index(tuple(answer))
    numbers = [0]  # numbers[i]: how many of the first i source words are numbers
    for word in source:
        numbers.append(numbers[-1] + _number(word))
    for first, word in enumerate(source):
        if (word,) not in prefixes:
            continue
        reached: list[tuple[tuple[str, ...], tuple[bool, ...], int]] = [((word,), (), first)]
        for _ in range(SHINGLE - 1):
            reached = [
                (longer, skipped + (numbers[at] > numbers[last + 1],), at)
                for held, skipped, last in reached
                for at in range(last + 1, min(last + SKIP + 2, len(source)))
                if (longer := held + (source[at],)) in prefixes
            ]
            reached = [
                (held, skipped, last)
                for held, skipped, last in reached
                if held in free
                or any(
                    not any(a and b for a, b in zip(way, skipped, strict=True))
                    for way in prefixes[held]
                )
            ]
        for held, _, last in reached:
            yield held, first, last


def held_set(answer: list[str], source: list[str]) -> set[tuple[str, ...]]:
    """The runs of ``SHINGLE`` consecutive answer words that ``source`` holds (as
    :func:`held_runs` finds them, but with no answer word skipped), without where: the echo
    rule's. One pass over ``source`` keeping the prefixes that end at each of the last
    ``SKIP + 1`` words, so a source that repeats the answer's words costs a few lookups per word
    (a tool result may be a million words)."""
    runs = set(_shingles(answer, 0))
    prefixes = {run[:size] for run in runs for size in range(1, SHINGLE)}
    found: set[tuple[str, ...]] = set()
    recent: deque[set[tuple[str, ...]]] = deque(maxlen=SKIP + 1)
    for word in source:
        start: tuple[str, ...] = (word,)
        here = {start} & prefixes
        for alive in recent:
            for held in alive:
                longer = held + (word,)
                if longer in runs:
                    found.add(longer)
                elif longer in prefixes:
                    here.add(longer)
        if len(found) == len(runs):
            break
        recent.append(here)
    return found


@functools.lru_cache(maxsize=2)  # one answer against each of its sources; not kept after
def _spellings(
    answer: tuple[str, ...],
) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """What :func:`joined` and :func:`unglued` look for, made once per answer: every run of 2
    to ``JOIN`` consecutive answer words run together, the answer's words, and their starts
    (none longer than ``JOINED_LETTERS``)."""
    runs: set[str] = set()
    for at in range(len(answer)):
        spelled = answer[at]
        for word in answer[at + 1 : at + JOIN]:
            spelled += word
            if len(spelled) > JOINED_LETTERS:
                break
            runs.add(spelled)
    wanted = frozenset(word for word in answer if len(word) <= JOINED_LETTERS)
    starts = frozenset(word[:size] for word in wanted for size in range(1, len(word)))
    return frozenset(runs), wanted, starts


def joined(answer: list[str], source: list[str]) -> list[str]:
    """``answer`` with each run of 2 to ``JOIN`` consecutive words that spells a word of
    ``source`` when run together read as that word (the longest first, left to right). A copy
    that splits every second word in two ("r efund", "r-efund", "r\u2800efund") puts two answer
    words where the source has one, more than ``ANSWER_SKIP``; read whole again, it is the copy
    it is. The answer's own words are unchanged when no such run spells a source word. One pass
    over ``source`` (a set of at most ``(JOIN - 1) * len(answer)`` candidates, none longer than
    ``JOINED_LETTERS``, intersected with it), so a tool result of a million words costs what
    reading it does."""
    candidates, _, _ = _spellings(tuple(answer))
    present = candidates.intersection(source)
    if not present:
        return answer
    out: list[str] = []
    at = 0
    while at < len(answer):
        for size in range(min(JOIN, len(answer) - at), 1, -1):
            word = "".join(answer[at : at + size])
            if word in present:
                out.append(word)
                at += size
                break
        else:
            out.append(answer[at])
            at += 1
    return out


def unglued(answer: list[str], source: list[str]) -> list[str]:
    """``answer`` with each word that is no word of ``source`` but spells 2 to ``JOIN``
    consecutive source words run together ("areissued") read as those words. A copy that writes
    every two or three words as one has no answer word the source has; read apart again, it is
    the copy it is. The answer's own words are unchanged when none is such a word. One pass over
    ``source``, extending a spelling only while it is the start of an answer word (of at most
    ``JOINED_LETTERS`` letters), so at most ``JOIN`` lookups per source word."""
    _, wanted, starts = _spellings(tuple(answer))
    missing = wanted.difference(source)
    if not missing:
        return answer
    pieces: dict[str, tuple[str, ...]] = {}
    for at in [at for at, word in enumerate(source) if word in starts]:
        spelled = source[at]
        for size in range(2, min(JOIN, len(source) - at) + 1):
            spelled += source[at + size - 1]
            if spelled in missing:
                pieces.setdefault(spelled, tuple(source[at : at + size]))
            if spelled not in starts:
                break
    if not pieces:
        return answer
    return [piece for word in answer for piece in pieces.get(word, (word,))]


def parted(answer: list[str], source: list[str]) -> list[str]:
    """``answer`` with each word that joins words with underscores and is no word of ``source``
    read as the words it joins ("you_can_change_the_delivery_address" as six words). ``\\w``
    holds the underscore, so a passage with its spaces written as underscores was a few long
    words that matched none of the passage's: no copy, and one word per ``JOINED_LETTERS``
    letters for the budget (``underscored-passages`` in ``tests/scorers/gaming_cheats_11.py``:
    two whole passages so written, spaces kept around numbers, scored 0.475 / 0.275 in
    grounded-qa). A word the source itself holds (``son_odeme``, a key of a tool result) is kept
    as it is. The answer's own words are unchanged when none is such a word."""
    if not any("_" in word for word in answer):
        return answer
    held = set(source)
    out: list[str] = []
    for word in answer:
        parts = [part for part in word.split("_") if part] if "_" in word else [word]
        if (len(parts) == 1 and parts[0] == word) or word in held:
            out.append(word)
        else:
            out.extend(parts or [word])
    return out


def _parts(answer: list[str]) -> int:
    """The most words :func:`parted` can read ``answer`` as."""
    return sum(max(1, len([part for part in word.split("_") if part])) for word in answer)


def as_copied(answer: list[str], source: list[str]) -> list[str]:
    """``answer`` as the copy rules hold it against ``source``: words it joined with underscores
    read apart (:func:`parted`), words it glued read apart (:func:`unglued`), words it split read
    whole (:func:`joined`), then stretches cut along other boundaries read along the source's
    (:func:`realigned`)."""
    answer = parted(answer, source)
    return realigned(joined(unglued(answer, source), source), source)


def _copied(marked: list[bool]) -> int:
    """The marked words, and each single unmarked word between two marked ones (a word a copy
    changed or added)."""
    inside = sum(
        1
        for at in range(1, len(marked) - 1)
        if marked[at - 1] and marked[at + 1] and not marked[at]
    )
    return sum(marked) + inside


def pasted_share(answer: list[str], trace: Trace, handed: list[list[str]] | None = None) -> float:
    """The largest share of one source the answer copies (0 when none): a source word is copied
    when it lies from the first to the last word of a place :func:`held_runs` finds, or alone
    between two such words. A copy keeps at least one word in ``SKIP + 1``, so a source more
    than ``SKIP + 1`` times the answer's length is not one (and is not read). The answer is
    read against each source as it copies it (:func:`as_copied`). ``handed``: the trace's
    :func:`sources`, when the caller has them."""
    share = 0.0
    most = _most_read(answer)
    for source in sources(trace) if handed is None else handed:
        if len(source) > (SKIP + 1) * most:
            continue  # the answer is never read as more than `most` words
        read = as_copied(answer, source)
        if len(source) > (SKIP + 1) * len(read):
            continue
        marked = [False] * len(source)
        for _, first, last in held_runs(read, source):
            marked[first : last + 1] = [True] * (last + 1 - first)
        share = max(share, _copied(marked) / len(source))
    return share


def echoed_share(answer: list[str], trace: Trace, handed: list[list[str]] | None = None) -> float:
    """The largest share of the answer copied from one user message or tool result other than
    search's (0 when none): an answer word is copied when it lies in one of the answer's runs
    that the source holds (:func:`held_set`), or alone between two such words; the answer is
    read against each source as it copies it (:func:`as_copied`). ``handed``: the trace's
    :func:`copied_from`, when the caller has them."""
    share = 0.0
    for source in copied_from(trace) if handed is None else handed:
        read = as_copied(answer, source)
        found = held_set(read, source)
        if not found:
            continue
        marked = [False] * len(read)
        for at, run in enumerate(_shingles(read, 0)):
            if run in found:
                marked[at : at + SHINGLE] = [True] * SHINGLE
        share = max(share, _copied(marked) / len(read))
    return share


def _most_read(answer: list[str]) -> int:
    """The most words :func:`as_copied` can read ``answer`` as, against any source:
    :func:`parted` reads a word as the words it joins with underscores, :func:`unglued` each of
    those as at most ``JOIN`` words, and :func:`realigned` a run of words as at most one source
    word per letter it spells or source letter it skips (a copy drops at most two letters per
    ``LETTER_SEED`` it keeps)."""
    return JOIN * _parts(answer) + 2 * sum(map(len, answer))


def budget_words(answer: list[str]) -> int:
    """The answer's words as the budget counts them: a word of more than ``JOINED_LETTERS``
    letters (no word of a support answer is longer) as one word per ``JOINED_LETTERS`` letters,
    so one 16 MB "word" is not one word, and the letters the copy rules read are bounded."""
    return sum(
        1 if len(word) <= JOINED_LETTERS else -(-len(word) // JOINED_LETTERS) for word in answer
    )


def budget_length(answer: list[str], handed: list[list[str]]) -> int:
    """How many words the budget counts (:func:`budget_words`): the answer's, each word that
    joins words with underscores and is no word of what the agent was handed counted as those
    words (:func:`parted`), each word that spells 2 to ``JOIN`` consecutive words of what the
    agent was handed run together (:func:`unglued`) counted as those words, and each stretch
    that spells their letters along other word boundaries as the words it spells
    (:func:`realigned`). Written as one, four words
    of a passage fit the budget as one; they are still four (three passages, cut short, in 78
    "words", scored 0.51 / 0.36 in grounded-qa). ``handed``: :func:`sources` and
    :func:`copied_from` of the trace."""
    every = [word for source in handed for word in source]
    return budget_words(realigned(unglued(parted(answer, every), every), every))


def problem(text: str, trace: Trace) -> str | None:
    """Why ``text`` is not an answer as a whole (over the budget, or a paste), or None."""
    listed = words(text)
    length = len(listed)
    if length <= WORD_BUDGET:  # else not one letter more need be read
        length = budget_words(listed)
    if length > WORD_BUDGET:
        return f"the answer is {count(length, 'word')}, over the budget of {WORD_BUDGET}"
    pasted, echoed = sources(trace), None
    if _most_read(listed) > WORD_BUDGET:  # else no words read apart can reach the budget
        echoed = copied_from(trace)
        length = budget_length(listed, [*pasted, *echoed])
        if length > WORD_BUDGET:
            return f"the answer is {count(length, 'word')}, over the budget of {WORD_BUDGET}"
    share = pasted_share(listed, trace, pasted)
    if share >= PASTE_SHARE:
        return f"the answer repeats {share:.0%} of a tool result or user message word for word"
    if len(listed) >= COPY_MIN_WORDS:
        share = echoed_share(listed, trace, echoed)
        if share >= PASTE_SHARE:
            return (
                f"{share:.0%} of the answer is a user message or tool result, copied word for word"
            )
    return None


__all__ = [
    "ANSWER_SKIP",
    "as_copied",
    "parted",
    "budget_length",
    "budget_words",
    "CITATION_PATTERN",
    "COPY_MIN_WORDS",
    "JOIN",
    "JOINED_LETTERS",
    "LETTER_RUN",
    "LETTER_SEED",
    "PASTE_MIN_WORDS",
    "PASTE_SHARE",
    "SHINGLE",
    "SKIP",
    "WORD_BUDGET",
    "citation_spans",
    "copied_from",
    "echoed_share",
    "fold",
    "held_runs",
    "held_set",
    "joined",
    "longest_shared_run",
    "pasted_share",
    "problem",
    "realigned",
    "run_positions",
    "sources",
    "tokens",
    "unglued",
    "words",
]
