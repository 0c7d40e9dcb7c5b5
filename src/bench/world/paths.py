"""``{arg}`` templates and dotted state paths.

A template is a string in which ``{name}`` (a Python identifier in braces) is replaced by the
call's argument ``name``: a string argument as itself, anything else as its canonical JSON
(``1042``, ``true``, ``null``). Other braces are literal text. A write *value* that is exactly
one ``{name}`` takes the argument's value with its JSON type (so a quantity stays a number).

A state path is a template split on ``.`` *before* filling, so an argument containing a dot is
still one key: ``orders.{order_id}`` is ``["orders", <order_id>]``. A segment addresses an
object key, or an array index when the node is an array and the segment is a plain number.
Empty segments and stray braces make a path malformed (the task's fault).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any, Final

from bench.core.canonical import canonical_json

_TEMPLATE_RE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_INDEX_RE = re.compile(r"0|[1-9][0-9]*")


class TemplateError(Exception):
    """The task's own template or path is broken (the world turns this into a HarnessFault)."""


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()


def _argument(name: str, template: str, arguments: Mapping[str, Any]) -> Any:
    if name not in arguments:
        raise TemplateError(f"'{template}' uses {{{name}}}, but the call has no argument '{name}'")
    return arguments[name]


def render(template: str, arguments: Mapping[str, Any], whole: str | None = None) -> str:
    """``template`` filled; ``whole`` is the text errors quote (default: ``template``)."""

    def fill(match: re.Match[str]) -> str:
        value = _argument(match.group(1), whole or template, arguments)
        return value if isinstance(value, str) else canonical_json(value).decode("utf-8")

    return _TEMPLATE_RE.sub(fill, template)


def fill_value(value: Any, arguments: Mapping[str, Any]) -> Any:
    """A write value with its templates filled (recursively through arrays and objects)."""
    if isinstance(value, str):
        whole = _TEMPLATE_RE.fullmatch(value)
        if whole is not None:
            return copy.deepcopy(_argument(whole.group(1), value, arguments))
        return render(value, arguments)
    if isinstance(value, list):
        return [fill_value(item, arguments) for item in value]
    if isinstance(value, dict):
        return {key: fill_value(item, arguments) for key, item in value.items()}
    return value


def split_path(template: str) -> list[str]:
    """The segments of a path template; ``TemplateError`` if it is malformed."""
    segments = template.split(".")
    for segment in segments:
        if not segment:
            raise TemplateError(f"path '{template}' has an empty segment")
        if "{" in _TEMPLATE_RE.sub("", segment) or "}" in _TEMPLATE_RE.sub("", segment):
            raise TemplateError(f"path '{template}' has a brace that is not an {{argument}}")
    return segments


def fill_path(template: str, arguments: Mapping[str, Any]) -> list[str]:
    return [render(segment, arguments, template) for segment in split_path(template)]


def _child(node: Any, key: str) -> Any:
    if isinstance(node, dict):
        return node.get(key, MISSING)
    if isinstance(node, list) and _INDEX_RE.fullmatch(key) and int(key) < len(node):
        return node[int(key)]
    return MISSING


def get_path(state: Any, keys: list[str]) -> Any:
    """The value at ``keys``, or :data:`MISSING`."""
    node = state
    for key in keys:
        node = _child(node, key)
        if node is MISSING:
            return MISSING
    return node


def set_path(state: dict[str, Any], keys: list[str], value: Any) -> str | None:
    """Set ``keys`` to ``value``, creating objects on the way; an error sentence, or None."""
    node: Any = state
    for depth, key in enumerate(keys):
        last = depth == len(keys) - 1
        if isinstance(node, dict):
            if last:
                node[key] = value
            elif key not in node:
                node[key] = {}
        elif isinstance(node, list) and _INDEX_RE.fullmatch(key) and int(key) < len(node):
            if last:
                node[int(key)] = value
        else:
            where = ".".join(keys[:depth]) or "the state"
            return f"cannot set {'.'.join(keys)}: {where} has no place for '{key}'"
        if not last:
            node = _child(node, key)
    return None


__all__ = [
    "MISSING",
    "TemplateError",
    "fill_path",
    "fill_value",
    "get_path",
    "render",
    "set_path",
    "split_path",
]
