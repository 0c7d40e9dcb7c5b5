"""JSON Schema checks, each distinct schema once per process.

Checking a schema against the Draft 2020-12 meta-schema costs about 1.6 ms, and building a
validator about as much; a task set repeats a few schemas over many tasks and a run or a
verification meets them again for every attempt. Both are cached by the schema's canonical
JSON, so equal schemas share one check and one validator (a validator is never mutated).

The meta-schema check's cache holds 8,192 schemas: BFCL's single-turn suite has 3,150 distinct
tool schemas, and with room for only 1,024 a run checked each of them twice (once for
``check_task_set``, again for the attempts): a quarter to a third of its CPU time
(docs/PERFORMANCE.md, issue 18). A result is ``None`` or a short message, so a full cache is a
few MB of keys.

Most tool schemas are built from a handful of keywords (``type``, ``properties``,
``description``, ``required``, ``enum``, ...). :func:`_plainly_valid` accepts such a schema
without the meta-schema (``check_task_set`` of BFCL's 3,150 schemas: 4.6 -> 0.3 s, issue 19); it
only ever says "valid" for what the meta-schema accepts, and anything else, every invalid
schema among it, still goes to jsonschema, which words the problem.

:func:`conforms` is the same shortcut for an instance: for a plain schema it decides, with
Draft 2020-12's semantics for exactly those keywords, whether an instance has no error at all.
A run's tool arguments and extracted documents are almost always valid, so jsonschema (about
5 MiB and 45 ms to import) is imported only when something has to be worded (issue 19).
:func:`plain_errors` words a plain schema's errors too, as jsonschema 4.26 words them (path
and message, tested equal): the world's answer to wrong tool arguments needs no jsonschema.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .canonical import canonical_json

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

_SIMPLE_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})
_STRINGS = frozenset({"$comment", "description", "format", "title"})  # meta-schema: a string
_ANYTHING = frozenset({"const", "default"})  # meta-schema: true
_SCHEMAS = frozenset({"additionalProperties", "items", "not"})  # meta-schema: $dynamicRef meta
_NUMBERS = frozenset({"maximum", "minimum"})  # meta-schema: a number
_COUNTS = frozenset({"maxItems", "maxLength", "minItems", "minLength"})  # nonNegativeInteger


def _compiles(pattern: str) -> bool:
    """What the meta-schema's ``regex`` format asks of a ``pattern``: Python's ``re`` takes it."""
    try:
        re.compile(pattern)
    except Exception:  # re.error, or anything else: jsonschema words it
        return False
    return True


def _plainly_valid(schema: Any) -> bool:
    """True only when ``schema`` uses nothing but the keywords below, each with a value the
    Draft 2020-12 meta-schema accepts (and ``x-`` extensions, which it leaves unchecked).
    False says nothing: the schema may still be valid."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict):
        return False
    for key, value in schema.items():
        if key in _STRINGS:
            ok = isinstance(value, str)
        elif key in _ANYTHING or key.startswith("x-"):
            ok = True
        elif key == "type":
            ok = (isinstance(value, str) and value in _SIMPLE_TYPES) or (
                isinstance(value, list)
                and len(value) > 0
                and all(isinstance(item, str) and item in _SIMPLE_TYPES for item in value)
                and len(set(value)) == len(value)
            )
        elif key == "pattern":
            ok = isinstance(value, str) and _compiles(value)
        elif key == "properties":
            ok = isinstance(value, dict) and all(_plainly_valid(item) for item in value.values())
        elif key in _SCHEMAS:
            ok = _plainly_valid(value)
        elif key == "required":
            ok = (
                isinstance(value, list)
                and all(isinstance(item, str) for item in value)
                and len(set(value)) == len(value)
            )
        elif key in ("enum", "examples"):
            ok = isinstance(value, list)
        elif key in _NUMBERS:
            ok = isinstance(value, int | float) and not isinstance(value, bool)
        elif key in _COUNTS:
            ok = type(value) is int and value >= 0
        else:
            ok = False
        if not ok:
            return False
    return True


@functools.lru_cache(maxsize=8192)
def _problem(schema_json: str) -> str | None:
    schema = json.loads(schema_json)
    if _plainly_valid(schema):
        return None
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return str(exc.message)
    return None


@functools.lru_cache(maxsize=1024)
def _validator(schema_json: str) -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(json.loads(schema_json))


@functools.lru_cache(maxsize=8192)
def _plain(schema_json: str) -> tuple[bool, Any]:
    """``(True, schema)`` for a plain schema, ``(False, None)`` for any other."""
    schema = json.loads(schema_json)
    return (True, schema) if _plainly_valid(schema) else (False, None)


def _equal(one: Any, two: Any) -> bool:
    """JSON Schema equality as jsonschema's ``_utils.equal`` has it: ``True`` is not ``1``,
    ``1`` is ``1.0``, arrays and objects compared member by member the same way."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(_equal(a, b) for a, b in zip(one, two, strict=True))
    if isinstance(one, dict) and isinstance(two, dict):
        return len(one) == len(two) and all(
            key in two and _equal(value, two[key]) for key, value in one.items()
        )
    if isinstance(one, bool) or isinstance(two, bool):
        return False  # a bool equals only itself, which ``is`` has already seen
    return bool(one == two)


def _is_type(instance: Any, name: str) -> bool:
    if name == "string":
        return isinstance(instance, str)
    if name == "object":
        return isinstance(instance, dict)
    if name == "array":
        return isinstance(instance, list)
    if name == "boolean":
        return isinstance(instance, bool)
    if name == "null":
        return instance is None
    if isinstance(instance, bool):
        return False
    if name == "integer":  # Draft 6 on: a float with no fraction is an integer
        return isinstance(instance, int) or (isinstance(instance, float) and instance.is_integer())
    return isinstance(instance, int | float)  # "number"


def _valid(schema: Any, instance: Any) -> bool:
    """Whether ``instance`` has no error under the plain ``schema`` (see ``_plainly_valid``)."""
    if schema is True or schema is False:
        return bool(schema)
    for key, value in schema.items():
        if key == "type":
            ok = (
                _is_type(instance, value)
                if isinstance(value, str)
                else any(_is_type(instance, name) for name in value)
            )
        elif key == "pattern":
            ok = not isinstance(instance, str) or re.search(value, instance) is not None
        elif key == "properties":
            ok = not isinstance(instance, dict) or all(
                _valid(sub, instance[name]) for name, sub in value.items() if name in instance
            )
        elif key == "required":
            ok = not isinstance(instance, dict) or all(name in instance for name in value)
        elif key == "additionalProperties":
            declared = schema.get("properties", {})
            ok = not isinstance(instance, dict) or all(
                _valid(value, item) for name, item in instance.items() if name not in declared
            )
        elif key == "items":
            ok = not isinstance(instance, list) or all(_valid(value, item) for item in instance)
        elif key == "enum":
            ok = any(_equal(each, instance) for each in value)
        elif key == "const":
            ok = _equal(instance, value)
        elif key == "not":
            ok = not _valid(value, instance)
        elif key in ("minimum", "maximum"):
            # as jsonschema words it: below the minimum is an error (so NaN never is)
            ok = not _is_type(instance, "number") or not (
                instance < value if key == "minimum" else instance > value
            )
        elif key in ("minLength", "maxLength"):
            ok = not isinstance(instance, str) or (
                len(instance) >= value if key == "minLength" else len(instance) <= value
            )
        elif key in ("minItems", "maxItems"):
            ok = not isinstance(instance, list) or (
                len(instance) >= value if key == "minItems" else len(instance) <= value
            )
        else:  # annotations: description, title, format, $comment, default, examples, x-
            ok = True
        if not ok:
            return False
    return True


Path = tuple[str | int, ...]


def _errors(schema: Any, instance: Any, path: Path, out: list[tuple[Path, str]]) -> None:
    """Every error jsonschema's ``iter_errors`` (Draft 2020-12, jsonschema 4.26) yields for
    ``instance`` under the plain ``schema``, as ``(absolute path, message)``, worded as its
    keyword functions word them (``jsonschema/_keywords.py``); ``tests/core/test_schemacheck.py``
    holds the two equal."""
    if schema is True:
        return
    if schema is False:
        # jsonschema's ``descend`` returns this error before adding its own path element:
        # the path stops at the parent (the root's is empty either way)
        out.append((path[:-1], f"False schema does not allow {instance!r}"))
        return
    for key, value in schema.items():
        if key == "type":
            types = [value] if isinstance(value, str) else value
            if not any(_is_type(instance, name) for name in types):
                reprs = ", ".join(repr(name) for name in types)
                out.append((path, f"{instance!r} is not of type {reprs}"))
        elif key == "pattern":
            if isinstance(instance, str) and re.search(value, instance) is None:
                out.append((path, f"{instance!r} does not match {value!r}"))
        elif key == "properties":
            if isinstance(instance, dict):
                for name, sub in value.items():
                    if name in instance:
                        _errors(sub, instance[name], (*path, name), out)
        elif key == "required":
            if isinstance(instance, dict):
                for name in value:
                    if name not in instance:
                        out.append((path, f"{name!r} is a required property"))
        elif key == "additionalProperties":
            if isinstance(instance, dict):
                declared = schema.get("properties", {})
                extras = [name for name in instance if name not in declared]
                if isinstance(value, dict):
                    for name in extras:
                        _errors(value, instance[name], (*path, name), out)
                elif value is False and extras:
                    verb = "was" if len(extras) == 1 else "were"
                    joined = ", ".join(repr(name) for name in sorted(extras, key=str))
                    words = f"Additional properties are not allowed ({joined} {verb} unexpected)"
                    out.append((path, words))
        elif key == "items":
            if isinstance(instance, list) and instance:
                if value is False:
                    rest = instance if len(instance) != 1 else instance[0]
                    words = f"Expected at most 0 items but found {len(instance)} extra: {rest!r}"
                    out.append((path, words))
                else:
                    for index, item in enumerate(instance):
                        _errors(value, item, (*path, index), out)
        elif key == "enum":
            if all(not _equal(each, instance) for each in value):
                out.append((path, f"{instance!r} is not one of {value!r}"))
        elif key == "const":
            if not _equal(instance, value):
                out.append((path, f"{value!r} was expected"))
        elif key == "not":
            if _valid(value, instance):
                out.append((path, f"{instance!r} should not be valid under {value!r}"))
        elif key == "minimum":
            if _is_type(instance, "number") and instance < value:
                out.append((path, f"{instance!r} is less than the minimum of {value!r}"))
        elif key == "maximum":
            if _is_type(instance, "number") and instance > value:
                out.append((path, f"{instance!r} is greater than the maximum of {value!r}"))
        elif key in ("minLength", "minItems"):
            kind = str if key == "minLength" else list
            if isinstance(instance, kind) and len(instance) < value:
                words = "should be non-empty" if value == 1 else "is too short"
                out.append((path, f"{instance!r} {words}"))
        elif key in ("maxLength", "maxItems"):
            kind = str if key == "maxLength" else list
            if isinstance(instance, kind) and len(instance) > value:
                words = "is expected to be empty" if value == 0 else "is too long"
                out.append((path, f"{instance!r} {words}"))


def plain_errors(schema: Mapping[str, Any] | str, instance: Any) -> list[tuple[Path, str]] | None:
    """For a plain schema (or the schema with that key), every error of ``instance`` as
    ``(absolute path, message)``, worded as jsonschema words it, without importing jsonschema;
    ``None`` for any other schema (ask :func:`validator`)."""
    plain, parsed = _plain(schema if isinstance(schema, str) else schema_key(schema))
    if not plain:
        return None
    out: list[tuple[Path, str]] = []
    _errors(parsed, instance, (), out)
    return out


def conforms(schema: Mapping[str, Any] | str, instance: Any) -> bool:
    """True when ``schema`` (or the schema with that key) is plain and ``instance`` meets it
    with no error. False says nothing: ask :func:`validator` for the errors."""
    plain, parsed = _plain(schema if isinstance(schema, str) else schema_key(schema))
    return plain and _valid(parsed, instance)


def schema_key(schema: Mapping[str, Any]) -> str:
    """The cache key of ``schema``: its canonical JSON."""
    return canonical_json(schema).decode()


def schema_problem(schema: Mapping[str, Any] | str) -> str | None:
    """Why ``schema`` (or the schema with that key) is not a valid Draft 2020-12 schema, or
    ``None`` when it is."""
    return _problem(schema if isinstance(schema, str) else schema_key(schema))


def validator(schema: Mapping[str, Any] | str) -> Draft202012Validator:
    """A validator of a schema (or of the schema with that key) already checked with
    :func:`schema_problem`."""
    return _validator(schema if isinstance(schema, str) else schema_key(schema))


__all__ = ["conforms", "plain_errors", "schema_key", "schema_problem", "validator"]
