"""The verifier's strict JSON reader: its fast paths (depth without parsing, duplicate keys by
counting colons) decide exactly as a parser with a hook on every object would."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.verify import jsonsafe
from bench.verify.failure import VerifyFailure

KEYS = st.sampled_from(["a", "b", ":", "a:b", '"', "\\", "[", "{}", "é", "\u0061"])
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**60), 2**60), st.floats(allow_nan=False,
    allow_infinity=False), st.text(alphabet='ab:[]{}"\\é,', max_size=6),
)  # fmt: skip
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=30,
)


def _reference_depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_reference_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_reference_depth(v) for v in value), default=0)
    return 0


def _with_duplicate(value: Any) -> str | None:
    """A compact text of ``value`` whose first object (searched depth first) writes its first
    pair twice; ``None`` when ``value`` holds no non-empty object."""
    compact: dict[str, Any] = {"separators": (",", ":"), "ensure_ascii": False}
    if isinstance(value, dict) and value:
        key, item = next(iter(value.items()))
        pair = json.dumps(key, **compact) + ":" + json.dumps(item, **compact)
        return "{" + pair + "," + json.dumps(value, **compact)[1:]
    if isinstance(value, list):
        for index, item in enumerate(value):
            inner = _with_duplicate(item)
            if inner is not None:
                parts = [json.dumps(x, **compact) for x in value]
                parts[index] = inner
                return "[" + ",".join(parts) + "]"
    return None


def _code(data: bytes) -> str | None:
    try:
        jsonsafe.load(data, "x.json")
    except VerifyFailure as exc:
        return str(exc.code)
    return None


@settings(max_examples=300, deadline=None)
@given(value=VALUES, ascii_only=st.booleans())
def test_depth_and_duplicates_match_a_full_parse(value: Any, ascii_only: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, separators=(",", ":"))
    data = text.encode()
    assert jsonsafe.depth(data) == _reference_depth(value)
    assert jsonsafe.load(data, "x.json") == value
    assert jsonsafe.load(json.dumps(value, indent=1).encode(), "x.json") == value
    doubled = _with_duplicate(value)
    if doubled is not None:
        assert _code(doubled.encode()) == "DUPLICATE_KEY"


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b'{"a":1,"a":2}', "DUPLICATE_KEY"),
        (b'{"a":1,"\\u0061":2}', "DUPLICATE_KEY"),  # equal once decoded
        (b'{"x":{"b":1,"c":{"b":2,"b":3}}}', "DUPLICATE_KEY"),
        (b'{"a:b":1,"c":"::","d":[":"]}', None),
        (b'{"y":"\\":","z":"\\\\"}', None),
        (b"[NaN]", "NON_FINITE_NUMBER"),
        (b"[1e400]", "NON_FINITE_NUMBER"),
        (b'{"a":1,', "JSON_MALFORMED"),
        (b"[" * 65 + b"]" * 65, "LIMIT_DEPTH"),
        (b'"[[[[' + b"[" * 100 + b'"', None),  # brackets inside a string do not nest
    ],
)
def test_known_answers(raw: bytes, code: str | None) -> None:
    assert _code(raw) == code
