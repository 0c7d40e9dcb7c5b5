"""A reported usage is read as tokens only when every count is a whole number: anything else
(a string, a float, a negative number, a bool, null) makes it "not measured", as a missing usage
is, never a measured 0 tokens that pricing turns into a measured $0."""

from __future__ import annotations

from typing import Any

import pytest

from bench.core.trace import Usage
from bench.targets import anthropic, openai
from bench.targets.http import SseEvent

GARBAGE: list[Any] = ["ten", 10.0, 10.5, -10, True, None, [10], {"n": 10}, 10**13]


@pytest.mark.parametrize("bad", GARBAGE, ids=repr)
@pytest.mark.parametrize("field", ["prompt_tokens", "completion_tokens"])
def test_openai_garbage_count_is_not_measured(field: str, bad: Any) -> None:
    usage = {"prompt_tokens": 10, "completion_tokens": 5, field: bad}
    assert openai.parse_usage(usage) is None


@pytest.mark.parametrize("bad", [b for b in GARBAGE if b is not None], ids=repr)
def test_openai_garbage_cached_count_is_not_measured(bad: Any) -> None:
    details = {"prompt_tokens": 10, "completion_tokens": 5, "prompt_tokens_details": {}}
    details["prompt_tokens_details"] = {"cached_tokens": bad}
    assert openai.parse_usage(details) is None
    deepseek = {"prompt_tokens": 10, "completion_tokens": 5, "prompt_cache_hit_tokens": bad}
    assert openai.parse_usage(deepseek) is None


def test_openai_counts_that_are_whole_numbers_are_read() -> None:
    assert openai.parse_usage(
        {"prompt_tokens": 10, "completion_tokens": 0, "prompt_tokens_details": None}
    ) == Usage(prompt_tokens=10, completion_tokens=0)
    assert openai.parse_usage(
        {"prompt_tokens": 10, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 4}}
    ) == Usage(prompt_tokens=10, completion_tokens=5, cached_tokens=4)
    assert openai.parse_usage(
        {"prompt_tokens": 10, "completion_tokens": 5, "prompt_cache_hit_tokens": 3}
    ) == Usage(prompt_tokens=10, completion_tokens=5, cached_tokens=3)
    # One count said, the other absent: the absent one is 0, as before; but a prompt of no
    # tokens is a server that does not count it (tests/targets/test_zero_usage.py).
    assert openai.parse_usage({"prompt_tokens": 5}) == Usage(prompt_tokens=5)
    assert openai.parse_usage({"completion_tokens": 5}) is None


@pytest.mark.parametrize("bad", GARBAGE, ids=repr)
@pytest.mark.parametrize("field", ["input_tokens", "output_tokens"])
def test_anthropic_garbage_count_is_not_measured(field: str, bad: Any) -> None:
    usage = {"input_tokens": 10, "output_tokens": 5, field: bad}
    assert anthropic.parse_usage(usage) is None


@pytest.mark.parametrize("bad", [b for b in GARBAGE if b is not None], ids=repr)
@pytest.mark.parametrize("field", ["cache_read_input_tokens", "cache_creation_input_tokens"])
def test_anthropic_garbage_cache_count_is_not_measured(field: str, bad: Any) -> None:
    assert anthropic.parse_usage({"input_tokens": 10, "output_tokens": 5, field: bad}) is None


def test_anthropic_null_cache_counts_are_zero() -> None:
    # The Messages API documents both cache counts as nullable.
    usage = {
        "input_tokens": 10,
        "output_tokens": 5,
        "cache_read_input_tokens": None,
        "cache_creation_input_tokens": None,
    }
    assert anthropic.parse_usage(usage) == Usage(prompt_tokens=10, completion_tokens=5)
    usage |= {"cache_read_input_tokens": 6, "cache_creation_input_tokens": 2}
    assert anthropic.parse_usage(usage) == Usage(
        prompt_tokens=18, completion_tokens=5, cached_tokens=6
    )


def test_anthropic_stream_null_in_a_later_event_keeps_the_earlier_count() -> None:
    def event(data: dict[str, Any]) -> SseEvent:
        return SseEvent(event=data["type"], data=data)

    start = {"id": "msg_1", "type": "message", "role": "assistant", "content": []}
    start["usage"] = {"input_tokens": 575, "output_tokens": 1}
    events = [
        event({"type": "message_start", "message": start}),
        event({"type": "content_block_start", "index": 0, "content_block": {"type": "text"}}),
        event(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "hi"},
            }
        ),
        event({"type": "content_block_stop", "index": 0}),
        event(
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn"},
                "usage": {"input_tokens": None, "output_tokens": 52},
            }
        ),
        event({"type": "message_stop"}),
    ]
    body = anthropic.MessageStream().assemble(events)
    assert anthropic.parse_usage(body["usage"]) == Usage(prompt_tokens=575, completion_tokens=52)
