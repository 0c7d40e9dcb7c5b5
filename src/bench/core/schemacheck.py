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
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from .canonical import canonical_json


@functools.lru_cache(maxsize=8192)
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
