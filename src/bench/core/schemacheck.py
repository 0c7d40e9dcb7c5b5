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
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from .canonical import canonical_json

_SIMPLE_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})
_STRINGS = frozenset({"$comment", "description", "format", "title"})  # meta-schema: a string
_ANYTHING = frozenset({"const", "default"})  # meta-schema: true
_SCHEMAS = frozenset({"additionalProperties", "items", "not"})  # meta-schema: $dynamicRef meta
_NUMBERS = frozenset({"maximum", "minimum"})  # meta-schema: a number
_COUNTS = frozenset({"maxItems", "maxLength", "minItems", "minLength"})  # nonNegativeInteger


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
            ok = isinstance(value, str) and value in _SIMPLE_TYPES
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
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return str(exc.message)
    return None


@functools.lru_cache(maxsize=1024)
def _validator(schema_json: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads(schema_json))


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


__all__ = ["schema_key", "schema_problem", "validator"]
