"""Runs of combining marks (``LIMIT_COMBINING``): a record's strings hold at most
``MAX_MARKS`` combining marks or invisible characters in a row, so every normalization that
reads them later (the scorers' ``fold``, the search index's tokens, provenance, the board) does
work linear in the text.

CPython's ``unicodedata.normalize`` puts each run of non-starters in canonical order by
insertion: one swap per pair of marks out of order, so its work is the number of inversions by
combining class in each run (``reorder_steps`` counts them). 128,000 marks in one answer (a
5 KB gzip) held ``bench verify`` for 34 s in ``answers.fold``; 256,000 for 5 minutes
(benchmarks/bench_marks.py)."""

from __future__ import annotations

import json
import sys
import unicodedata

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bench.core import recordtext
from bench.verify import jsonsafe
from bench.verify.codes import Code
from bench.verify.failure import VerifyFailure

ACUTE, BELOW = "\u0301", "\u0316"  # combining classes 230 and 220
HIDDEN = ("Mn", "Me", "Cf")


def _refusal(value: object, ensure_ascii: bool = True) -> VerifyFailure | None:
    data = json.dumps(value, ensure_ascii=ensure_ascii).encode()
    try:
        jsonsafe.load(data, "attempts.jsonl.gz:1", text=True)
    except VerifyFailure as exc:
        return exc
    return None


@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_a_run_over_the_limit_is_refused_naming_the_field(ensure_ascii: bool) -> None:
    limit = jsonsafe.MAX_MARKS
    assert _refusal({"trace": {"answers": ["a" + ACUTE * limit]}}, ensure_ascii) is None
    found = _refusal({"trace": {"answers": ["ok", "a" + ACUTE * (limit + 1)]}}, ensure_ascii)
    assert found is not None and found.code == Code.LIMIT_COMBINING
    assert found.field == "trace.answers[1]"
    assert f"more than {limit} combining marks" in str(found)
    # invisible characters, mixed classes, astral marks, a key: all count
    for text in ("a" + "\u200d" * 31, "a" + (ACUTE + BELOW) * 16, "\uff9e" * 31,
                 "a" + "\U0001d165" * 31, "a" + ("\U0001d165" + ACUTE) * 16):  # fmt: skip
        found = _refusal({"x": [text]}, ensure_ascii)
        assert found is not None and found.code == Code.LIMIT_COMBINING, ascii(text)
        found = _refusal({text: 1}, ensure_ascii)
        assert found is not None and found.code == Code.LIMIT_COMBINING, ascii(text)


def test_text_people_write_is_not_a_run() -> None:
    for text in (
        "é" * 200,  # precomposed letters: one mark each after decomposition, then a starter
        "Tiếng Việt có dấu",
        "👨\u200d👩\u200d👧\u200d👦 🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
        "がぎぐげござじずぜぞだぢづでどばびぶべぼぱぴぷぺぽ" * 3,
        "हिन्दी में लिखा पाठ",
        "中文字" * 1000,
    ):
        assert _refusal({"a": text}) is None, text
        assert jsonsafe.mark_run(text) is None


def _non_starters(ch: str) -> int:
    return sum(1 for part in unicodedata.normalize("NFKD", ch) if unicodedata.combining(part))


def reorder_steps(text: str) -> int:
    """The swaps canonical ordering makes in ``text`` once decomposed (each character
    decomposed alone, as normalization does before it reorders): the pairs of non-starters of
    one run whose combining classes are out of order. Counted in one pass."""
    steps = 0
    higher = [0] * 256  # higher[c]: non-starters of the run so far with class c
    for part in "".join(unicodedata.normalize("NFKD", ch) for ch in text):
        combining = unicodedata.combining(part)
        if combining == 0:
            higher = [0] * 256
            continue
        steps += sum(higher[combining + 1 :])
        higher[combining] += 1
    return steps


def _fold_inputs(text: str) -> list[str]:
    """What ``answers.fold`` hands ``unicodedata.normalize``: the text, and the text decomposed
    with its marks and invisible characters deleted (decomposed a character at a time, not
    reordered: at least as many swaps as the reordered text has)."""
    decomposed = "".join(unicodedata.normalize("NFKD", ch) for ch in text)
    return [text, "".join(ch for ch in decomposed if unicodedata.category(ch) not in HIDDEN)]


STEPS_PER_CHARACTER = 150
"""A run of at most 30 marks, each at most 3 non-starters decomposed, after a character with
at most 3 of its own: at most 93 non-starters, 93 * 92 / 2 swaps, for at least 31 characters."""

PIECES = st.sampled_from(
    ["a", " ", ACUTE, BELOW, "\u0345", "\u0344", "\u200d", "\u00ad", "\uff9e", "é", "ǖ",
     "\u1f82", "\U0001d165", "\U0001d16d", "\u05b0", "\u093f"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(PIECES, st.integers(1, 40)), max_size=12))
@example([("a", 1), (ACUTE, 2000), (BELOW, 2000)])  # 4 million swaps in 4,001 characters
@example([("a", 1), ("\U0001d16d", 500), ("\U0001d165", 500)])
def test_accepted_text_normalizes_in_linear_work(pieces: list[tuple[str, int]]) -> None:
    text = "".join(piece * times for piece, times in pieces)
    if _refusal({"answer": text}) is not None:
        return
    for given_text in _fold_inputs(text):
        assert reorder_steps(given_text) <= STEPS_PER_CHARACTER * max(1, len(given_text))


def test_the_bound_per_character_holds() -> None:
    """No character decomposes into more than 3 non-starters (the bound above)."""
    assert max(_non_starters(chr(c)) for c in range(0x30000) if not 0xD800 <= c <= 0xDFFF) <= 3


def test_the_mark_table_is_every_mark() -> None:
    """The regex's table is ``is_mark`` over its planes, and no other plane holds a mark in
    this Python's Unicode (``unicodedata.unidata_version``)."""
    inside = [
        code
        for plane in jsonsafe.MARK_PLANES
        for code in plane
        if not 0xD800 <= code <= 0xDFFF and jsonsafe.is_mark(chr(code))
    ]
    assert list(recordtext.mark_points()) == inside
    planes = set().union(*map(set, jsonsafe.MARK_PLANES))
    outside = (chr(c) for c in range(0x20000, sys.maxunicode + 1) if c not in planes)
    assert not any(map(jsonsafe.is_mark, outside))
    for code in inside:  # each is found by the scan, BMP or astral
        assert jsonsafe.mark_run("a" + chr(code) * 31) == 1, hex(code)
        assert jsonsafe.mark_run("a" + chr(code) * 30) is None, hex(code)


def test_text_without_a_long_run_outside_ascii_never_makes_the_table() -> None:
    """The table of marks held 17 MiB at its peak when made (a scripted run answering in
    Turkish made it at its first answer: 65 MiB of peak RSS instead of 58). Every mark is
    outside ASCII, so text with no run of 31 such characters is cleared without it."""
    import subprocess

    script = (
        "from bench.core import recordtext as r\n"
        "assert r.mark_run('İade talebiniz alındı; ücret 14 gün içinde iade edilir.') is None\n"
        "assert r.mark_run('ab' + 'çşğ' * 10) is None\n"
        "print(r.mark_points.cache_info().currsize)\n"
        "assert r.mark_run('a' + '\\u0301' * 31) == 1\n"
        "print(r.mark_points.cache_info().currsize)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "1"]
