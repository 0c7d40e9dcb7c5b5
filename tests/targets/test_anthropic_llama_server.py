"""The ``anthropic`` target against what llama.cpp's ``llama-server`` sends on its own
``/v1/messages`` (the bytes below are its answers, ids shortened, from the build
tests/real/test_real_llama_server_anthropic.py runs: SmolLM2 served with Qwen2.5's template,
asked to copy a ``<tool_call>``), on a loopback server.

What it does that the Anthropic API's own examples do not: a streamed ``tool_use`` block opens
without ``input``, every ``content_block_stop`` comes at the end, the usage is in
``message_start`` only (``message_delta`` has ``output_tokens``), and a call cut at
``max_tokens`` comes back whole in a plain body, its unparsable arguments as ``input: {}``.
"""

from __future__ import annotations

import json
from typing import Any

from .test_provider_streams import JSON, anthropic_sse, chunked, complete, reply

USAGE = {"cache_read_input_tokens": 281, "input_tokens": 1, "output_tokens": 0}
CUT = "the answer stopped at its token cap (stop_reason 'max_tokens') inside this call"
COPY = "get_order"  # the model copied '<tool_call>{"name": "get_order", ...}</tool_call>'


def _plain(stop: str, block: dict[str, Any], output_tokens: int) -> bytes:
    body = {
        "id": "chatcmpl-jKM6",
        "type": "message",
        "role": "assistant",
        "content": [block],
        "model": "smollm2",
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"cache_read_input_tokens": 243, "input_tokens": 39,
                  "output_tokens": output_tokens},
    }  # fmt: skip
    return reply(json.dumps(body, separators=(",", ":")).encode(), JSON)


def _streamed(pieces: list[str], stop: str, output_tokens: int) -> bytes:
    """llama-server's event order: the block opens without ``input``, its JSON in pieces, the
    stops after every block, then the stop reason and the output count."""
    start = {"id": "chatcmpl-IXjh", "type": "message", "role": "assistant", "content": [],
             "model": "smollm2", "stop_reason": None, "stop_sequence": None,
             "usage": USAGE}  # fmt: skip
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": start},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "tool_use", "id": "WhjUqsce", "name": COPY}},
        *({"type": "content_block_delta", "index": 0,
           "delta": {"type": "input_json_delta", "partial_json": piece}} for piece in pieces),
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
         "usage": {"output_tokens": output_tokens}},
        {"type": "message_stop"},
    ]  # fmt: skip
    return reply(chunked(anthropic_sse(*events)), "text/event-stream",
                 "Transfer-Encoding: chunked", "Connection: close")  # fmt: skip


def test_a_call_cut_at_max_tokens_is_not_read_as_a_call_with_no_arguments() -> None:
    """Was: ``get_order({})``, run as if the model had called it so (the OpenAI route of the
    same server says ``arguments: '{"order_'``, not JSON). The answer stopped inside the call:
    its arguments are the model's error, not run, as on the OpenAI route."""
    cut = {"type": "tool_use", "id": "BfPX5RUT", "name": COPY, "input": {}}
    response, _ = complete([_plain("max_tokens", cut, 20)], "anthropic", stream=False)
    [call] = response.tool_calls
    assert call.name == COPY and call.id == "BfPX5RUT"
    assert call.arguments_error is not None and call.arguments_error.startswith(CUT)
    assert response.usage is not None and response.usage.prompt_tokens == 243 + 39


def test_a_streamed_call_cut_at_max_tokens_says_it_was_cut() -> None:
    """The same answer streamed: its JSON ends at ``{"order_``. Was: only the JSON error."""
    pieces = ["{", '"', "order", "_"]
    response, _ = complete([_streamed(pieces, "max_tokens", 20)], "anthropic")
    [call] = response.tool_calls
    assert call.arguments_error is not None and call.arguments_error.startswith(CUT)
    assert '{"order_' in call.arguments_error


def test_a_whole_call_with_no_arguments_stays_whole() -> None:
    """``input: {}`` is a call with no arguments when the answer ended with the call."""
    whole = {"type": "tool_use", "id": "kQRc9SBS", "name": "list_orders", "input": {}}
    response, _ = complete([_plain("tool_use", whole, 26)], "anthropic", stream=False)
    [call] = response.tool_calls
    assert (call.name, call.arguments, call.arguments_error) == ("list_orders", {}, None)


def test_llama_server_s_streamed_call_is_read_whole() -> None:
    """The block opens without ``input`` (the API's own stream says ``input: {}``); the prompt
    is the uncached input plus the cache's reads, from ``message_start`` alone."""
    pieces = ["{", '"', "order", "_", "id", '":', ' "', "1", "2", '"}']
    response, _ = complete([_streamed(pieces, "tool_use", 34)], "anthropic")
    [call] = response.tool_calls
    assert (call.id, call.name, call.arguments, call.arguments_error) == (
        "WhjUqsce",
        COPY,
        {"order_id": "12"},
        None,
    )
    assert response.usage is not None
    assert (response.usage.prompt_tokens, response.usage.cached_tokens) == (282, 281)
    assert response.usage.completion_tokens == 34
