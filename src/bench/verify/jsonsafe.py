"""Strict JSON for untrusted files: UTF-8, bounded nesting, no duplicate keys, no NaN or
Infinity (nor overflowing floats), and, for I-JSON (the manifest), integers within ±(2⁵³−1)."""

from __future__ import annotations

import itertools
import json
import math
import re
from typing import Any

from .codes import Code
from .failure import VerifyFailure

MAX_DEPTH = 64
SAFE_INTEGER = 2**53 - 1
# A JSON string, written as an unrolled loop (far faster than one alternation per character).
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
# '[' and '{' become 1, ']' and '}' become 255, read back as signed bytes: +1 and -1.
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")


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


def load(data: bytes, path: str, *, ijson: bool = False, max_depth: int = MAX_DEPTH) -> Any:
    """Parse ``data``; every refusal is a ``VerifyFailure`` naming ``path``.

    Duplicate keys are found without a Python hook per object: outside strings, valid JSON
    has exactly one ':' per key-value pair written, so when the parsed objects hold fewer
    keys than the text has colons, a key came twice, and a strict re-parse names it."""
    outside = _STRING.sub(b"", data)
    if _depth(outside) > max_depth:
        raise VerifyFailure(Code.LIMIT_DEPTH, f"nested deeper than {max_depth}", path=path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise VerifyFailure(
            Code.JSON_MALFORMED, f"not UTF-8 (byte {exc.start})", path=path
        ) from None
    options: dict[str, Any] = {
        "parse_constant": _constant,
        "parse_float": _float,
        "parse_int": _int_checked if ijson else int,
    }
    try:
        value = json.loads(text, **options)
        if _keys(value) != outside.count(b":"):
            json.loads(text, object_pairs_hook=_pairs, **options)  # raises DUPLICATE_KEY
            raise _Refused(Code.DUPLICATE_KEY, "a key appears twice in one object")
        return value
    except _Refused as exc:
        raise VerifyFailure(exc.code, str(exc), path=path) from None
    except (json.JSONDecodeError, RecursionError, ValueError) as exc:
        raise VerifyFailure(Code.JSON_MALFORMED, f"malformed JSON: {exc}", path=path) from None


__all__ = ["MAX_DEPTH", "SAFE_INTEGER", "depth", "load"]
