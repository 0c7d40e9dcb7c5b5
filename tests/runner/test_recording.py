"""An exchange's request record from cached parts is exactly ``request.wire()`` and its hash
exactly ``request.request_hash()``: cassettes recorded before and after match each other."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bench.core.trace import Message, ToolCallRequest, ToolDef
from bench.runner.recording import RequestRecorder
from bench.targets.base import ModelRequest

TEXT = st.text(max_size=12)  # any unicode, quotes, backslashes, controls, astral characters
NUMBERS = (
    st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([1e-05, 1e16, -0.0, 2.715e-05, 0.1, 1e300])
)
JSON: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | NUMBERS | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
OBJECTS = st.dictionaries(TEXT, JSON, max_size=4)
CALLS = st.builds(
    ToolCallRequest,
    id=TEXT,
    name=TEXT,
    arguments=OBJECTS,
    arguments_error=st.none() | TEXT,
)
MESSAGES = st.builds(
    Message,
    role=st.sampled_from(["system", "user", "assistant", "tool"]),
    content=TEXT,
    tool_calls=st.lists(CALLS, max_size=2),
    tool_call_id=st.none() | TEXT,
    name=st.none() | TEXT,
)
TOOLS = st.builds(ToolDef, name=TEXT, description=TEXT, parameters=OBJECTS)


@settings(max_examples=150, deadline=None)
@given(
    model=TEXT,
    messages=st.lists(MESSAGES, min_size=1, max_size=6),
    tools=st.lists(TOOLS, max_size=3),
    params=st.lists(OBJECTS, min_size=1, max_size=3),
)
def test_each_request_of_an_attempt_records_as_its_own_dump(
    model: str, messages: list[Message], tools: list[ToolDef], params: list[dict[str, Any]]
) -> None:
    recorder = RequestRecorder()
    # An attempt's requests: the conversation grows, the same message objects come back.
    for end in range(1, len(messages) + 1):
        request = ModelRequest(
            model=model, messages=messages[:end], tools=tools, params=params[end % len(params)]
        )
        wire, digest = recorder.wire(request)
        assert digest == request.request_hash()
        assert json.dumps(wire) == json.dumps(request.wire())  # same values, same key order


def test_a_part_is_made_once_per_attempt_and_never_confused_with_another() -> None:
    recorder = RequestRecorder()
    first = Message(role="user", content="refund order 42")
    tools = [ToolDef(name="get_order", parameters={"type": "object"})]
    recorder.wire(ModelRequest(model="m", messages=[first], tools=tools))
    answer = Message(role="assistant", content="", tool_calls=[ToolCallRequest(id="c", name="x")])
    second = ModelRequest(model="m", messages=[first, answer], tools=tools)
    assert recorder.wire(second) == (second.wire(), second.request_hash())
    assert len(recorder._parts) == 3  # two messages and one tool, each made once
    # An equal but distinct message is its own part; the recorded values stay right.
    again = ModelRequest(model="m", messages=[first.model_copy(), answer], tools=tools)
    assert recorder.wire(again) == (again.wire(), again.request_hash())


def test_parameters_that_are_not_json_are_recorded_as_their_dump() -> None:
    # A target file's YAML can hold a date (`seed: 2026-12-02`); the record holds its JSON.
    request = ModelRequest(
        model="m",
        messages=[Message(role="user", content="hi")],
        params={"seed": date(2026, 12, 2), "stop": ("a", "b")},
    )
    assert RequestRecorder().wire(request) == (request.wire(), request.request_hash())


def test_the_request_just_made_is_not_made_again_and_an_equal_new_one_is() -> None:
    """A re-drive hashes a request (to match its recording) and then records the same object:
    the recorder hands back the same pair for it; a new request, equal or not, is made
    afresh, so a later request never gets an earlier one's hash."""
    recorder = RequestRecorder()
    tools = [ToolDef(name="lookup", description="d", parameters={"type": "object"})]
    first = ModelRequest(model="m", messages=[Message(role="user", content="hi")], tools=tools)
    made = recorder.wire(first)
    assert recorder.wire(first) is made
    assert made == (first.wire(), first.request_hash())
    later = ModelRequest(
        model="m",
        messages=[*first.messages, Message(role="assistant", content="yes")],
        tools=tools,
    )
    assert recorder.wire(later) == (later.wire(), later.request_hash()) != made
    again = ModelRequest(model="m", messages=list(first.messages), tools=tools)
    assert recorder.wire(again) is not made and recorder.wire(again) == made
