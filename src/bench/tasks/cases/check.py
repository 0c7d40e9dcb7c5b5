"""Static checks on cases, before any model runs (``bench check``). The rules:

Evidence (a plain, case-insensitive substring of the answer), first rule that applies:

* ``evidence-short``: 2 characters or fewer once stripped (a single digit, "ok", "18"): too many
  unrelated answers contain it.
* ``evidence-no-content``: no letter or digit at all ("...", "--").
* ``evidence-in-number``: a substring of a number in the case's messages (a run of digits,
  with ``.`` or ``,`` between digits): "18" when the question says "18000".
* ``evidence-in-question``: a substring of the case's messages: an answer that repeats the
  question passes.

Tools:

* ``forbidden-unknown``: a forbidden entry that is not a tool in the case's world: it can never
  run, so the check can never fail.
* ``expect-unknown``: an expected tool that is not in the world: the case can never pass.
* ``forbidden-expected``: a tool both expected and forbidden in one case (forbidden tools are
  checked over the whole conversation): the case can never pass.
* ``unreachable``: under the tool-selection policy the expected tool is never shown to the model
  for its message, so the case would score the router as a model failure forever. ``all`` shows
  every tool; ``top-k`` shows the ``k`` best tools by a ranker (the CLI ranks by BM25 over tool
  name and description, and a tool sharing no word with the message is never shown).

``requires`` is checked before all of this: :func:`missing_tools` names what the machine lacks.
The ranker is passed in (``Ranker``) because BM25 lives in ``bench.corpus``, a sibling package.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import Field

from bench.core.models import Strict

from ..expectations import Contains, Steps, Trajectory
from ..model import Task, ToolSpec
from .model import CaseFile

# (message, [(tool name, description), ...], k) -> the tool names shown, best first
Ranker = Callable[[str, Sequence[tuple[str, str]], int], Sequence[str]]

BUILTIN_DESCRIPTION = {"search_docs": "Search this task's documents and return passages."}
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
MIN_EVIDENCE = 3


class PolicyFile(Strict):
    """``--policy-file``: the tool-selection policy of a target, and what its machine has."""

    policy: Literal["all", "top-k"] = "all"
    k: int = Field(9, ge=1, le=1000)
    available: list[str] | None = Field(
        None, description="tools this target/machine has; 'requires' is checked against them"
    )


@dataclass(frozen=True)
class Policy:
    kind: Literal["all", "top-k"] = "all"
    k: int = 9
    ranker: Ranker | None = None

    def label(self) -> str:
        return "all tools" if self.kind == "all" else f"top-{self.k}"

    def shown(self, message: str, world: Sequence[tuple[str, str]]) -> list[str]:
        if self.kind == "all" or self.ranker is None:
            return [name for name, _ in world]
        return list(self.ranker(message, world, self.k))


@dataclass(frozen=True)
class Route:
    """``tool`` must be shown for at least one of ``messages`` (``label`` says where)."""

    label: str
    tool: str
    messages: tuple[str, ...]


@dataclass(frozen=True)
class CheckCase:
    """A case or a task, reduced to what the rules read."""

    where: str
    messages: tuple[str, ...]
    world: tuple[tuple[str, str], ...]
    evidence: tuple[tuple[str, str], ...] = ()  # (label, value)
    forbidden: tuple[tuple[str, str], ...] = ()  # (label, tool)
    expected: tuple[Route, ...] = ()


@dataclass(frozen=True)
class Finding:
    where: str
    rule: str
    text: str

    def line(self) -> str:
        return f"{self.where}: {self.text} [{self.rule}]"


@dataclass
class Checked:
    """The cases of one file and the tools it requires."""

    source: str
    cases: list[CheckCase] = field(default_factory=list)
    requires: list[str] = field(default_factory=list)
    world: list[str] = field(default_factory=list)


def from_case_file(document: CaseFile, source: str) -> Checked:
    world = tuple((tool.name, tool.description) for tool in document.tools)
    checked = Checked(source, requires=list(document.requires), world=[n for n, _ in world])
    for index, case in enumerate(document.cases):
        evidence, forbidden, expected = [], [], []
        for number, step in enumerate(case.steps):
            label = f"steps[{number}]"
            evidence += [(label, value) for value in step.evidence]
            forbidden += [(label, tool) for tool in step.forbidden]
            if step.expect is not None:
                expected.append(Route(label, step.expect, (step.message,)))
        checked.cases.append(
            CheckCase(
                where=f"{source}: cases[{index}] ({case.name})",
                messages=tuple(step.message for step in case.steps),
                world=world,
                evidence=tuple(evidence),
                forbidden=tuple(forbidden),
                expected=tuple(expected),
            )
        )
    return checked


def _world(task: Task) -> tuple[tuple[str, str], ...]:
    return tuple(
        (tool.name, tool.description)
        if isinstance(tool, ToolSpec)
        else (tool.builtin, BUILTIN_DESCRIPTION[tool.builtin])
        for tool in task.tools
    )


def from_tasks(tasks: Sequence[Task], source: str) -> Checked:
    """Ordinary tasks: ``contains`` is the evidence, ``trajectory.forbidden`` the forbidden
    list, ``trajectory.required`` and ``steps`` the expected tools (each must be shown for at
    least one user message); ``requires:<tool>`` tags are the requirements."""
    checked = Checked(source)
    for index, task in enumerate(tasks):
        messages = tuple(m.content for m in task.input if m.role == "user")
        evidence, forbidden, expected = [], [], []
        for position, expectation in enumerate(task.expectations):
            label = f"expectations[{position}]"
            if isinstance(expectation, Contains):
                evidence.append((label, expectation.value))
            elif isinstance(expectation, Trajectory):
                forbidden += [(label, tool) for tool in expectation.forbidden]
                expected += [Route(label, tool, messages) for tool in expectation.required]
            elif isinstance(expectation, Steps):
                expected += [Route(label, step.tool, messages) for step in expectation.steps]
        for tag in task.tags:
            name = tag.removeprefix("requires:")
            if name != tag and name not in checked.requires:
                checked.requires.append(name)
        for name in task.tool_names():
            if name not in checked.world:
                checked.world.append(name)
        checked.cases.append(
            CheckCase(
                where=f"{source}: tasks[{index}] ({task.id})",
                messages=messages,
                world=_world(task),
                evidence=tuple(evidence),
                forbidden=tuple(forbidden),
                expected=tuple(expected),
            )
        )
    return checked


def missing_tools(checked: Checked, available: Sequence[str] | None) -> list[str]:
    """Required tools the machine lacks: not in ``available`` when given, else not in the
    file's tool world."""
    have = set(available) if available is not None else set(checked.world)
    return [name for name in checked.requires if name not in have]


def _evidence_finding(value: str, messages: Sequence[str]) -> tuple[str, str] | None:
    stripped = value.strip()
    if len(stripped) < MIN_EVIDENCE:
        return (
            "evidence-short",
            f"evidence '{value}' is {len(stripped)} character(s); unrelated answers contain it "
            f"too (at least {MIN_EVIDENCE})",
        )
    if not any(ch.isalnum() for ch in stripped):
        return ("evidence-no-content", f"evidence '{value}' has no letter or digit")
    question = "\n".join(messages)
    for number in _NUMBER.findall(question):
        if stripped in number:
            return (
                "evidence-in-number",
                f"evidence '{value}' is part of the number {number} the question already gives",
            )
    if stripped.casefold() in question.casefold():
        return (
            "evidence-in-question",
            f"evidence '{value}' is already in the question; repeating it passes",
        )
    return None


def _shown(names: Sequence[str]) -> str:
    return ", ".join(names) if names else "nothing"


def check_case(case: CheckCase, policy: Policy) -> list[Finding]:
    findings: list[Finding] = []
    names = [name for name, _ in case.world]
    world = ", ".join(names) if names else "no tools"

    def add(label: str, rule: str, text: str) -> None:
        findings.append(Finding(f"{case.where}: {label}", rule, text))

    for label, value in case.evidence:
        found = _evidence_finding(value, case.messages)
        if found is not None:
            add(label, *found)
    expected = {route.tool for route in case.expected}
    for label, tool in case.forbidden:
        if tool not in names:
            add(label, "forbidden-unknown", f"forbidden '{tool}' is not a tool here ({world})")
        elif tool in expected:
            add(label, "forbidden-expected", f"'{tool}' is both expected and forbidden")
    for route in case.expected:
        if route.tool not in names:
            add(
                route.label,
                "expect-unknown",
                f"expected tool '{route.tool}' is not a tool here ({world})",
            )
            continue
        shown = [policy.shown(message, case.world) for message in route.messages]
        if not any(route.tool in names_shown for names_shown in shown):
            add(
                route.label,
                "unreachable",
                f"expected tool '{route.tool}' is never shown under {policy.label()} "
                f"(shown: {' | '.join(_shown(names_shown) for names_shown in shown)}); "
                "fix or remove the case",
            )
    return findings


def check(checked: Sequence[Checked], policy: Policy) -> list[Finding]:
    return [found for item in checked for case in item.cases for found in check_case(case, policy)]


__all__ = [
    "BUILTIN_DESCRIPTION",
    "MIN_EVIDENCE",
    "CheckCase",
    "Checked",
    "Finding",
    "Policy",
    "PolicyFile",
    "Ranker",
    "Route",
    "check",
    "check_case",
    "from_case_file",
    "from_tasks",
    "missing_tools",
]
