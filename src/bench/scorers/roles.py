"""What each expectation is for: a *goal* the attempt must reach, or a *condition* on how.

The attempt rule in ``aggregate`` reads these roles (docs/SCORING.md, "Goals, conditions and
forbidden actions"):

* A **goal** check asks for something only doing the task produces: a value in the answer
  (``contains``, ``regex``, ``fields``, ``judge``), an answer given or a decline made
  (``answerable``), a tool that ran (``trajectory`` with ``required`` or ``order``, ``state``
  with ``times >= 1``, ``steps``).
* A **condition** check says how, or what not to do: ``not_contains``, ``state`` with
  ``times: 0``, a ``trajectory`` that only forbids tools or caps calls, ``refusal`` either way
  (declining, or not declining, is how the agent answers, not what it got done),
  ``citations``, ``json`` and ``schema``. Each of these is met by an agent that does nothing at
  all, or by one that produces the right shape with the wrong content, so on its own it
  measures nothing.

Inside the tool checks the same split holds between reading and doing: when a ``trajectory``
requires a write tool, its required *read* tools are conditions (looking before acting is how,
not what), and a ``steps`` plan with write steps earns partial credit for the write steps it
reached, not for the reads before them (``write_tools``). And a call the world refused before
running it (its arguments are not what the tool's schema accepts) did nothing, so it counts for
no goal, only against what the task forbids (``refused``).

A condition earns its credit only when every goal of its task passed. A task with no goal
check (a request that must only be declined, a message that must not trigger any tool) is
scored on its conditions as they are: declining *is* its goal.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from bench.core.schemacheck import plain_errors, schema_problem, validator
from bench.core.trace import ToolCall
from bench.tasks.expectations import (
    Answerable,
    Calls,
    Contains,
    Expectation,
    Fields,
    Judge,
    Regex,
    State,
    Steps,
    Trajectory,
)
from bench.tasks.model import Task, ToolSpec

from .values import matches_args, not_json

Role = Literal["goal", "condition"]


def role(expectation: Expectation) -> Role:
    """``goal`` or ``condition`` (see the module docstring)."""
    if isinstance(expectation, Contains | Regex | Fields | Judge | Answerable | Steps):
        return "goal"
    if isinstance(expectation, Trajectory):
        return "goal" if expectation.required or expectation.order else "condition"
    if isinstance(expectation, State):
        return "goal" if expectation.times >= 1 else "condition"
    if isinstance(expectation, Calls):  # expected calls are the task; "no call" is a condition
        return "goal" if expectation.calls or expectation.any_call else "condition"
    return "condition"


def write_tools(task: Task) -> frozenset[str]:
    """Names of the task's tools that change the world (``kind: write``)."""
    return frozenset(
        tool.name for tool in task.tools if isinstance(tool, ToolSpec) and tool.kind == "write"
    )


# --- calls that never reached their tool ---------------------------------------------------


def refused(task: Task, call: ToolCall) -> bool:
    """True when the world refused ``call`` before running it: the call came back with an error
    and its arguments are not what its tool's schema accepts (an argument the schema does not
    declare, a value of the wrong type) or are not JSON at all (NaN, Infinity). Such a call
    never reached the tool, so it does nothing a goal asks for (``trajectory``
    ``required``/``order``, ``steps``, ``state`` with ``times >= 1``); it still counts against
    what a task forbids. Without this rule, a write sprayed with every candidate value and one
    undeclared argument in each call — every call refused, so none an unasked write — passed
    ``state`` and ``trajectory`` by the one call that held the right values (docs/SCORING.md,
    "Calls its schema refuses").

    Only the task's own tools (``ToolSpec``) are read; a call the world ran and then rejected
    (a ``case`` error, a record not in the state) did reach its tool and is not refused."""
    if call.error is None:
        return False
    if not_json(call.arguments) is not None:  # NaN or Infinity: "arguments … are not JSON"
        return True
    spec = next(
        (tool for tool in task.tools if isinstance(tool, ToolSpec) and tool.name == call.name),
        None,
    )
    if spec is None:
        return False
    # A plain schema's errors without jsonschema (worded and decided as it decides them): a
    # run whose entrant sends bad arguments does not import it (5 MiB of a run's peak).
    errors = plain_errors(spec.parameters, call.arguments)
    if errors is not None:
        return bool(errors)
    if schema_problem(spec.parameters) is not None:  # a broken schema refuses nothing here
        return False
    return not validator(spec.parameters).is_valid(call.arguments)


def reached(task: Task, calls: Iterable[ToolCall]) -> list[ToolCall]:
    """``calls`` without the ones the world refused before running them (``refused``)."""
    return [call for call in calls if not refused(task, call)]


# --- writes the world rejected, on arguments no goal asks for ------------------------------


def asked_arguments(task: Task) -> dict[str, list[dict[str, Any]]]:
    """Per tool, the argument subsets the task's goals ask it to be called with (a ``steps``
    step, a ``state`` with ``times >= 1``)."""
    asked: dict[str, list[dict[str, Any]]] = {}
    for expectation in task.expectations:
        if isinstance(expectation, Steps):
            for step in expectation.steps:
                asked.setdefault(step.tool, []).append(step.args)
        elif isinstance(expectation, State) and expectation.times >= 1:
            asked.setdefault(expectation.tool, []).append(expectation.args)
    return asked


def rejected_elsewhere(
    task: Task, call: ToolCall, asked: dict[str, list[dict[str, Any]]] | None = None
) -> bool:
    """True when ``call`` is a write the world ran and rejected (a ``case`` error, no result
    for those arguments) on arguments none of the task's goals ask that tool for, when the
    goals do ask for it with arguments. Such a call changed nothing the task wants changed, so
    ``trajectory`` does not count it as the required write having run. Without this, a write
    sent with a value off by a cent to a tool that answers only the right values (a bill paid
    with its exact amount) passed the ``trajectory`` goal by being rejected: half the task's
    credit for a call that did nothing (``rejected-write-by-words`` in
    ``tests/scorers/gaming_cheats.py``). A rejected call on the arguments a goal asks for
    (a skip the world says is too late, which the task expects to be tried) still counts."""
    if call.error is None or call.name not in write_tools(task):
        return False
    wanted = (asked if asked is not None else asked_arguments(task)).get(call.name)
    if not wanted:
        return False
    return not any(matches_args(args, call.arguments) for args in wanted)


__all__ = [
    "Role",
    "asked_arguments",
    "reached",
    "refused",
    "rejected_elsewhere",
    "role",
    "write_tools",
]
