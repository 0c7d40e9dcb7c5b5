"""The check that reads the model's first tool calls against a ground truth: ``calls``.

Which calls
-----------
The calls of the model's *first response that called tools*: the first assistant message in
``trace.messages`` whose ``tool_calls`` the harness handled (their ids are in
``trace.tool_calls``, so a tool call written into the task's input is never taken for the
model's), as the model asked for them (name and arguments). That is what a single-turn suite
such as BFCL scores: one response. Later rounds of the agent loop
(after the mock world answered) are not read, so a retry after a tool result neither repairs
nor spoils the attempt. A call whose arguments were not a JSON object (``arguments_error``) is
a malformed call. As in BFCL, which decodes a response whole, one malformed call makes the
whole response *no call*, whatever else it holds: it fails a check that expects calls or any
call, and passes one that expects none.

What passes
-----------
* ``calls`` not empty: BFCL's AST match (:mod:`bench.suites.astmatch`): as many calls as
  expected, each matched to one expected call in any order, names equal, every argument of the
  declared type and one of the listed values (``""`` in a list: may be omitted).
* ``calls`` empty: no call, or a response that does not decode (BFCL's irrelevance).
* ``any_call``: a response that decodes, with at least one call (BFCL's relevance).

Argument types come from the task's own tool schemas (``x-bfcl-type`` where the importer kept
BFCL's type name, else the JSON Schema type). Credit is 0/1. Sentences name the first problem,
as BFCL's checker does: ``get_weather: argument 'days' was 3, expected one of 4, 5``.
"""

from __future__ import annotations

from typing import Any

from bench.core.score import Verdict
from bench.core.trace import ToolCallRequest
from bench.suites.astmatch import Expected, Signature, match, show, signature_of
from bench.tasks.expectations import Calls
from bench.tasks.model import ToolSpec

from .base import ScoringContext, failed, names, passed, register


def first_calls(context: ScoringContext) -> list[ToolCallRequest]:
    """The tool calls of the model's first response that made any (empty when none did)."""
    handled = {call.id for call in context.trace.tool_calls}
    for message in context.trace.messages:
        if message.role == "assistant" and any(c.id in handled for c in message.tool_calls):
            return list(message.tool_calls)
    return []


def _sorted(value: Any) -> Any:
    """``value`` with every object's keys in sorted order, at any depth. A bundle stores
    attempts as canonical JSON (keys sorted), so the verdict ``bench verify`` recomputes from
    a bundle's trace reads the arguments in that order: the check reads them so from the start,
    and its sentence (which names the first problem found) is the same in the run and in the
    bundle. Which calls pass does not depend on the order."""
    if isinstance(value, dict):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    return value


def _rendered(call: ToolCallRequest) -> str:
    arguments = _sorted(call.arguments)
    args = ", ".join(f"{key}={show(value)}" for key, value in arguments.items())
    return f"{call.name}({args})"


@register("calls")
def score_calls(expectation: Calls, context: ScoringContext) -> Verdict:
    made = first_calls(context)
    broken = [call for call in made if call.arguments_error is not None]
    # BFCL decodes a response whole: one call whose arguments are not JSON makes it no call.
    formed = [] if broken else made
    undecoded = (
        f" (the arguments of {broken[0].name} are not a JSON object, so the response does not "
        "decode)"
        if broken
        else ""
    )
    if expectation.any_call:
        if formed:
            return passed(
                expectation, f"made a tool call, as the task expects: {_rendered(formed[0])}"
            )
        return failed(expectation, f"made no tool call{undecoded}, and the task expects one")
    if not expectation.calls:
        if not formed:
            return passed(expectation, f"made no tool call{undecoded}, as the task expects")
        listed = names(call.name for call in formed)
        return failed(expectation, f"called {listed}, and the task expects no tool call")
    wanted = ", ".join(call.tool for call in expectation.calls)
    if not made:
        return failed(expectation, f"made no tool call, expected {wanted}")
    if broken:
        return failed(
            expectation,
            f"the arguments of {broken[0].name} are not a JSON object: {broken[0].arguments_error}",
        )
    signatures: dict[str, Signature] = {
        tool.name: signature_of(tool.name, tool.parameters)
        for tool in context.task.tools
        if isinstance(tool, ToolSpec)
    }
    expected = [Expected(call.tool, call.args) for call in expectation.calls]
    pairs: list[tuple[str, dict[str, Any]]] = [
        (call.name, _sorted(call.arguments)) for call in made
    ]
    problem = match(signatures, pairs, expected, expectation.language)
    if problem is not None:
        return failed(expectation, problem)
    shown = "; ".join(_rendered(call) for call in made)
    return passed(expectation, f"the calls match the ground truth: {shown}")


__all__ = ["first_calls", "score_calls"]
