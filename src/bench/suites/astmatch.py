"""BFCL's AST match: do the calls a model made match a ground truth of acceptable values?

A port of ``bfcl_eval/eval_checker/ast_eval/ast_checker.py`` (bfcl-eval 2026.3.23,
Apache-2.0, Berkeley Function Calling Leaderboard), kept rule for rule so that the ``calls``
check agrees with the official checker (measured in ``tests/suites/test_bfcl_agreement.py``,
every difference listed in docs/SUITES.md). The rules, as BFCL applies them:

* the number of calls must equal the number expected; each expected call, in ground-truth
  order, takes the first not-yet-taken call that matches it (so parallel calls match in any
  order, greedily, as BFCL does);
* a call matches when its name is the expected one, every required parameter is given, every
  argument given is a declared parameter that the ground truth lists, each value has the
  declared type and is one of the listed values, and every listed parameter whose list lacks
  ``""`` (BFCL's "may be omitted") is given;
* Python: ``int`` is accepted where ``float`` is declared; strings compare after removing
  spaces and ``,./-_*^``, folding case and turning ``'`` into ``"``; lists, dicts and lists of
  dicts compare element by element under the same string rule; a value of the ground truth's
  own type where the declared type differs is a "variable" and compares exactly;
* Java and JavaScript: every argument is a string in the language's syntax, read by
  :mod:`bench.suites.literals` before the same comparison.

``match`` returns ``None`` for a match, else one sentence saying why not.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

from .literals import JAVA_TYPES, JS_TYPES, Unsupported, java_value, js_value

Language = Literal["python", "java", "javascript"]

PYTHON_TYPES: dict[str, type] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "any": str,
}
_NESTED_PYTHON = ("array", "tuple")
_NESTED_CONVERTED = ("Array", "ArrayList", "array")
_STRIPPED = re.compile(r"[ \,\.\/\-\_\*\^]")


@dataclass(frozen=True)
class Param:
    """A declared parameter: BFCL's own type name, and its items' type for a list."""

    type: str
    items: str | None = None


@dataclass(frozen=True)
class Signature:
    """A function as the checker reads it: its parameters and which are required."""

    name: str
    params: Mapping[str, Param]
    required: tuple[str, ...] = ()


@dataclass(frozen=True)
class Expected:
    """One expected call: each argument's acceptable values (``""`` means may be omitted)."""

    name: str
    args: Mapping[str, Sequence[Any]]


ORIGINAL_TYPE = "x-bfcl-type"
"""The schema key that keeps BFCL's own type name beside the JSON Schema ``type``."""
ORIGINAL_ITEMS = "x-bfcl-items"
"""The schema key that keeps BFCL's items type (Java and JavaScript lists lose ``items``)."""
_FROM_JSON_SCHEMA = {
    "string": "string",
    "integer": "integer",
    "number": "float",
    "boolean": "boolean",
    "array": "array",
    "object": "dict",
}


def signature_of(name: str, schema: Mapping[str, Any]) -> Signature:
    """The checker's view of a tool's JSON Schema: BFCL's types where the schema keeps them
    (``x-bfcl-type``, ``x-bfcl-items``), else read back from the JSON Schema types."""
    properties = schema.get("properties")
    params: dict[str, Param] = {}
    if isinstance(properties, Mapping):
        for param, spec in properties.items():
            if isinstance(spec, Mapping):
                params[str(param)] = Param(_type_name(spec), _items_name(spec))
    required = schema.get("required")
    names = tuple(str(p) for p in required) if isinstance(required, list) else ()
    return Signature(name=name, params=params, required=names)


def _type_name(spec: Mapping[str, Any]) -> str:
    original = spec.get(ORIGINAL_TYPE)
    if isinstance(original, str):
        return original
    kind = spec.get("type")
    return _FROM_JSON_SCHEMA.get(kind, "any") if isinstance(kind, str) else "any"


def _items_name(spec: Mapping[str, Any]) -> str | None:
    original = spec.get(ORIGINAL_ITEMS)
    if isinstance(original, str):
        return original
    items = spec.get("items")
    return _type_name(items) if isinstance(items, Mapping) else None


class _Mismatch(Exception):
    def __init__(self, sentence: str) -> None:
        super().__init__(sentence)
        self.sentence = sentence


def standardize(text: str) -> str:
    """BFCL's string normalisation: drop spaces and ``,./-_*^``, lower case, ``'`` → ``"``."""
    return _STRIPPED.sub("", text).lower().replace("'", '"')


def show(value: Any) -> str:
    """A value as a sentence quotes it: JSON-like, strings in single quotes."""
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, list):
        return "[" + ", ".join(show(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {show(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _calls(n: int) -> str:
    return f"{n} call" if n == 1 else f"{n} calls"


def _one_of(answers: Sequence[Any]) -> str:
    listed = [show(answer) for answer in answers if answer != ""]
    return ", ".join(listed) if listed else "nothing"


def match(
    signatures: Mapping[str, Signature],
    made: Sequence[tuple[str, Mapping[str, Any]]],
    expected: Sequence[Expected],
    language: Language,
) -> str | None:
    """``None`` when ``made`` (name, arguments) matches ``expected``, else why not."""
    if len(made) != len(expected):
        return (
            f"made {_calls(len(made))} ({', '.join(name for name, _ in made) or 'none'}), "
            f"expected {len(expected)} ({', '.join(call.name for call in expected) or 'none'})"
        )
    taken: set[int] = set()
    for position, want in enumerate(expected):
        signature = signatures.get(want.name)
        reasons: list[str] = []
        for index, (name, args) in enumerate(made):
            if index in taken:
                continue
            problem = match_call(signature, name, args, want, language)
            if problem is None:
                taken.add(index)
                break
            reasons.append(problem)
        else:
            if len(expected) == 1:
                return reasons[-1] if reasons else f"no call for {want.name}"
            return f"no call matches expected call {position + 1} ({want.name}): " + (
                reasons[-1] if reasons else "every call was already matched"
            )
    return None


def match_call(
    signature: Signature | None,
    name: str,
    args: Mapping[str, Any],
    want: Expected,
    language: Language,
) -> str | None:
    """``None`` when one call matches one expected call (``simple_function_checker``)."""
    if name != want.name:
        return f"called {name}, expected {want.name}"
    if signature is None:
        return f"the task declares no function {want.name}"
    try:
        _check_call(signature, args, want, language)
    except _Mismatch as mismatch:
        return f"{name}: {mismatch.sentence}"
    return None


def _check_call(
    signature: Signature, args: Mapping[str, Any], want: Expected, language: Language
) -> None:
    for param in signature.required:
        if param not in args:
            raise _Mismatch(f"missing required argument '{param}'")
    for param, given in args.items():
        if param not in signature.params or param not in want.args:
            raise _Mismatch(f"unexpected argument '{param}'")
        _check_argument(param, given, signature.params[param], want.args[param], language)
    for param, answers in want.args.items():
        if param not in args and "" not in answers:
            raise _Mismatch(f"argument '{param}' is missing, expected one of {_one_of(answers)}")


def _declared(param: str, declared: Param, table: Mapping[str, type], lang: str) -> type:
    if declared.type not in table:
        raise _Mismatch(f"argument '{param}' has type '{declared.type}', unknown to {lang}")
    return table[declared.type]


def _check_argument(
    param: str, value: Any, declared: Param, answers: Sequence[Any], language: Language
) -> None:
    nested: type | None = None
    if language == "python":
        expected = _declared(param, declared, PYTHON_TYPES, "Python")
        if declared.type in _NESTED_PYTHON:
            nested = _declared(param, Param(declared.items or "?"), PYTHON_TYPES, "Python")
        if declared.type == "float" and type(value) is int:
            value = float(value)
    else:
        table = JAVA_TYPES if language == "java" else JS_TYPES
        expected = _declared(param, declared, table, language)
        if type(value) is not str:
            raise _Mismatch(
                f"argument '{param}' must be a {language} literal in a string, "
                f"got {type(value).__name__} {show(value)}"
            )
        items = None
        if declared.type in _NESTED_CONVERTED:
            items = declared.items
            nested = _declared(param, Param(items or "?"), table, language)
        read = java_value if language == "java" else js_value
        try:
            value = read(value, declared.type, items)
        except Unsupported as exc:
            raise _Mismatch(f"argument '{param}': {exc}") from None
    variable = _check_type(param, value, answers, declared.type, expected, nested)
    if not variable:
        if expected is dict:
            return _check_dict(param, value, answers)
        if expected is list and nested is dict:
            return _check_dict_list(param, value, answers)
        if expected is str:
            return _check_string(param, value, answers)
        if expected is list:
            return _check_list(param, value, answers)
    if value not in answers:
        raise _Mismatch(f"argument '{param}' was {show(value)}, expected one of {_one_of(answers)}")
    return None


def _answer_type(answers: Sequence[Any]) -> type | None:
    for answer in answers:
        if answer != "":
            return type(answer)
    return None


def _check_type(
    param: str,
    value: Any,
    answers: Sequence[Any],
    declared: str,
    expected: type,
    nested: type | None,
) -> bool:
    """Raise on a wrong type; return whether the value is a "variable" (``type_checker``)."""
    answer_type = _answer_type(answers)
    variable = answer_type is not None and answer_type is not expected
    if type(value) is expected:
        if nested is None:
            return variable
        elements = cast(list[Any], value)  # ``nested`` is only set for list types
        for answer in answers:
            if not isinstance(answer, list) or all(
                _type_holds(item, answer, nested) for item in elements
            ):
                return variable
    elif answer_type is not None and type(value) is answer_type:
        return True
    if type(value) is expected:  # the items failed their type
        if answer_type is not None and type(value) is answer_type:
            raise _Mismatch(f"argument '{param}' has items of the wrong type: {show(value)}")
        raise _Mismatch(
            f"argument '{param}' should be a {declared} of {nested.__name__ if nested else '?'},"
            f" got {show(value)}"
        )
    raise _Mismatch(
        f"argument '{param}' should be of type {declared}, got {type(value).__name__} {show(value)}"
    )


def _type_holds(item: Any, answers: Sequence[Any], expected: type) -> bool:
    if type(item) is expected:
        return True
    answer_type = _answer_type(answers)
    return answer_type is not None and type(item) is answer_type


def _check_string(param: str, value: str, answers: Sequence[Any]) -> None:
    wanted = [standardize(answer) for answer in answers if type(answer) is str]
    if standardize(value) not in wanted:
        raise _Mismatch(f"argument '{param}' was {show(value)}, expected one of {_one_of(answers)}")


def _standard_items(items: Any) -> list[Any]:
    if not isinstance(items, list | str):
        return [items]
    return [standardize(item) if type(item) is str else item for item in items]


def _check_list(param: str, value: list[Any], answers: Sequence[Any]) -> None:
    if _standard_items(list(value)) not in [_standard_items(answer) for answer in answers]:
        raise _Mismatch(f"argument '{param}' was {show(value)}, expected one of {_one_of(answers)}")


def _dict_problem(value: Mapping[str, Any], answers: Sequence[Any]) -> str | None:
    """``dict_checker``: None when ``value`` matches one of the answer dicts."""
    problem = "no dictionary is acceptable"
    for answer in answers:
        if answer == "":
            continue
        problem = ""
        for key, item in value.items():
            if not isinstance(answer, dict) or key not in answer:
                problem = f"unexpected key '{key}'"
                break
            listed = answer[key]
            standard = standardize(item) if type(item) is str else item
            if standard not in _standard_items(listed):
                problem = f"key '{key}' was {show(item)}, expected one of {_one_of(listed)}"
                break
        if not problem and isinstance(answer, dict):
            for key, listed in answer.items():
                if key not in value and "" not in listed:
                    problem = f"key '{key}' is missing"
                    break
        if not problem:
            return None
    return problem


def _check_dict(param: str, value: Mapping[str, Any], answers: Sequence[Any]) -> None:
    problem = _dict_problem(value, answers)
    if problem is not None:
        raise _Mismatch(f"argument '{param}': {problem}")


def _check_dict_list(param: str, value: list[Any], answers: Sequence[Any]) -> None:
    problem = "no list of dictionaries is acceptable"
    for answer in answers:
        if len(value) != len(answer):
            problem = f"has {len(value)} dictionaries, expected {len(answer)}"
            continue
        for index, item in enumerate(value):
            if not isinstance(item, dict):
                problem = f"item {index + 1} is not a dictionary: {show(item)}"
                break
            found = _dict_problem(item, [answer[index]])
            if found is not None:
                problem = f"dictionary {index + 1}: {found}"
                break
        else:
            return None
    raise _Mismatch(f"argument '{param}' {problem}")


__all__ = [
    "ORIGINAL_ITEMS",
    "ORIGINAL_TYPE",
    "PYTHON_TYPES",
    "Expected",
    "Language",
    "Param",
    "Signature",
    "match",
    "match_call",
    "show",
    "signature_of",
    "standardize",
]
