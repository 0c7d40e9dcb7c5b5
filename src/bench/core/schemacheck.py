"""JSON Schema checks, each distinct schema once per process.

Checking a schema against the Draft 2020-12 meta-schema costs about 1.6 ms, and building a
validator about as much; a task set repeats a few schemas over many tasks and a run or a
verification meets them again for every attempt. Both are cached by the schema's canonical
JSON, so equal schemas share one check and one validator (a validator is never mutated).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from .canonical import canonical_json


@functools.lru_cache(maxsize=1024)
def _problem(schema_json: str) -> str | None:
    try:
        Draft202012Validator.check_schema(json.loads(schema_json))
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
