"""No-model reference entrants: what a score means when nobody is thinking.

Each baseline is a scripted-entrant callable, ``ModelRequest -> ModelResponse``, with no state,
randomness, network or clock, so a run of one is reproducible and takes seconds. They are the
floor a task set is judged against: a task that one of them passes measures nothing
(``bench task lint``), and the board shows them as reference rows, never ranked.

``BASELINES`` maps a stable name to each; target files for them live in
``examples/targets/baselines/`` (``callable: bench.baselines:<name>``).

* ``do_nothing`` — an empty final answer, no tool calls.
* ``refuse_everything`` — one fixed refusal, whatever was asked.
* ``echo`` — repeats the last user message as the answer.
* ``quote_top_passage`` — calls ``search_docs`` with the last user message when the tool is
  offered, then answers with the top passage's text and cites its id; without the tool, or when
  search finds nothing, it answers with an empty string.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from bench.core.trace import Message, ToolCallRequest
from bench.targets.base import ModelRequest, ModelResponse

Baseline = Callable[[ModelRequest], ModelResponse]

REFUSAL = "I can't help with that."


def last_user_message(request: ModelRequest) -> str:
    """The content of the last user message ('' when there is none)."""
    for message in reversed(request.messages):
        if message.role == "user":
            return message.content
    return ""


def turn_messages(request: ModelRequest) -> list[Message]:
    """The messages after the last user message: this turn's tool calls and results."""
    last = max((i for i, m in enumerate(request.messages) if m.role == "user"), default=-1)
    return request.messages[last + 1 :]


def turn_results(request: ModelRequest) -> list[tuple[str, Any]]:
    """(tool name, parsed result) of every tool call made in the current turn, in order."""
    names: dict[str, str] = {}
    results: list[tuple[str, Any]] = []
    for message in turn_messages(request):
        for call in message.tool_calls:
            names[call.id] = call.name
        if message.role == "tool" and message.tool_call_id in names:
            try:
                parsed: Any = json.loads(message.content)
            except ValueError:
                parsed = message.content
            results.append((names[message.tool_call_id], parsed))
    return results


def answer(text: str) -> ModelResponse:
    return ModelResponse(content=text)


def do_nothing(request: ModelRequest) -> ModelResponse:
    """An empty final answer and no tool calls."""
    return answer("")


def refuse_everything(request: ModelRequest) -> ModelResponse:
    """The same refusal to every request."""
    return answer(REFUSAL)


def echo(request: ModelRequest) -> ModelResponse:
    """The last user message, repeated back."""
    return answer(last_user_message(request))


def quote_top_passage(request: ModelRequest) -> ModelResponse:
    """Search once with the question, then quote the top passage and cite its id."""
    offered = {tool.name for tool in request.tools}
    if "search_docs" not in offered:
        return answer("")
    results = turn_results(request)
    if not results:
        call = ToolCallRequest(
            id="baseline-search",
            name="search_docs",
            arguments={"query": last_user_message(request)},
        )
        return ModelResponse(tool_calls=[call])
    found = results[-1][1]
    passages = [p for p in found if isinstance(p, dict)] if isinstance(found, list) else []
    if not passages:
        return answer("")
    top = passages[0]
    return answer(f"{top.get('text', '')} [{top.get('id', '')}]")


BASELINES: dict[str, Baseline] = {
    "do-nothing": do_nothing,
    "refuse-everything": refuse_everything,
    "echo": echo,
    "quote-top-passage": quote_top_passage,
}
"""Stable name -> baseline callable, in the order the board lists reference rows."""

__all__ = [
    "BASELINES",
    "REFUSAL",
    "Baseline",
    "do_nothing",
    "echo",
    "last_user_message",
    "quote_top_passage",
    "refuse_everything",
    "turn_results",
]
