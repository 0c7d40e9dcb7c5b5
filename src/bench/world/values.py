"""JSON values in the mock world: normalising, copying and comparing them.

Everything that enters or leaves the world (state, arguments, canned results) is passed through
a JSON round trip, so the world only ever holds ``dict``/``list``/``str``/``int``/``float``/
``bool``/``None``, with string keys, and never shares a mutable object with its caller.

Equality (:func:`same_json`) is JSON equality: the type matters (``1`` is not ``"1"``, ``true``
is not ``1``, ``null`` is not ``""``), numbers compare by value (``1`` equals ``1.0``), objects
compare key by key regardless of order, arrays element by element.
"""

from __future__ import annotations

import json
from typing import Any


def to_json(value: Any) -> Any:
    """A deep, JSON-only copy of ``value``; ``ValueError`` if it is not JSON (NaN included)."""
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError, RecursionError) as exc:
        raise ValueError(f"not a JSON value ({exc})") from None


def _key(value: Any) -> Any:
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, int | float):
        return ("number", value)
    if isinstance(value, str):
        return ("string", value)
    if value is None:
        return ("null",)
    if isinstance(value, list):
        return ("array", tuple(_key(item) for item in value))
    if isinstance(value, dict):
        return ("object", tuple((k, _key(v)) for k, v in sorted(value.items())))
    return ("other", repr(value))


def same_json(left: Any, right: Any) -> bool:
    """JSON equality of two normalised values (see the module docstring)."""
    return bool(_key(left) == _key(right))


__all__ = ["same_json", "to_json"]
