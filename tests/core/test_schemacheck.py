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


def test_unknown_keywords_and_bad_patterns_go_to_jsonschema() -> None:
    # a "pattern" must be a regex (a format the meta-schema checks); "optional" is unknown
    assert schemacheck._plainly_valid({"type": "string", "pattern": "^a"})
    assert not schemacheck._plainly_valid({"type": "string", "pattern": "("})
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
        st.lists(type_names, max_size=3),  # "type" as a list, duplicates and all
        st.sampled_from(["(", "^a", "[", "a{2}", "*"]),  # patterns, some not regexes
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


# --- conforms: an instance under a plain schema, without jsonschema -------------------------


def json_trees(numbers: list[Any]) -> st.SearchStrategy[Any]:
    return st.recursive(
        st.none()
        | st.booleans()
        | st.sampled_from(numbers)
        | st.integers(-3, 3)
        | st.sampled_from(["", "a", "ab", "abc", "é", "1", "true"]),
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), inner, max_size=3)
        ),
        max_leaves=8,
    )


schema_numbers = [0, 1, -1, 2, 0.0, 1.0, 1.5, -0.5, 2.0, 10**20, 1e300]
json_values = json_trees([*schema_numbers, float("nan")])  # a document may hold NaN
schema_values = json_trees(schema_numbers)  # a schema's key is strict JSON
names = st.sampled_from(["a", "b", "c"])


def plain_schemas(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Schemas ``_plainly_valid`` accepts, every keyword it knows."""
    keyword = st.one_of(
        st.tuples(st.just("type"), st.sampled_from(sorted(schemacheck._SIMPLE_TYPES))),
        st.tuples(
            st.just("type"),
            st.lists(st.sampled_from(sorted(schemacheck._SIMPLE_TYPES)), min_size=1, unique=True),
        ),
        st.tuples(st.just("pattern"), st.sampled_from(["^a", "b$", "^[0-9]{2}$", "", "é|1"])),
        st.tuples(st.just("properties"), st.dictionaries(names, inner, max_size=3)),
        st.tuples(st.sampled_from(["items", "additionalProperties", "not"]), inner),
        st.tuples(st.just("required"), st.lists(names, unique=True, max_size=3)),
        st.tuples(st.just("enum"), st.lists(schema_values, max_size=3)),
        st.tuples(st.just("const"), schema_values),
        st.tuples(st.sampled_from(["minimum", "maximum"]), st.sampled_from([0, 1, 1.5, -1])),
        st.tuples(
            st.sampled_from(["minItems", "maxItems", "minLength", "maxLength"]),
            st.integers(0, 3),
        ),
        st.tuples(st.sampled_from(["description", "title", "format", "$comment"]), st.text()),
        st.tuples(st.sampled_from(["default", "examples", "x-a"]), st.just(["a"])),
    )
    return st.lists(keyword, max_size=4).map(dict)


plain_trees = st.recursive(st.booleans() | plain_schemas(st.booleans()), plain_schemas)


@settings(max_examples=3000, deadline=None)
@given(plain_trees, json_values)
def test_conforms_says_exactly_what_jsonschema_says_of_a_plain_schema(
    schema: Any, instance: Any
) -> None:
    assert schemacheck._plainly_valid(schema)
    valid = not any(Draft202012Validator(schema).iter_errors(instance))
    assert schemacheck.conforms(schema_key(schema), instance) is valid


@settings(max_examples=300, deadline=None)
@given(schema_trees, json_values)
def test_conforms_never_passes_what_jsonschema_refuses(schema: Any, instance: Any) -> None:
    if schemacheck.conforms(schema_key(schema), instance):
        assert schemacheck._plainly_valid(json.loads(schema_key(schema)))
        assert not any(Draft202012Validator(schema).iter_errors(instance))


@pytest.mark.parametrize(
    ("schema", "instance", "valid"),
    [
        ({"type": "integer"}, 2.0, True),  # Draft 6 on
        ({"type": "integer"}, True, False),
        ({"type": "number"}, False, False),
        ({"enum": [1]}, True, False),
        ({"enum": [[1]]}, [1.0], True),
        ({"const": {"a": 1}}, {"a": True}, False),
        ({"minimum": 0}, float("nan"), True),  # jsonschema: NaN is not below anything
        ({"format": "date"}, "not a date", True),  # format is an annotation
        ({"additionalProperties": False, "properties": {"a": True}}, {"a": 1, "b": 2}, False),
        ({"not": {"type": "string"}}, "a", False),
    ],
)
def test_conforms_on_the_corners(schema: dict[str, Any], instance: Any, valid: bool) -> None:
    assert (not any(Draft202012Validator(schema).iter_errors(instance))) is valid
    assert schemacheck.conforms(schema, instance) is valid


def _in_a_fresh_process(code: str) -> str:
    """``code`` run by a new interpreter (nothing imported yet); its standard output."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_valid_run_path_never_imports_jsonschema() -> None:
    """A tool call and an extracted document that meet plain schemas are checked without
    jsonschema; a wrong one still gets jsonschema's words (issue 19: 5 MiB, 45 ms)."""
    code = (
        "import sys\n"
        "from bench.core.schemacheck import conforms, schema_problem\n"
        "from bench.scorers.document import schema_errors\n"
        "s = {'type': 'object', 'properties': {'n': {'type': 'integer'}}, 'required': ['n']}\n"
        "assert schema_problem(s) is None and conforms(s, {'n': 3})\n"
        "assert schema_errors(s, {'n': 3}) == []\n"
        "assert 'jsonschema' not in sys.modules, 'imported'\n"
        "errors = schema_errors(s, {'n': 'x'})\n"
        "assert [e.message for e in errors] == [\"'x' is not of type 'integer'\"], errors\n"
        "assert 'jsonschema' in sys.modules\n"
    )
    _in_a_fresh_process(code)


def _jsonschemas(schema: Any, instance: Any) -> list[tuple[tuple[Any, ...], str]]:
    parsed = json.loads(schema_key(schema))  # what both are given: the canonical key's schema
    return sorted(
        (tuple(e.absolute_path), e.message)
        for e in Draft202012Validator(parsed).iter_errors(instance)
    )


@settings(max_examples=3000, deadline=None)
@given(plain_trees, json_values)
def test_plain_errors_are_jsonschemas_errors_path_and_words(schema: Any, instance: Any) -> None:
    # The tool arguments' error messages go back to the entrant and into the cassette's
    # request hashes: for a plain schema they must be jsonschema's, word for word.
    found = schemacheck.plain_errors(schema_key(schema), instance)
    assert found is not None
    assert sorted(found) == _jsonschemas(schema, instance)


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        ({"properties": {"a": {"type": "integer", "minimum": 2}}}, {"a": 1.5}),
        ({"required": ["a", "b"], "additionalProperties": False}, {"c": 1, "d": 2}),
        ({"additionalProperties": {"type": "string"}, "properties": {"a": True}}, {"a": 1, "b": 2}),
        ({"items": False}, [1]),
        ({"items": False}, [1, 2]),
        ({"items": {"enum": ["x", 1]}}, ["x", True, 1.0]),
        ({"minLength": 1}, ""),
        ({"maxItems": 0}, [None]),
        ({"not": {"type": "string", "pattern": "^a"}}, "ab"),
        ({"const": [1, {"a": None}]}, [1, {"a": False}]),
        (False, {"a": 1}),
        ({"type": ["integer", "null"]}, "1"),
    ],
)
def test_plain_errors_on_the_corners(schema: Any, instance: Any) -> None:
    assert sorted(schemacheck.plain_errors(schema_key(schema), instance) or []) == _jsonschemas(
        schema, instance
    )


def test_plain_errors_say_nothing_of_a_schema_that_is_not_plain() -> None:
    assert schemacheck.plain_errors({"anyOf": [{"type": "string"}]}, 1) is None


def test_wrong_tool_arguments_are_worded_without_jsonschema() -> None:
    """The world words wrong arguments under a plain schema itself (jsonschema's words), so an
    entrant that sends bad arguments does not pull jsonschema into the run either."""
    code = (
        "import sys, json\n"
        "from bench.world.world import _problems\n"
        "from bench.core.schemacheck import schema_key\n"
        "s = {'type': 'object', 'properties': {'n': {'type': 'integer', 'minimum': 1},\n"
        "     'k': {'enum': ['a', 'b']}}, 'required': ['n', 'k'], 'additionalProperties': False}\n"
        "found = _problems(schema_key(s), json.dumps({'n': 0, 'z': 1}))\n"
        "assert 'jsonschema' not in sys.modules, 'imported'\n"
        "print(json.dumps(found))\n"
    )
    assert json.loads(_in_a_fresh_process(code)) == [
        "'k' is a required property",
        "Additional properties are not allowed ('z' was unexpected)",
        "argument 'n': 0 is less than the minimum of 1",
    ]
