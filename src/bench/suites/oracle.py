"""The oracle: the calls a model that knows BFCL's ground truth would make.

Used by the importer to leave out cases no output can pass (the ground truth contradicts its own
function doc, docs/SUITES.md) and by the tests, which require the oracle to score 1.000 on every
imported task. Java and JavaScript values are written the way BFCL's checker reads them back
(:mod:`bench.suites.literals`): ``5L``, ``new ArrayList<>(Arrays.asList("a"))``, ``{k: 'v'}``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from bench.tasks.expectations import ExpectedCall

from .astmatch import Language, Param, Signature


def _first(values: list[Any]) -> Any:
    return values[0] if values else ""


def _reduce_dict(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    return {
        key: _first(listed)
        for key, listed in value.items()
        if isinstance(listed, list) and _first(listed) != ""
    }


def _python_value(value: Any, param: Param) -> Any:
    if param.type == "dict":
        return _reduce_dict(value)
    if param.type in ("array", "tuple") and param.items == "dict" and isinstance(value, list):
        return [_reduce_dict(item) for item in value]
    return value


def _java_literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


def _java(value: Any, kind: str, items: str | None) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if kind == "long":
        return f"{value}L"
    if kind == "float":
        return f"{value}f"
    if kind == "Array" and isinstance(value, list):
        inner = ", ".join(_java(item, items or "any", None) for item in value)
        return f"new {items or 'Object'}[]{{{inner}}}"
    if kind == "ArrayList" and isinstance(value, list):
        if not value:
            return "new ArrayList<>()"
        quoted = items in ("String", "char")
        inner = ", ".join(
            f'"{item}"' if quoted else _java(item, items or "any", None) for item in value
        )
        return f"new ArrayList<>(Arrays.asList({inner}))"
    if kind == "HashMap" and isinstance(value, dict):
        entries = _reduce_dict(value)
        if not entries:
            return "new HashMap<>()"
        puts = " ".join(f'put("{k}", {_java_literal(v)});' for k, v in entries.items())
        return f"new HashMap<String, Object>() {{{{ {puts} }}}}"
    return json.dumps(value) if isinstance(value, list | dict) else str(value)


def _js_number(value: float) -> str:
    text = repr(value)
    return format(value, "f") if "e" in text else text


def _js_literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"'{value}'"
    if isinstance(value, list):
        return "[" + ", ".join(_js_literal(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_js_literal(v)}" for k, v in value.items()) + "}"
    return _js_number(value) if isinstance(value, float) else str(value)


def _js(value: Any, kind: str, items: str | None) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if kind == "Bigint":
        return f"{value}n"
    if kind == "float" and isinstance(value, int | float):
        return _js_number(float(value))
    if kind == "array" and isinstance(value, list):
        parts = [
            f'"{item}"' if isinstance(item, str) else _js(item, items or "any", None)
            for item in value
        ]
        return "[" + ", ".join(parts) + "]"
    if kind == "dict" and isinstance(value, dict):
        return _js_literal(_reduce_dict(value))
    return _js_literal(value)


def render(value: Any, param: Param, language: str) -> Any:
    """A ground-truth value as a model would send it in ``language``."""
    if language == "java":
        return _java(value, param.type, param.items)
    if language == "javascript":
        return _js(value, param.type, param.items)
    return _python_value(value, param)


def oracle(
    signatures: Mapping[str, Signature], expected: Sequence[ExpectedCall], language: Language
) -> list[tuple[str, dict[str, Any]]]:
    """The calls a model that knows the ground truth makes: for every argument its first
    listed value, as ``language`` writes it. An argument whose first value is ``""`` (may be
    omitted) is omitted, unless the function requires it, when its first other value is
    given; an optional argument the function does not declare is omitted."""
    made: list[tuple[str, dict[str, Any]]] = []
    for call in expected:
        signature = signatures.get(call.tool, Signature(call.tool, {}))
        args: dict[str, Any] = {}
        for name, values in call.args.items():
            given = [value for value in values if value != ""]
            optional = len(given) < len(values)
            if not given or (optional and name not in signature.params):
                continue
            if optional and values[0] == "" and name not in signature.required:
                continue
            args[name] = render(given[0], signature.params.get(name, Param("any")), language)
        made.append((call.tool, args))
    return made


__all__ = ["oracle", "render"]
