"""Checks that read the tool calls and their arguments: ``steps`` and ``state``.

Both compare the task with the calls that *ran* — ``trace.tool_calls``, in the order they ran —
never with the answer text. As for ``trajectory``, a call whose ``error`` is set still ran (the
agent asked for it and the mock world executed it), so it counts here too: calling the refund
tool on the wrong order is the mistake, whether or not the world let it through.

A call matches a step (or a ``state`` expectation) when its tool name is the one given and its
arguments hold every key of ``args`` with an equal value; other arguments may be there too.
Equal is JSON equality (``values.same_value``) with no normalisation at all — a tool sees
``'1041'`` and ``' 1041'`` as different orders — so ``"1"`` is not ``1``, ``true`` is not
``1``, ``1`` is ``1.0``, and an object or array value is compared whole. Calls are written the
way a person reads them, values by ``repr``: ``issue_refund(order_id='1041')``.

steps
-----
The steps must appear in order as a subsequence of the calls: other calls may come between,
and each step is matched by the first fitting call after the one that matched the step before.
The plan is read as a chain — a later step that ran without the earlier one is not credited —
so credit is the number of steps matched before the first one that is not reached, divided by
the number of steps — counting only write steps (tools of ``kind: write``) when the plan has
any: reading is how a plan gets done, not what it gets done, so a plan that only looked things
up earns nothing. The failure names that step, what came before it, the nearest miss (a call
of the right tool, after the previous step, with the wrong arguments) and every call that ran:
``step 2 of 3 not reached: expected issue_refund(order_id='1041') after get_order
(called: get_order, cancel_order)``.

state
-----
The number of calls of ``tool`` whose arguments match ``args`` must be exactly ``times`` (0
means the call must never happen). 0/1. The failure names the count and, when the tool also ran
with other arguments, those calls — the right verb on the wrong object:
``called issue_refund(order_id='1041') 2 time(s), and the task says 1``.

A call the world refused before running it — its arguments are not what the tool's schema
accepts (``roles.refused``: an argument the schema does not declare, a value of the wrong type) —
never reached its tool, so it matches no step and counts for no ``state`` with ``times >= 1``; it
still counts for a ``state`` with ``times: 0`` (asking for the forbidden call is the mistake).
Sentences say how many such calls held the expected arguments: ``called
issue_refund(order_id='1041') 0 time(s), and the task says 1; the schema refused 1 call(s) of
issue_refund with those arguments``.

Both are undecided when an expected argument is not a JSON value (an unquoted date in a YAML
task file), because no call could ever match it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bench.core.score import Verdict
from bench.core.trace import ToolCall
from bench.tasks.expectations import State, Step, Steps

from .base import ScoringContext, failed, names, passed, register, undecided
from .roles import reached, refused, write_tools
from .values import as_call, matches_args, not_json


def _args_problem(tool: str, args: Mapping[str, Any]) -> str | None:
    for key, value in args.items():
        problem = not_json(value)
        if problem is not None:
            return (
                f"the task's expected argument {tool}.{key} is not a JSON value ({problem}); "
                "quote it in the task file"
            )
    return None


def _fits(step: Step | State, call: ToolCall) -> bool:
    return call.name == step.tool and matches_args(step.args, call.arguments)


def _as_seen(call: ToolCall, keys: Mapping[str, Any]) -> str:
    """A call shown by the arguments the task cares about (those it has of them)."""
    arguments = call.arguments if isinstance(call.arguments, Mapping) else {}
    return as_call(call.name, {key: arguments[key] for key in keys if key in arguments})


@register("steps")
def score_steps(expectation: Steps, context: ScoringContext) -> Verdict:
    for step in expectation.steps:
        problem = _args_problem(step.tool, step.args)
        if problem is not None:
            return undecided(expectation, problem)
    called = f"(called: {names(call.name for call in context.trace.tool_calls)})"
    calls = reached(context.task, context.trace.tool_calls)
    position = 0
    for index, step in enumerate(expectation.steps):
        found = next((at for at in range(position, len(calls)) if _fits(step, calls[at])), None)
        if found is None:
            total = len(expectation.steps)
            after = f" after {expectation.steps[index - 1].tool}" if index else ""
            near = next(
                (call for call in calls[position:] if call.name == step.tool and step.args), None
            )
            got = f", got {_as_seen(near, step.args)}" if near is not None else ""
            writes = write_tools(context.task)
            write_steps = [s for s in expectation.steps if s.tool in writes]
            share = (
                sum(1 for s in expectation.steps[:index] if s.tool in writes) / len(write_steps)
                if write_steps
                else index / total
            )
            return failed(
                expectation,
                f"step {index + 1} of {total} not reached: expected "
                f"{as_call(step.tool, step.args)}{after}{got} {called}"
                f"{_refused_note(context, step)}",
                share,
            )
        position = found + 1
    if len(expectation.steps) == 1:
        return passed(expectation, f"the step ran {called}")
    return passed(expectation, f"the {len(expectation.steps)} steps ran in order {called}")


@register("state")
def score_state(expectation: State, context: ScoringContext) -> Verdict:
    problem = _args_problem(expectation.tool, expectation.args)
    if problem is not None:
        return undecided(expectation, problem)
    calls = context.trace.tool_calls
    # A goal (times >= 1) counts what reached the tool; a ban (times: 0) counts every attempt.
    counted = reached(context.task, calls) if expectation.times >= 1 else calls
    matching = sum(1 for call in counted if _fits(expectation, call))
    shown = as_call(expectation.tool, expectation.args)
    if matching == expectation.times:
        if matching == 0:
            return passed(expectation, f"never called {shown}, as the task says")
        return passed(expectation, f"called {shown} {matching} time(s), as the task says")
    others = list(
        dict.fromkeys(
            _as_seen(call, expectation.args)
            for call in calls
            if call.name == expectation.tool and not _fits(expectation, call)
        )
    )
    also = (
        f"; {expectation.tool} also ran as {names(others, limit=3)}"
        if others and expectation.args
        else ""
    )
    note = _refused_note(context, expectation) if expectation.times >= 1 else ""
    return failed(
        expectation,
        f"called {shown} {matching} time(s), and the task says {expectation.times}{also}{note}",
    )


def _refused_note(context: ScoringContext, step: Step | State) -> str:
    """``; the schema refused 3 call(s) of issue_refund with those arguments`` — the calls that
    would have matched had they reached the tool; nothing when there were none."""
    n = sum(
        1 for call in context.trace.tool_calls if _fits(step, call) and refused(context.task, call)
    )
    return f"; the schema refused {n} call(s) of {step.tool} with those arguments" if n else ""


__all__ = ["score_state", "score_steps"]
