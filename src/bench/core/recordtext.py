"""Text a record may hold: what ``bench verify`` reads in every record of a bundle
(``verify.jsonsafe``, ``TEXT_INVALID`` and ``LIMIT_COMBINING``) and what the harness takes from
an endpoint (``targets.http.loads_strict``), one rule for both, so that nothing a run takes
makes its bundle unverifiable.

Text the board can show: no lone surrogate (U+D800-U+DFFF), no non-character (U+FDD0-U+FDEF,
U+xFFFE and U+xFFFF in every plane), no control character but tab, LF and CR (C0, DEL, C1);
and at most ``MAX_MARKS`` combining marks or invisible characters in a row (Unicode's
stream-safe text format, UAX #15). The details of each rule are in ``verify.jsonsafe``.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from typing import Any

MAX_MARKS = 30
"""The most combining marks and invisible characters a string may hold in a row (UAX #15's
stream-safe limit on non-starters)."""
# Text the board can show without a second look: tab, LF, CR, printable ASCII, and the BMP
# but C1, surrogates and non-characters. Whatever else matches is a character the board cannot
# show, or an astral one (U+10000 and up), bad only when it is U+xFFFE or U+xFFFF.
_UNUSUAL = re.compile("[^\t\n\r\x20-\x7e\xa0-\ud7ff\ue000-\ufdcf\ufdf0-\ufffd]")
_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")  # a key written as is in a field path
# Every escape that may spell one of them: \b, \f, \u0000-\u001f, \u007f-\u009f, any
# surrogate, U+FDD0-U+FDEF, U+FFFE, U+FFFF (a superset: the walk decides).
SUSPECT_ESCAPE = re.compile(
    rb"\\(?:[bf]|u(?:00[0189]|007[fF]|[dD][89a-fA-F]|[fF][dD][dDeE]|[fF][fF][fF][eEfF]))"
)
SUSPECT_ESCAPE_TEXT = re.compile(SUSPECT_ESCAPE.pattern.decode("ascii"))


def field_path(where: str, key: str) -> str:
    """``where.key``, the key escaped when it is not a plain name (it may be the bad text)."""
    name = key if _NAME.fullmatch(key) else json.dumps(key[:64])
    return f"{where}.{name}" if where else name


def describe_char(ch: str) -> str:
    point = ord(ch)
    if 0xD800 <= point <= 0xDFFF:
        return f"a lone surrogate U+{point:04X}"
    if point < 0x20 or 0x7F <= point <= 0x9F:
        return f"a control character U+{point:04X}"
    return f"a non-character U+{point:04X}"


def first_bad(text: str, controls: bool = True) -> tuple[int, str] | None:
    """Where the first character the board cannot show is in ``text``, and that character;
    without ``controls``, only surrogates and non-characters count (I-JSON's rule)."""
    for found in _UNUSUAL.finditer(text):
        point = ord(found.group())
        if point >= 0x10000:
            if point & 0xFFFE == 0xFFFE:
                return found.start(), found.group()
        elif controls or point >= 0xA0:
            return found.start(), found.group()
    return None


def bad_text(value: Any, controls: bool = True) -> tuple[str | None, str] | None:
    """A string in ``value`` (keys included, any depth) holding a character the board
    cannot show: ``(field path or None for the top level, what it holds)``; None when clean.
    Without ``controls``, only surrogates and non-characters count."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, where = stack.pop()
        kind = type(item)
        if kind is str:
            found = first_bad(item, controls)
            if found is not None:
                return where or None, describe_char(found[1])
        elif kind is dict:
            for key, inner in item.items():
                found = first_bad(key, controls)
                if found is not None:
                    return field_path(where, key), f"a key with {describe_char(found[1])}"
                stack.append((inner, field_path(where, key)))
        elif kind is list:
            stack.extend((inner, f"{where}[{index}]") for index, inner in enumerate(item))
    return None


def is_mark(ch: str) -> bool:
    """A character that normalization may move, or that the copy rules delete: a non-starter
    (canonical combining class above 0), one whose decomposition starts with one (U+FF9E,
    U+FF9F), a combining mark (Mn, Me) or an invisible format character (Cf)."""
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return True
    decomposed = unicodedata.normalize("NFKD", ch) if unicodedata.decomposition(ch) else ""
    return bool(decomposed) and unicodedata.combining(decomposed[0]) > 0


MARK_PLANES = (range(0x20000), range(0xE0000, 0xE1000))
"""Where marks are (planes 0, 1 and 14; ``tests/verify/test_marks.py`` checks the others hold
none in this Python's Unicode)."""


@functools.cache
def mark_points() -> tuple[int, ...]:
    """Every ``is_mark`` character, as code points (about 2,150; made at the first string with
    a run of more than ``MAX_MARKS`` characters that are not ASCII). One plane at a time, a
    block of 4,096 code points at a time: the whole table made from lists of every code point
    held 17 MiB at its peak, a quarter of a whole run's memory (docs/PERFORMANCE.md, issue 19)."""
    found: list[int] = []
    for plane in MARK_PLANES:
        for start in range(plane.start, plane.stop, 4096):
            block = [
                c for c in range(start, min(start + 4096, plane.stop)) if not 0xD800 <= c <= 0xDFFF
            ]
            text = "".join(map(chr, block))
            flags = map(bool, map(unicodedata.combining, text))
            kinds = map(unicodedata.category, text)
            found += [
                code
                for code, combining, kind in zip(block, flags, kinds, strict=True)
                if combining or kind in ("Mn", "Me", "Cf")
            ]
    found += [code for code in (0xFF9E, 0xFF9F) if is_mark(chr(code))]
    return tuple(sorted(found))


@functools.cache
def _mark_run() -> re.Pattern[str]:
    """More than ``MAX_MARKS`` marks of the BMP in a row, matched only where such a run starts
    (so each character is tried a bounded number of times). Only BMP characters: ``re`` tests
    those against a bitmap, but astral ones against a list of ranges, 30 times slower."""
    ranges: list[tuple[int, int]] = []
    for code in mark_points():
        if code > 0xFFFF:
            break
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    marks = "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges)
    return re.compile(f"(?<![{marks}])[{marks}]{{{MAX_MARKS + 1}}}")


@functools.cache
def _astral_marks() -> dict[int, int]:
    """Astral marks, each read as a BMP one (U+0301) for ``_mark_run``."""
    return {code: 0x0301 for code in mark_points() if code > 0xFFFF}


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_LONG_NON_ASCII = re.compile(f"[^\\x00-\\x7f]{{{MAX_MARKS + 1}}}")


def mark_run(text: str) -> int | None:
    """Where ``text`` first holds more than ``MAX_MARKS`` marks (``is_mark``) in a row, or
    None: one scan of the text, two when it holds an astral character. Every mark is outside
    ASCII, so text with no run of more than ``MAX_MARKS`` characters outside it (any answer in
    a language written with spaces) holds none, and the table of marks is not made for it."""
    if text.isascii() or _LONG_NON_ASCII.search(text) is None:
        return None
    if _ASTRAL.search(text) is not None:
        text = text.translate(_astral_marks())  # one character for one: positions hold
    found = _mark_run().search(text)
    return None if found is None else found.start()


def long_marks(value: Any) -> tuple[str | None, int] | None:
    """A string in ``value`` (keys included, any depth) holding more than ``MAX_MARKS`` marks
    (``is_mark``) in a row: ``(field path or None for the top level, where the run starts)``;
    None when there is none."""
    if not _any_mark_run(value):
        return None  # the common case, decided without making a path for every field
    return _first_mark_run(value)


def _first_mark_run(value: Any) -> tuple[str | None, int] | None:
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, where = stack.pop()
        kind = type(item)
        if kind is str:
            found = mark_run(item)
            if found is not None:
                return where or None, found
        elif kind is dict:
            for key, inner in item.items():
                found = mark_run(key)
                if found is not None:
                    return field_path(where, key), found
                stack.append((inner, field_path(where, key)))
        elif kind is list:
            stack.extend((inner, f"{where}[{index}]") for index, inner in enumerate(item))
    return None


def _any_mark_run(value: Any) -> bool:
    """Whether ``long_marks`` would find a string: the same walk and the same test of each
    string, without the field paths (about a third of its cost on a chat completion's body)."""
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            if mark_run(item) is not None:
                return True
        elif kind is dict:
            for key, inner in item.items():
                if mark_run(key) is not None:
                    return True
                stack.append(inner)
        elif kind is list:
            stack.extend(item)
    return False


def marks_suspect(data: bytes) -> bool:
    """Whether a string of the document may hold a mark: never in ASCII text without a
    ``\\u`` escape."""
    return not data.isascii() or b"\\u" in data


_ASCII_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def showable(text: str) -> str:
    """``text`` as a record may hold it: unchanged when it may, else with everything but
    printable ASCII, tab, LF and CR written as escapes (``\\x07``, ``\\ud800``, ``\\u0301``).
    For what a server says beside its answer (an error body, a header), kept as evidence."""
    if first_bad(text) is None and mark_run(text) is None:
        return text
    escaped = text.encode("ascii", "backslashreplace").decode("ascii")
    return _ASCII_CONTROL.sub(lambda found: f"\\x{ord(found.group()):02x}", escaped)


def unfit_text(value: Any, text: str) -> str | None:
    """Why ``value`` (parsed from the JSON ``text``) holds text a record may not hold, naming
    the field; None when it holds none (the common case, decided by scans of ``text``)."""
    if _UNUSUAL.search(text) is not None or SUSPECT_ESCAPE_TEXT.search(text) is not None:
        found = bad_text(value)
        if found is not None:
            field, what = found
            return f"{field or 'the value'} holds {what}"
    if not text.isascii() or "\\u" in text:
        marks = long_marks(value)
        if marks is not None:
            field, start = marks
            return (
                f"{field or 'the value'} holds more than {MAX_MARKS} combining marks or "
                f"invisible characters in a row (from character {start})"
            )
    return None


__all__ = [
    "MARK_PLANES",
    "MAX_MARKS",
    "SUSPECT_ESCAPE",
    "bad_text",
    "describe_char",
    "field_path",
    "first_bad",
    "is_mark",
    "long_marks",
    "mark_points",
    "mark_run",
    "marks_suspect",
    "showable",
    "unfit_text",
]
