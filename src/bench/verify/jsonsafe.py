"""Strict JSON for untrusted files: UTF-8, bounded nesting, no duplicate keys, no NaN or
Infinity (nor overflowing floats), and, for I-JSON (the manifest), integers within ±(2⁵³−1).

With ``text=True`` (every record of a bundle) every string, keys and values at any depth, must
be text the board can show (``TEXT_INVALID`` otherwise): no lone surrogate (U+D800–U+DFFF,
which only a ``\\ud800`` escape can produce), no non-character (U+FDD0–U+FDEF, U+xFFFE and
U+xFFFF in every plane), no control character but tab, LF and CR (C0, DEL, C1). Bytes that
are not UTF-8 are ``TEXT_INVALID`` too, with or without ``text``; with ``ijson=True`` (the
manifest) surrogates and non-characters are refused, as I-JSON does (RFC 7493, 2.1).

The check is a scan of the raw bytes for the literal characters and for every escape that
could spell one; only when the scan finds something are the parsed strings walked, to name the
field (or to clear a false alarm such as an escaped backslash before ``u0000``, or a valid
surrogate pair).

With ``text=True`` a string may also hold at most ``MAX_MARKS`` (30) combining marks and
invisible characters in a row (``LIMIT_COMBINING`` otherwise; Unicode's stream-safe text
format, UAX #15, allows 30 non-starters in a row). Unicode normalization sorts every run of
combining marks by insertion (CPython's ``unicodedata``), so its time grows with the square of
a run's length: 128,000 marks in one answer, 256 KB in a 5 KB gzip, cost the scorers' ``fold``
half a minute, and a 16 MiB line would cost days. Every reader of a record's text after this
check (the scorers, the search index's tokens, provenance, the board) normalizes runs of at
most 30 marks (a few times that after decomposition), in time linear in the text. Runs are
looked for in the parsed strings that are not ASCII (none when the raw text is ASCII with no
``\\u`` escape), by one regex scan each (``mark_run``).
"""

from __future__ import annotations

import itertools
import json
import math
import re
from typing import Any

from bench.core.recordtext import (
    MARK_PLANES,
    MAX_MARKS,
    SUSPECT_ESCAPE,
    bad_text,
    describe_char,
    first_bad,
    is_mark,
    long_marks,
    mark_run,
)
from bench.core.recordtext import marks_suspect as _marks_suspect

from .codes import Code
from .failure import VerifyFailure

MAX_DEPTH = 64
SAFE_INTEGER = 2**53 - 1
# A JSON string, written as an unrolled loop (far faster than one alternation per character).
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
# '[' and '{' become 1, ']' and '}' become 255, read back as signed bytes: +1 and -1.
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")


# Every byte of printable ASCII text, tab, LF and CR (``_literal``'s fast path).
_ASCII_TEXT = b"\t\n\r" + bytes(range(0x20, 0x7F))


def depth(data: bytes) -> int:
    """The deepest nesting of arrays and objects (strings skipped), without parsing."""
    return _depth(_STRING.sub(b"", data))


def _depth(outside: bytes) -> int:
    """The highest running sum of +1 per opening and -1 per closing bracket of ``outside``
    (the text with its strings removed), all in C loops."""
    brackets = outside.translate(None, _NOT_BRACKETS)
    if not brackets:
        return 0
    steps = memoryview(brackets.translate(_STEPS)).cast("b")
    return max(0, max(itertools.accumulate(steps)))


class _Refused(ValueError):
    def __init__(self, code: Code, message: str) -> None:
        super().__init__(message)
        self.code = code


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):  # only then look for the key that came twice
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused(Code.DUPLICATE_KEY, f"duplicate key '{key[:40]}'")
            seen.add(key)
    return result


def _constant(name: str) -> Any:
    raise _Refused(Code.NON_FINITE_NUMBER, f"non-finite number {name}")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(Code.NON_FINITE_NUMBER, f"number {text[:40]} overflows to infinity")
    return value


def _int_checked(text: str) -> int:
    value = int(text)
    if abs(value) > SAFE_INTEGER:
        raise _Refused(Code.INTEGER_RANGE, f"integer {text[:40]} is beyond ±(2^53-1)")
    return value


def _keys(value: Any) -> int:
    """How many keys the objects in ``value`` hold, all levels (no recursion)."""
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            total += len(item)
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
    return total


def check_marks(value: Any, path: str) -> None:
    """``LIMIT_COMBINING`` naming ``path`` and the field when a string of ``value`` holds more
    than ``MAX_MARKS`` combining marks or invisible characters in a row."""
    found = long_marks(value)
    if found is not None:
        field, start = found
        raise VerifyFailure(
            Code.LIMIT_COMBINING,
            f"holds more than {MAX_MARKS} combining marks or invisible characters in a row "
            f"(from character {start}); at most {MAX_MARKS}",
            path=path,
            field=field,
        )


def check_text(value: Any, path: str, controls: bool = True) -> None:
    """``TEXT_INVALID`` naming ``path`` and the field when a string of ``value`` holds a
    character the board cannot show (the walk alone, for values not read by ``load``)."""
    found = bad_text(value, controls)
    if found is not None:
        field, what = found
        raise VerifyFailure(
            Code.TEXT_INVALID, f"holds {what}, text the board cannot show", path=path, field=field
        )


def _literal(data: bytes, decoded: str, path: str, controls: bool) -> bool:
    """Refuse a literal C0 control (JSON cannot even hold one in a string: its place is named,
    there is no field to name); True when another literal character the board cannot show
    is there (the parsed strings then name its field)."""
    if data.isascii() and (not controls or not data.translate(None, _ASCII_TEXT)):
        return False
    found = first_bad(decoded, controls)
    if found is None:
        return False
    where, ch = found
    if ord(ch) < 0x20:
        raise VerifyFailure(
            Code.TEXT_INVALID,
            f"holds {describe_char(ch)} (character {where}), text the board cannot show",
            path=path,
        )
    return True


def load(
    data: bytes,
    path: str,
    *,
    ijson: bool = False,
    max_depth: int = MAX_DEPTH,
    text: bool = False,
) -> Any:
    """Parse ``data``; every refusal is a ``VerifyFailure`` naming ``path``.

    Duplicate keys are found without a Python hook per object: outside strings, valid JSON
    has exactly one ':' per key-value pair written, so when the parsed objects hold fewer
    keys than the text has colons, a key came twice, and a strict re-parse names it.

    ``text``: refuse (``TEXT_INVALID``) any string the board cannot show, written literally
    (found before parsing) or as an escape (found after). ``ijson`` (the manifest) refuses
    surrogates and non-characters as I-JSON does (RFC 7493, 2.1), but not controls: a
    manifest's paths get their own, more precise code first (a NUL is ``PATH_UNSAFE``), and
    ``records.check_consistency`` checks the rest of its text afterwards."""
    outside = _STRING.sub(b"", data)
    if _depth(outside) > max_depth:
        raise VerifyFailure(Code.LIMIT_DEPTH, f"nested deeper than {max_depth}", path=path)
    try:
        decoded = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise VerifyFailure(Code.TEXT_INVALID, f"not UTF-8 (byte {exc.start})", path=path) from None
    checked = text or ijson
    suspect = checked and _literal(data, decoded, path, controls=text)
    options: dict[str, Any] = {
        "parse_constant": _constant,
        "parse_float": _float,
        "parse_int": _int_checked if ijson else int,
    }
    try:
        value = json.loads(decoded, **options)
        # Text first: the duplicate key's name goes into a message, and must be printable.
        if suspect or (checked and SUSPECT_ESCAPE.search(data) is not None):
            check_text(value, path, controls=text)
        if text and _marks_suspect(data):
            check_marks(value, path)
        if _keys(value) != outside.count(b":"):
            json.loads(decoded, object_pairs_hook=_pairs, **options)  # raises DUPLICATE_KEY
            raise _Refused(Code.DUPLICATE_KEY, "a key appears twice in one object")
        return value
    except _Refused as exc:
        raise VerifyFailure(exc.code, str(exc), path=path) from None
    except (json.JSONDecodeError, RecursionError, ValueError) as exc:
        raise VerifyFailure(Code.JSON_MALFORMED, f"malformed JSON: {exc}", path=path) from None


__all__ = [
    "MARK_PLANES",
    "MAX_DEPTH",
    "MAX_MARKS",
    "SAFE_INTEGER",
    "bad_text",
    "check_marks",
    "check_text",
    "depth",
    "is_mark",
    "load",
    "long_marks",
    "mark_run",
]
