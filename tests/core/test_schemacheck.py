"""JSON Schema checks (bench.core.schemacheck): the shortcut for plain schemas never changes a
verdict or a message of the Draft 2020-12 meta-schema check (issue 19)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from bench.core import schemacheck
from bench.core.schemacheck import schema_key, schema_problem


def reference(schema: Any) -> str | None:
    """The meta-schema's word on ``schema`` as schema_problem always read it: from its cache key
    (canonical JSON, so a message quoting an object quotes it with sorted keys)."""
    try:
        Draft202012Validator.check_schema(json.loads(schema_key(schema)))
    except SchemaError as exc:
        return str(exc.message)
    return None


def test_a_tool_schema_of_plain_keywords_takes_the_shortcut() -> None:
    schema = {
        "type": "object",
        "description": "Look an order up.",
        "properties": {
            "order_id": {"type": "string", "description": "the id", "x-bfcl-type": "String"},
            "items": {"type": "array", "items": {"type": "integer", "minimum": 0}},
            "mode": {"type": "string", "enum": ["a", "b"], "default": "a"},
            "extra": {"type": "object", "additionalProperties": False},
        },
        "required": ["order_id"],
    }
    assert schemacheck._plainly_valid(schema)
    assert schema_problem(schema) is None


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "strin"},
        {"type": "object", "required": ["a", "a"]},
        {"type": "object", "required": "a"},
        {"properties": {"a": {"type": 3}}},
        {"minItems": -1},
        {"maximum": "3"},
        {"description": 7},
        {"items": []},
        {"enum": "a"},
    ],
)
def test_an_invalid_schema_is_worded_by_jsonschema(schema: dict[str, Any]) -> None:
    assert not schemacheck._plainly_valid(schema)
    problem = schema_problem(schema)
    assert problem is not None
    assert problem == reference(schema)


def test_unknown_or_formatted_keywords_go_to_jsonschema() -> None:
    # a "pattern" must be a regex (a format the meta-schema checks); "optional" is unknown
    assert not schemacheck._plainly_valid({"type": "string", "pattern": "^a"})
    assert not schemacheck._plainly_valid({"type": "string", "optional": True})
    assert schema_problem({"type": "string", "pattern": "("}) == reference({"pattern": "("})
    assert schema_problem({"type": "string", "optional": True}) is None


anything = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-2, 2) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)
keys = st.sampled_from(
    [
        "type", "description", "title", "format", "$comment", "default", "const", "x-a",
        "properties", "items", "additionalProperties", "not", "required", "enum", "examples",
        "minimum", "maximum", "minItems", "maxLength", "pattern", "optional", "$ref", "anyOf",
    ]
)  # fmt: skip
type_names = st.sampled_from(["string", "object", "array", "integer", "number", "boolean"])


def schemas(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    values = st.one_of(
        anything,
        type_names,
        inner,
        st.dictionaries(st.text(max_size=3), inner, max_size=3),
        st.lists(st.sampled_from(["a", "b", "c"]), max_size=3),
        st.lists(inner, max_size=2),
    )
    return st.dictionaries(keys, values, max_size=4)


schema_trees = st.recursive(st.booleans() | schemas(st.booleans()), schemas, max_leaves=8)


@settings(max_examples=500, deadline=None)
@given(schema_trees)
def test_the_verdict_and_message_are_the_meta_schemas(schema: Any) -> None:
    expected = reference(schema)
    if schemacheck._plainly_valid(schema):
        assert expected is None
    assert schema_problem(schema) == expected
