"""A trace in the key order a bundle keeps it.

A bundle stores every attempt as canonical JSON (RFC 8785: object keys sorted), so by the time
``bench verify`` rescores a trace, the order in which a model wrote its arguments or a tool
built its result is gone. Anything a scorer derives from that order — a verdict sentence that
shows a call as ``issue_refund(order_id='1041', amount=5)``, a paste measured over a tool
result's JSON — would score the run one way and its bundle another, and a genuine bundle would
be refused (``SCORE_MISMATCH``). So scorers read the arguments of every call (``ToolCall``'s
and those a message's tool calls asked for) with their keys sorted, as the bundle will hold
them: the run, ``bench rescore`` and ``bench verify`` score the same thing. Dicts already in
order (every trace read from a bundle) are not copied. Tool results, often large, are read by
one rule only, the paste rule, which dumps them with sorted keys itself (``answers.sources``):
walking every result here cost more than the rest of scoring an attempt.
"""

from __future__ import annotations

from typing import Any

from bench.core.trace import Message, ToolCall, Trace


def _in_order(value: Any) -> bool:
    if isinstance(value, dict):
        keys = list(value)
        return keys == sorted(keys) and all(_in_order(item) for item in value.values())
    if isinstance(value, list):
        return all(_in_order(item) for item in value)
    return True


def _ordered(value: Any) -> Any:
    """``value`` with every dict's keys sorted as ``json.dumps(sort_keys=True)`` sorts them
    (``bench.core.canonical``), all the way down."""
    if isinstance(value, dict):
        return {key: _ordered(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_ordered(item) for item in value]
    return value


def _call(call: ToolCall) -> ToolCall:
    if _in_order(call.arguments):
        return call
    return call.model_copy(update={"arguments": _ordered(call.arguments)})


def _message(message: Message) -> Message:
    if all(_in_order(request.arguments) for request in message.tool_calls):
        return message
    asked = [
        request.model_copy(update={"arguments": _ordered(request.arguments)})
        for request in message.tool_calls
    ]
    return message.model_copy(update={"tool_calls": asked})


def as_kept(trace: Trace) -> Trace:
    """``trace`` with every call's arguments in sorted key order (the same object when they
    already are)."""
    calls = [_call(call) for call in trace.tool_calls]
    messages = [_message(message) for message in trace.messages]
    if all(a is b for a, b in zip(calls, trace.tool_calls, strict=True)) and all(
        a is b for a, b in zip(messages, trace.messages, strict=True)
    ):
        return trace
    return trace.model_copy(update={"tool_calls": calls, "messages": messages})


__all__ = ["as_kept"]
