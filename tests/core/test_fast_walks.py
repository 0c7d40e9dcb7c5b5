"""The quick walks that decide the common case give what the walks that name a path give:
``not_json`` (a task's plain-JSON check) and ``long_marks`` (every answer's body)."""

from __future__ import annotations

import datetime
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bench.core.recordtext import MAX_MARKS, _any_mark_run, _first_mark_run, long_marks
from bench.core.validation import _first_not_json, _plainly_json, not_json

_RUN = "e" + "\u0301" * (MAX_MARKS + 1)  # one mark more than a record may hold in a row


class _Name(str):
    """A ``str`` that is not exactly ``str``: the quick walk leaves it to the full one."""


_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.sampled_from([_RUN, "na\u0308ive", datetime.date(2026, 7, 14), b"x", _Name("n"), 1.5]),
)
_KEYS = st.one_of(st.text(max_size=5), st.sampled_from([_RUN, 3, None]))
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(_KEYS, inner, max_size=4),
    ),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(_VALUES)
def test_not_json_answers_as_the_walk_that_names_the_path(value: Any) -> None:
    assert not_json(value, "tools") == _first_not_json(value, "tools")
    if _plainly_json(value):
        assert _first_not_json(value, "") is None


def test_the_quick_json_walk_leaves_shared_and_odd_values_to_the_full_walk() -> None:
    shared = [1, 2]
    assert not _plainly_json({"a": shared, "b": shared})  # a YAML alias: decided by the walk
    assert not_json({"a": shared, "b": shared}) is None
    assert not _plainly_json(_Name("x")) and not_json(_Name("x")) is None
    assert not_json({"a": [1.0, math.inf]}) == ("a[1]", "inf")
    assert not_json({"d": datetime.date(2026, 7, 14)}) == ("d", "a date")
    assert _plainly_json({"a": [1, -0.0, "x", None, True, {"b": (2,)}]})


_JSONISH = st.recursive(
    st.one_of(st.none(), st.integers(), st.text(max_size=6), st.sampled_from([_RUN, "é" * 40])),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.text(max_size=4), st.just(_RUN)), inner, max_size=4),
    ),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(_JSONISH)
def test_long_marks_answers_as_the_walk_that_names_the_field(value: Any) -> None:
    assert _any_mark_run(value) == (_first_mark_run(value) is not None)
    assert long_marks(value) == _first_mark_run(value)


def test_long_marks_still_names_the_field() -> None:
    assert long_marks({"choices": [{"message": {"content": _RUN}}]}) == (
        "choices[0].message.content",
        1,
    )
    assert long_marks({"a": ["x", "é" * 40]}) is None
