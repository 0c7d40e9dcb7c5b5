"""Checks that read the answer as a document: ``json``, ``schema``, ``fields``.

All three read the final answer (``trace.answer``, the answer to the last user turn).

What counts as a JSON answer
----------------------------
``read_json`` is the one rule, shared by the three checks:

* surrounding whitespace is stripped;
* the answer may be exactly one fenced block — an opening fence ````` ``` ````` or
  ````` ```json ````` (any case) on its own line, the document, a closing ````` ``` ````` —
  when that fence is the whole answer. Nothing else is unwrapped: no prose before or after the
  fence, no second block, no other language tag, no JSON picked out of a sentence;
* the rest must be one JSON text by ``json.loads``, except that ``NaN``, ``Infinity`` and
  ``-Infinity`` (which Python accepts and JSON does not) are refused. A key repeated in an
  object keeps its last value, as in Python and JavaScript;
* a document nested deeper than ``MAX_DEPTH`` (64) levels is refused as unreadable.

json
----
The answer is JSON, and of the ``kind`` asked for (``object``, ``array``, or ``any``). 0/1.

schema
------
The answer is JSON (by the rule above; otherwise the ``json`` sentence) and valid against the
task's schema under Draft 2020-12 (``jsonschema.Draft202012Validator``, whatever ``$schema``
the task writes; ``format`` is an annotation, not asserted, as that draft says). Errors are
sorted by where they are — the path into the document, array indices by number, a place before
the places inside it — then by message, so the first one named is the same on every run. The
sentence names it by its JSON Pointer without the leading slash (``lines/0``; ``~`` and ``/``
in a key are written ``~0`` and ``~1``; ``(root)`` for the document itself), its message
(truncated near 80 characters) and how many more there are:
``lines/0: 1 is not of type 'object' (+1 more)``. 0/1. A task schema that is not a valid
schema, or cannot be applied (a ``$ref`` that does not resolve; nothing is fetched), is
*undecided*: the task is broken, not the answer. Unless the answer holds a number no float
holds — an integer of more than 308 digits (tests/scorers/gaming_cheats_8.py), or a number
written past a float's range, ``1e400``, which ``json.loads`` reads as infinity
(tests/scorers/gaming_cheats_10.py): ``jsonschema`` cannot divide one by a ``multipleOf`` of a
fraction and raises, so an answer could make the check undecided, and a task whose only check
is its schema not scorable, at will. Such an answer fails: ``a number in the answer is too
large to check (OverflowError: …)`` — when the schema applies to the same document with those
numbers read as 0; when it does not either, the task is what is broken, and the check is
undecided as before.

fields
------
The answer is a JSON object (else the ``json`` sentence), and each field the task lists has the
expected value. A field name is looked up as a top-level key first; when there is no such key
and the name has dots, it is a path — ``buyer.vat_id`` is ``answer["buyer"]["vat_id"]``, and a
segment of digits indexes an array (``lines.0.amount``). A field that is not there is wrong
(``missing``), even when the task expects ``null``. Values compare by JSON equality
(``values.same_value``): strings after stripping surrounding whitespace and folding case —
nothing else is normalised —, numbers by value (``77.5`` is ``77.50``, ``1`` is ``1.0``), a
boolean never equals a number (``{"refunded": 1}`` is not ``{"refunded": true}``), a string
never equals a number, ``null`` only ``null``. An expected object or array is one field and is
compared whole, with the same rules all the way down (same keys, same length and order); use
dotted paths to check parts of an object one by one. Fields the task does not list are ignored.

Credit is the weighted share of fields that are right (``weights``, 1 for a field it does not
name). The sentence gives that share as a percentage, rounded, but never 100 % on a failure
nor 0 % when something is right; then the wrong values, in the task's order, each at the first
place it differs (``wrong value for buyer.vat_id: expected "DE1", got "DE2"``, or for an array
``expected 2 items, got 1``; values written as JSON), the first three spelled out and the rest
named; then the missing fields:
``67% of the fields — wrong value for total: expected 77.5, got 70; missing: invoice_number``.

The check is undecided when the task itself is unusable: a weight for a field it does not list,
a weight that is not a positive number, or an expected value that is not JSON (an unquoted date
in YAML, ``.nan``).
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bench.core.schemacheck import conforms, schema_problem, validator
from bench.core.score import Verdict
from bench.tasks.expectations import Expectation, Fields, Json, Schema

from .base import ScoringContext, excerpt, failed, names, passed, register, truncate, undecided
from .values import MAX_DEPTH, depth_of, difference, kind_of, not_json

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

# The opening line of a fence: possessive, so a long run of blanks is read once.
_OPENING = re.compile(r"```[ \t]*+(?:json[ \t]*+)?\r?\n", re.IGNORECASE)
_INDEX = re.compile(r"0|[1-9][0-9]*")
_WRONG_SHOWN = 3
"""How many wrong values a sentence spells out; the rest are named."""


@dataclass(frozen=True)
class Reading:
    """The answer read as JSON: the document, or why there is none."""

    ok: bool
    value: Any = None
    fenced: bool = False
    problem: str | None = None
    """Why a document cannot be read (nested too deeply); None when the text is not JSON."""


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def fenced_body(text: str) -> str | None:
    """The body of ``text`` when all of it is one fenced block: an opening line of three
    backticks, blanks, an optional ``json`` (any case) and blanks; the body; a last line break
    and blanks, if any, then three backticks that end the text. None otherwise. (What the
    regex ``[ \t]*(?:json)?[ \t]*\r?\n(?P<body>.*?)(?:\r?\n)?[ \t]*```$`` fully matched, in
    linear time: that regex took 34 s on 80,000 blanks after the backticks.)"""
    opening = _OPENING.match(text)
    if opening is None or not text.endswith("```"):
        return None
    start, close = opening.end(), len(text) - 3
    if close < start:
        return None
    end = close
    while end > start and text[end - 1] in " \t":
        end -= 1
    if end > start and text[end - 1] == "\n":
        end -= 1
        if end > start and text[end - 1] == "\r":
            end -= 1
    return text[start:end]


def read_json(answer: str) -> Reading:
    """The answer as a JSON document, by the rule in the module docstring."""
    text = answer.strip()
    fenced = False
    body = fenced_body(text)
    if body is not None and "```" not in body:
        text, fenced = body, True
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        return Reading(ok=False, problem=f"nested deeper than {MAX_DEPTH} levels")
    except ValueError:
        return Reading(ok=False)
    if depth_of(value) > MAX_DEPTH:
        return Reading(ok=False, problem=f"nested deeper than {MAX_DEPTH} levels")
    return Reading(ok=True, value=value, fenced=fenced)


def _not_json(expectation: Expectation, answer: str, reading: Reading) -> Verdict:
    why = f" ({reading.problem})" if reading.problem else ""
    return failed(expectation, f"the answer is not JSON{why}: {excerpt(answer)}")


def _a(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def _fenced(reading: Reading) -> str:
    return ", in a fenced block" if reading.fenced else ""


@register("json")
def score_json(expectation: Json, context: ScoringContext) -> Verdict:
    answer = context.trace.answer
    reading = read_json(answer)
    if not reading.ok:
        return _not_json(expectation, answer, reading)
    kind = kind_of(reading.value)
    if expectation.kind != "any" and kind != expectation.kind:
        return failed(
            expectation, f"the answer is JSON but not {_a(expectation.kind)}: {excerpt(answer)}"
        )
    if expectation.kind == "any":
        return passed(expectation, f"the answer is JSON ({_a(kind)}){_fenced(reading)}")
    return passed(expectation, f"the answer is a JSON {kind}{_fenced(reading)}")


# --- schema --------------------------------------------------------------------------------


def json_pointer(path: Iterable[str | int]) -> str:
    """``lines/0`` — a JSON Pointer without its leading slash; ``(root)`` for the document."""
    parts = [str(part).replace("~", "~0").replace("/", "~1") for part in path]
    return "/".join(parts) if parts else "(root)"


def _where(error: ValidationError) -> tuple[tuple[tuple[int, int, str], ...], str, str]:
    """Sort key: the path (indices by number, before keys at the same depth), message, rule."""
    path = tuple(
        (0, part, "") if isinstance(part, int) else (1, 0, str(part))
        for part in error.absolute_path
    )
    return path, error.message, str(error.validator)


class NotASchema(ValueError):
    """The task's schema is not a valid Draft 2020-12 schema; ``message`` says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def schema_errors(schema: dict[str, Any], document: Any) -> list[ValidationError]:
    """Every error of ``document`` against ``schema``, in a fixed order. Raises
    ``NotASchema`` for a schema that is not one, and whatever ``jsonschema`` raises for one
    that cannot be applied. jsonschema is imported only when a plain schema's check
    (``conforms``) cannot say there is no error."""
    problem = schema_problem(schema)
    if problem is not None:
        raise NotASchema(problem)
    if conforms(schema, document):
        return []
    return sorted(validator(schema).iter_errors(document), key=_where)


def _unfloatable(document: Any) -> bool:
    """Whether a JSON document holds a number no float can hold: an integer beyond about
    1.8e308, or a number written past that range (``1e400``), which ``json.loads`` reads as
    infinity (``NaN`` and ``Infinity`` themselves are refused as not JSON). Read without
    recursion."""
    stack = [document]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif _too_large(item):
            return True
    return False


def _too_large(value: Any) -> bool:
    """A number no float holds: infinite, or an integer beyond about 1.8e308."""
    if isinstance(value, float):
        return not math.isfinite(value)
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) > _FLOAT_MAX


_FLOAT_MAX = int(sys.float_info.max)


def _tamed(value: Any) -> Any:
    """``value`` with every number no float holds replaced by 0 (the document is at most
    ``MAX_DEPTH`` deep, so the recursion is bounded)."""
    if isinstance(value, dict):
        return {key: _tamed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_tamed(item) for item in value]
    return 0 if _too_large(value) else value


def _applies(schema: dict[str, Any], document: Any) -> bool:
    """Whether ``schema`` can be applied to ``document`` once its unfloatable numbers are 0:
    then those numbers, not the task, made the check raise."""
    try:
        schema_errors(schema, _tamed(document))
    except Exception:
        return False
    return True


@register("schema")
def score_schema(expectation: Schema, context: ScoringContext) -> Verdict:
    answer = context.trace.answer
    reading = read_json(answer)
    if not reading.ok:
        return _not_json(expectation, answer, reading)
    try:
        errors = schema_errors(expectation.json_schema, reading.value)
    except NotASchema as exc:
        return undecided(
            expectation, f"the task's schema is not a valid JSON Schema: {truncate(exc.message)}"
        )
    except Exception as exc:  # e.g. a $ref that does not resolve: the task is broken
        said = truncate(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
        if _unfloatable(reading.value) and _applies(expectation.json_schema, reading.value):
            return failed(expectation, f"a number in the answer is too large to check ({said})")
        return undecided(
            expectation,
            f"the task's schema cannot be applied: {truncate(str(exc) or type(exc).__name__)}",
        )
    if not errors:
        return passed(expectation, f"the answer matches the schema{_fenced(reading)}")
    first = errors[0]
    more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
    return failed(
        expectation, f"{json_pointer(first.absolute_path)}: {truncate(first.message)}{more}"
    )


# --- fields --------------------------------------------------------------------------------


def lookup(document: dict[str, Any], field: str) -> tuple[bool, Any]:
    """``(found, value)`` for a field name: a top-level key, else a dotted path."""
    if field in document:
        return True, document[field]
    if "." not in field:
        return False, None
    current: Any = document
    for segment in field.split("."):
        if isinstance(current, dict) and segment in current:
            current = current[segment]
        elif (
            isinstance(current, list) and _INDEX.fullmatch(segment) and int(segment) < len(current)
        ):
            current = current[int(segment)]
        else:
            return False, None
    return True, current


def _task_problem(expectation: Fields) -> str | None:
    """Why the task's own ``fields``/``weights`` cannot be scored, or None."""
    unknown = [name for name in expectation.weights if name not in expectation.fields]
    if unknown:
        return f"the task weighs field(s) it does not check: {names(unknown)}"
    for name, weight in expectation.weights.items():
        if not (math.isfinite(weight) and weight > 0):
            return f"the task's weight for {name} is {weight}, and a weight must be positive"
    for name, value in expectation.fields.items():
        problem = not_json(value)
        if problem is not None:
            return (
                f"the task's expected value for {name} is not a JSON value ({problem}); "
                "quote it in the task file"
            )
    return None


def percent(share: float) -> str:
    """``67%``: rounded, but never 100 % short of everything nor 0 % above nothing."""
    shown = round(share * 100)
    if share < 1:
        shown = min(shown, 99)
    if share > 0:
        shown = max(shown, 1)
    return f"{shown}%"


@register("fields")
def score_fields(expectation: Fields, context: ScoringContext) -> Verdict:
    problem = _task_problem(expectation)
    if problem is not None:
        return undecided(expectation, problem)
    answer = context.trace.answer
    reading = read_json(answer)
    if not reading.ok:
        return _not_json(expectation, answer, reading)
    document = reading.value
    if not isinstance(document, dict):
        return failed(expectation, f"the answer is JSON but not an object: {excerpt(answer)}")

    total = 0.0
    right = 0.0
    wrong: list[tuple[str, str]] = []  # (field, "where: how")
    missing: list[str] = []
    for name, expected in expectation.fields.items():
        weight = expectation.weights.get(name, 1.0)
        total += weight
        found, actual = lookup(document, name)
        if not found:
            missing.append(name)
            continue
        differs = difference(expected, actual, fold_strings=True)
        if differs is None:
            right += weight
        else:
            inside, how = differs
            where = ".".join([name, *(str(part) for part in inside)])
            wrong.append((name, f"{where}: {how}"))
    if not wrong and not missing:
        return passed(expectation, f"every field matches: {names(expectation.fields)}")
    problems = [f"wrong value for {clause}" for _, clause in wrong[:_WRONG_SHOWN]]
    if len(wrong) > _WRONG_SHOWN:
        problems.append(f"wrong value also for {names(name for name, _ in wrong[_WRONG_SHOWN:])}")
    if missing:
        problems.append(f"missing: {names(missing)}")
    share = right / total
    return failed(expectation, f"{percent(share)} of the fields — {'; '.join(problems)}", share)


__all__ = [
    "Reading",
    "json_pointer",
    "lookup",
    "percent",
    "read_json",
    "schema_errors",
    "score_fields",
    "score_json",
    "score_schema",
]
