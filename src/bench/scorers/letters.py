"""A copy's letters read along its source's word boundaries (:func:`realigned`), for the copy
rules of :mod:`bench.scorers.answers` (its module docstring says where they apply).

A copy with its word boundaries moved — its letters run together and cut anywhere ("refun dsare
issue dtoth"), every few letters or at random, between real boundaries, with a letter changed,
dropped or added now and then — has a copy's letters and none of its words, so no rule over
words reads it. Here the answer's letters (its words run together) are held against a
source's, and each stretch of them that follows the source's letters is cut again where the
source's words begin. Words are the folded ``\\w+`` words the copy rules read.
"""

from __future__ import annotations

import bisect
import functools
import itertools

LETTER_RUN = 24
"""The fewest letters of the answer (its words run together: spaces, punctuation and every other
mark between words ignored) that must follow a source's letters in order for :func:`realigned`
to read them along the source's word boundaries. Shorter shared stretches are common phrases
("the order number"); at 24 letters a support answer shares them only by quoting, and a quote
keeps the source's words, which are read as they are."""
LETTER_SEED = 8
"""Letters read exactly where a shared stretch starts (at a source word's start) and after each
letter or two a copy changed, dropped or added inside one (:func:`realigned`): a copy may
change one letter in nine and still be read as one."""
_EDITS = ((1, 1), (0, 1), (1, 0), (2, 2), (0, 2), (2, 0), (1, 2), (2, 1))
"""Answer letters, source letters a copy may have changed for each other (a letter or two
changed, dropped or added), tried in this order where a shared stretch stops."""
_SEED_PLACES = 4
"""The most places of the answer a run of ``LETTER_SEED`` letters is looked for at (an answer
that repeats itself is read at its first few repeats): a source word costs at most this many
stretches, each paid for by the source letters it covers."""


@functools.lru_cache(maxsize=2)  # one answer against each of its sources; not kept after
def _letter_index(letters: str) -> dict[str, tuple[int, ...]]:
    """Where each run of ``LETTER_SEED`` letters starts in the answer's letters (its first
    ``_SEED_PLACES`` places), made once per answer: its letters are the same however
    ``answers.unglued`` and ``answers.joined`` cut it against each source."""
    index: dict[str, tuple[int, ...]] = {}
    for at in range(len(letters) - LETTER_SEED + 1):
        key = letters[at : at + LETTER_SEED]
        found = index.get(key, ())
        if len(found) < _SEED_PLACES:
            index[key] = (*found, at)
    return index


def _shared(a: str, i: int, s: str, j: int) -> int:
    """How many letters ``a[i:]`` and ``s[j:]`` share from their start (compared 32 at a time)."""
    n = 0
    while True:
        x, y = a[i + n : i + n + 32], s[j + n : j + n + 32]
        if x == y and len(x) == 32:
            n += 32
            continue
        for p, q in zip(x, y, strict=False):
            if p != q:
                break
            n += 1
        return n


Segment = tuple[int, int, int]
"""Answer letter, source letter, length: letters a stretch reads as each other (a changed letter
inside included)."""


def _stretch(a: str, q: int, s: str, p: int, floor: int) -> list[Segment]:
    """The letters ``a`` (the answer's) and ``s`` (a source's) share around ``a[q]`` = ``s[p]``:
    back exactly, to no source letter before ``floor``; forward past each letter or two the
    copy changed, dropped or added (``_EDITS``), if ``LETTER_SEED`` shared letters follow."""
    back = 0
    while q > back and p - back > floor and a[q - back - 1] == s[p - back - 1]:
        back += 1
    i, j = q - back, p - back
    segments: list[Segment] = []
    first_i, first_j = i, j
    while True:
        n = _shared(a, i, s, j)
        i, j = i + n, j + n
        if i >= len(a) or j >= len(s):
            break
        for di, dj in _EDITS:
            tail = a[i + di : i + di + LETTER_SEED]
            if len(tail) == LETTER_SEED and tail == s[j + dj : j + dj + LETTER_SEED]:
                break
        else:
            break
        if di != dj:  # the letters after it are read on another diagonal
            segments.append((first_i, first_j, i - first_i))
            first_i, first_j = i + di, j + dj
        i, j = i + di, j + dj
    segments.append((first_i, first_j, i - first_i))
    return segments


def _first_source_letter(segments: list[Segment], at: int) -> int:
    """The source letter that answer letter ``at`` is read as (or the next one read, for a
    letter the copy added)."""
    k = bisect.bisect_right(segments, (at, 1 << 62)) - 1
    ai, si, n = segments[k]
    if at < ai + n:
        return si + at - ai
    return segments[k + 1][1] if k + 1 < len(segments) else si + n


def _past_source_letter(segments: list[Segment], end: int) -> int:
    """Just past the source letter that answer letter ``end - 1`` is read as (or the last one
    read before it)."""
    k = bisect.bisect_right(segments, (end - 1, 1 << 62)) - 1
    ai, si, n = segments[k]
    return si + min(end - ai, n)


def realigned(answer: list[str], source: list[str]) -> list[str]:
    """``answer`` with each stretch of its words that spells source letters along other word
    boundaries read as the source words it spells. A copy with its word boundaries moved
    ("refun dsare issue dtoth": the letters run together and cut anywhere, at random or with
    real boundaries between, a letter or two changed, dropped or added now and then) has a copy's
    letters and none of its words; read along the source's boundaries, it is the copy it is.

    The answer's letters (its words run together) are held against the source's: a shared
    stretch starts at a source word where ``LETTER_SEED`` letters match, runs back letter by
    letter and forward past each letter or two changed, dropped or added that ``LETTER_SEED``
    shared letters follow, and counts when it holds at least ``LETTER_RUN`` answer letters. Inside
    one, an answer word read as exactly one source word (a quote, even with a letter changed)
    is kept as it is; each run of other answer words is read as the source words that start in
    the letters it spells. An answer with no such word is read as it is, so a quote is read as
    the word rules always read it. Linear in both: the source's words are read once (a seed
    lookup each), a source letter is covered by at most ``_SEED_PLACES`` stretches, and the
    answer's index is made once per answer."""
    letters = "".join(answer)
    if len(letters) < LETTER_RUN or not source:
        return answer
    index = _letter_index(letters)
    text = "".join(source)
    starts = list(itertools.accumulate(map(len, source), initial=0))
    found: list[list[Segment]] = []
    covered = 0
    for p in starts[:-1]:
        if p < covered:
            continue
        places = index.get(text[p : p + LETTER_SEED])
        if places is None:
            continue
        floor = covered
        for q in places:
            segments = _stretch(letters, q, text, p, floor)
            last = segments[-1]
            if last[0] + last[2] - segments[0][0] >= LETTER_RUN:
                found.append(segments)
                covered = max(covered, last[1] + last[2])
    if not found:
        return answer
    # the longest stretches first, none overlapping another in the answer
    found.sort(key=lambda seg: seg[0][0] - seg[-1][0] - seg[-1][2])
    lows: list[int] = []
    highs: list[int] = []
    kept: list[list[Segment]] = []
    for segments in found:
        low, high = segments[0][0], segments[-1][0] + segments[-1][2]
        at = bisect.bisect_right(lows, low)
        if (at and highs[at - 1] > low) or (at < len(lows) and lows[at] < high):
            continue
        lows.insert(at, low)
        highs.insert(at, high)
        kept.insert(at, segments)
    bounds = list(itertools.accumulate(map(len, answer), initial=0))
    words = len(source)

    def one_word(k: int, segments: list[Segment]) -> bool:
        begin = _first_source_letter(segments, bounds[k])
        end = _past_source_letter(segments, bounds[k + 1])
        at = bisect.bisect_left(starts, begin, hi=words)
        return at < words and starts[at] == begin and starts[at + 1] == end

    out: list[str] = []
    done = 0
    for low, high, segments in zip(lows, highs, kept, strict=True):
        first = bisect.bisect_left(bounds, low)  # the answer words wholly inside
        stop = bisect.bisect_right(bounds, high) - 1
        if first >= stop:
            continue
        out += answer[done:first]
        k = first
        while k < stop:
            if one_word(k, segments):
                out.append(answer[k])
                k += 1
                continue
            m = k + 1
            while m < stop and not one_word(m, segments):
                m += 1
            begin = _first_source_letter(segments, bounds[k])
            end = _past_source_letter(segments, bounds[m])
            lo = bisect.bisect_left(starts, begin, hi=words)
            hi = bisect.bisect_left(starts, end, hi=words)
            out += source[lo:hi] if lo < hi else answer[k:m]
            k = m
        done = stop
    return out + answer[done:]


__all__ = ["LETTER_RUN", "LETTER_SEED", "Segment", "realigned"]
