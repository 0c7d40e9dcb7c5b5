"""Turning a pydantic ValidationError into one readable line naming the field."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError


def field_path(loc: Sequence[int | str], prefix: str = "") -> str:
    out = prefix
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def describe(
    error: ValidationError, prefix: str = "", skip_labels: frozenset[str] = frozenset()
) -> tuple[str, str]:
    """``(field, message)`` for the first error, with ``(+N more)`` when there are others."""
    errors = error.errors(include_url=False)
    first: dict[str, Any] = dict(errors[0])
    loc = [
        part
        for part in first["loc"]
        if not _is_union_member_label(part) and part not in skip_labels
    ]
    message = str(first["msg"])
    kind = first.get("type")
    if kind == "union_tag_invalid":
        ctx = first.get("ctx") or {}
        message = (
            f"unknown expectation type '{ctx.get('tag')}' (known: {ctx.get('expected_tags')})"
            if ctx.get("discriminator") == "'type'"
            else message
        )
        loc.append("type")
    elif kind == "extra_forbidden":
        message = "unknown field"
    elif kind == "missing":
        message = "required field is missing"
    if message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    if len(errors) > 1:
        message += f" (+{len(errors) - 1} more)"
    return field_path(loc, prefix), message


def _is_union_member_label(part: int | str) -> bool:
    # pydantic puts the member model's name in the loc of union errors ("ToolSpec", "contains").
    return isinstance(part, str) and (part[:1].isupper() or part.startswith("function-"))


def not_json(value: Any, path: str = "") -> tuple[str, str] | None:
    """The path and kind of the first value in ``value`` that JSON cannot hold, if any.

    YAML reads ``.nan`` as NaN, an unquoted ``2026-07-14`` as a date, ``!!binary`` as bytes and
    ``!!set`` as a set: a free-form field (a task's tool data, a target's ``params``) holding
    one could never be written as canonical JSON, hashed or sent, so its model refuses it."""
    if _plainly_json(value):
        return None
    return _first_not_json(value, path)


def _plainly_json(value: Any) -> bool:
    """True only when ``not_json`` would find nothing: every container a ``dict`` (``str``
    keys), ``list`` or ``tuple`` and every leaf ``None``, ``str``, ``bool``, ``int`` or a finite
    ``float``, each of exactly that type. No paths are made, so a task's check costs about half
    the walk that names them (docs/PERFORMANCE.md, issue 19); anything else, a subclass
    included, goes to that walk, which decides."""
    stack = [value]
    seen: set[int] = set()  # a container met twice (YAML aliases, a cycle): the walk decides
    pop, push, push_all, see = stack.pop, stack.append, stack.extend, seen.add
    while stack:
        item = pop()
        kind = type(item)
        if kind is str or kind is int or kind is bool or item is None:
            continue
        if kind is dict:
            if id(item) in seen:
                return False
            see(id(item))
            for key, member in item.items():
                if type(key) is not str:
                    return False
                push(member)
        elif kind is list or kind is tuple:
            if id(item) in seen:
                return False
            see(id(item))
            push_all(item)
        elif kind is not float or not math.isfinite(item):
            return False
    return True


def _first_not_json(value: Any, path: str) -> tuple[str, str] | None:
    if value is None or isinstance(value, str | bool | int):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else (path or "(root)", repr(value))
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return (f"{path}.{key}" if path else str(key), f"the key {key!r}")
            found = _first_not_json(item, f"{path}.{key}" if path else key)
            if found:
                return found
        return None
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found = _first_not_json(item, f"{path}[{index}]")
            if found:
                return found
        return None
    return (path or "(root)", f"a {type(value).__name__}")


__all__ = ["describe", "field_path", "not_json"]
