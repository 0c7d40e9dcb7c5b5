"""Strict JSON for untrusted files: UTF-8, bounded nesting, no duplicate keys, no NaN or
Infinity (nor overflowing floats), and, for I-JSON (the manifest), integers within ±(2⁵³−1)."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from .codes import Code
from .failure import VerifyFailure

MAX_DEPTH = 64
SAFE_INTEGER = 2**53 - 1
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_BRACKETS = re.compile(rb"[\[\]{}]")


def depth(data: bytes) -> int:
    """The deepest nesting of arrays and objects (strings skipped), without parsing."""
    deepest = level = 0
    for bracket in _BRACKETS.findall(_STRING.sub(b'""', data)):
        if bracket in (b"[", b"{"):
            level += 1
            deepest = max(deepest, level)
        else:
            level -= 1
    return deepest


class _Refused(ValueError):
    def __init__(self, code: Code, message: str) -> None:
        super().__init__(message)
        self.code = code


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _Refused(Code.DUPLICATE_KEY, f"duplicate key '{key[:40]}'")
        result[key] = value
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


def load(data: bytes, path: str, *, ijson: bool = False, max_depth: int = MAX_DEPTH) -> Any:
    """Parse ``data``; every refusal is a ``VerifyFailure`` naming ``path``."""
    if depth(data) > max_depth:
        raise VerifyFailure(Code.LIMIT_DEPTH, f"nested deeper than {max_depth}", path=path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise VerifyFailure(
            Code.JSON_MALFORMED, f"not UTF-8 (byte {exc.start})", path=path
        ) from None
    try:
        return json.loads(
            text,
            object_pairs_hook=_pairs,
            parse_constant=_constant,
            parse_float=_float,
            parse_int=_int_checked if ijson else int,
        )
    except _Refused as exc:
        raise VerifyFailure(exc.code, str(exc), path=path) from None
    except (json.JSONDecodeError, RecursionError, ValueError) as exc:
        raise VerifyFailure(Code.JSON_MALFORMED, f"malformed JSON: {exc}", path=path) from None


__all__ = ["MAX_DEPTH", "SAFE_INTEGER", "depth", "load"]
