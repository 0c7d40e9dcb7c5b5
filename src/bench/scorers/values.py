"""JSON values as the checks compare and show them (no scorers here).

Used by ``document`` (the answer read as JSON) and ``plans`` (tool-call arguments). Equality is
JSON equality, with the traps a Python ``==`` falls into closed:

* a boolean equals only a boolean: ``true`` is not ``1`` and ``1`` is not ``true`` (Python says
  ``True == 1``);
* numbers compare by value, so ``77.5`` equals ``77.50`` and ``1`` equals ``1.0`` (JSON has one
  number type); NaN equals nothing;
* a string never equals a number: ``"1"`` is not ``1``;
* ``null`` equals only ``null``;
* objects are equal when they have the same keys (compared exactly) and equal values; arrays
  when they have the same length and equal items in the same order — the same rules, all the
  way down;
* anything that is not a JSON value (a tuple, a date, a set) equals nothing.

``fold_strings`` is the one normalisation a check may ask for: strings compare after
``strip()`` and ``casefold()`` — surrounding whitespace and case, nothing else.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from .base import truncate

VALUE_LIMIT = 40
"""How many characters of one value a sentence shows before it truncates with '…'."""


MAX_DEPTH = 64
"""The deepest nesting a check reads. A document nested deeper is refused as unreadable, so no
check can hit Python's recursion limit on an answer built to do it."""


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _scalars_equal(expected: Any, actual: Any, fold_strings: bool) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    if _is_number(expected) or _is_number(actual):
        return _is_number(expected) and _is_number(actual) and expected == actual
    if expected is None or actual is None:
        return expected is None and actual is None
    if isinstance(expected, str) and isinstance(actual, str):
        if fold_strings:
            return expected.strip().casefold() == actual.strip().casefold()
        return expected == actual
    return False


Difference = tuple[tuple[str | int, ...], str]
"""Where two values first differ (the path inside them) and how: ``expected 1, got true``."""


def difference(expected: Any, actual: Any, *, fold_strings: bool = False) -> Difference | None:
    """The first place ``actual`` differs from ``expected`` under JSON equality (see the module
    docstring), or None when they are equal. Keys are visited in ``expected``'s order, then
    the keys only ``actual`` has; array items in order."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key, value in expected.items():
            if key not in actual:
                return (key,), f"expected {as_json(value)}, got nothing"
            inner = difference(value, actual[key], fold_strings=fold_strings)
            if inner is not None:
                return (key, *inner[0]), inner[1]
        for key, value in actual.items():
            if key not in expected:
                return (key,), f"not expected, got {as_json(value)}"
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        for index, (e, a) in enumerate(zip(expected, actual, strict=False)):
            inner = difference(e, a, fold_strings=fold_strings)
            if inner is not None:
                return (index, *inner[0]), inner[1]
        if len(expected) != len(actual):
            return (), f"expected {_items(len(expected))}, got {_items(len(actual))}"
        return None
    if _scalars_equal(expected, actual, fold_strings):
        return None
    return (), f"expected {as_json(expected)}, got {as_json(actual)}"


def _items(n: int) -> str:
    return f"{n} item" if n == 1 else f"{n} items"


def same_value(expected: Any, actual: Any, *, fold_strings: bool = False) -> bool:
    """JSON equality of ``expected`` and ``actual`` (see the module docstring)."""
    return difference(expected, actual, fold_strings=fold_strings) is None


def matches_args(expected: Mapping[str, Any], arguments: Any) -> bool:
    """Every key of ``expected`` is in ``arguments`` with an equal value (exact strings);
    other arguments may be there too."""
    if not isinstance(arguments, Mapping):
        return False
    return all(
        key in arguments and same_value(value, arguments[key]) for key, value in expected.items()
    )


def not_json(value: Any, depth: int = 0) -> str | None:
    """Why ``value`` is not a JSON value (the Python type of the offending part), or None.

    A task file read as YAML can hold things JSON cannot — an unquoted ``2026-01-31`` is a
    date, ``.nan`` a NaN — and an expected value no answer can ever equal is a task problem,
    not an agent failure.
    """
    if value is None or isinstance(value, bool | int | str):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else repr(value)
    if depth > MAX_DEPTH:
        return f"nested deeper than {MAX_DEPTH} levels"
    if isinstance(value, list):
        for item in value:
            problem = not_json(item, depth + 1)
            if problem is not None:
                return problem
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"a {type(key).__name__} key"
            problem = not_json(item, depth + 1)
            if problem is not None:
                return problem
        return None
    return f"a {type(value).__name__}"


def depth_of(value: Any) -> int:
    """How deeply ``value`` nests (a scalar is 0, ``[]`` is 1), computed without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            deepest = max(deepest, level)
            continue
        deepest = max(deepest, level + 1)
        stack.extend((child, level + 1) for child in children)
    return deepest


def kind_of(value: Any) -> str:
    """The JSON name of a value's type: object, array, string, number, boolean, null."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if _is_number(value):
        return "number"
    if value is None:
        return "null"
    return type(value).__name__


def as_json(value: Any, limit: int = VALUE_LIMIT) -> str:
    """A value as JSON text (``"INV-1"``, ``77.5``, ``true``, ``null``), truncated for a
    sentence. A value JSON cannot write is shown by ``repr``."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        text = _repr(value)
    return truncate(text, limit)


def _repr(value: Any) -> str:
    try:
        return repr(value)
    except RecursionError:
        return f"<a {kind_of(value)} nested too deeply to show>"


def as_call(tool: str, arguments: Mapping[str, Any], limit: int = 2 * VALUE_LIMIT) -> str:
    """``issue_refund(order_id='1041')``: a call with its arguments in the order given, each
    value by ``repr`` (so ``'1'`` and ``1``, ``True`` and ``1`` read differently)."""
    shown = ", ".join(
        f"{key}={truncate(_repr(value), VALUE_LIMIT)}" for key, value in arguments.items()
    )
    return truncate(f"{tool}({shown})", limit)


__all__ = [
    "MAX_DEPTH",
    "VALUE_LIMIT",
    "as_call",
    "as_json",
    "Difference",
    "depth_of",
    "difference",
    "kind_of",
    "matches_args",
    "not_json",
    "same_value",
]
