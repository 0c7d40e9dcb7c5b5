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
reached, not for the reads before them (``write_tools``).

A condition earns its credit only when every goal of its task passed. A task with no goal
check (a request that must only be declined, a message that must not trigger any tool) is
scored on its conditions as they are: declining *is* its goal.
"""

from __future__ import annotations

from typing import Literal

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


__all__ = ["Role", "role", "write_tools"]
