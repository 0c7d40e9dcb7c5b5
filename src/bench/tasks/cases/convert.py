"""Import a one-screen case file into ordinary tasks, and export such tasks back.

Mapping (every case becomes one ``tool-trajectory`` task; docs/TASKSET.md has the table):

* id ``<file name>-<case name>``; ``input`` is one user message per step; ``tools`` is the
  whole tool world (every task sees every tool, which is what a tool-selection policy is about);
  ``tags`` are ``suite:<file name>``, ``category:<category>`` and ``requires:<tool>`` for each
  required tool.
* ``tool``: ``trajectory`` with ``required: [expect]`` and the step's ``forbidden`` (axis tool).
* ``irrelevance``: ``trajectory`` with ``max_calls: 0`` (axis irrelevance).
* ``multi-step``: ``steps`` with every step's ``expect`` in order (axis step), which gives
  credit for the part of the chain that was reached.
* In a case of more than one step, each step's ``forbidden`` is its own ``trajectory`` (same
  axis as the case) and each evidence its own ``contains``, noted ``step N``; in a one-step case
  ``forbidden`` joins the main trajectory and ``contains`` has no note. Evidence is on the
  answer axis. Forbidden tools are checked over the whole conversation, not only that turn.

Export reverses exactly this, so ``export(import(file))`` is the same document.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from bench.core.errors import InputError
from bench.core.files import read_structured
from bench.core.trace import Message
from bench.core.validation import describe

from ..expectations import Contains, Expectation, Step, Steps, Trajectory
from ..model import Task, ToolSpec
from .model import CaseFile, CaseStep, OneCase, ToolsFile, WorldTool

_STEP_NOTE = re.compile(r"^step ([1-9][0-9]*)$")
_AXIS = {"tool": "tool", "irrelevance": "irrelevance", "multi-step": "step"}
_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}}


def is_case_document(raw: Any) -> bool:
    """A one-screen file has ``cases``; an ordinary task file has ``tasks``."""
    return isinstance(raw, dict) and "cases" in raw and "tasks" not in raw


def parse_case_file(raw: Any, path: Path) -> CaseFile:
    if not isinstance(raw, dict):
        raise InputError(
            "a case file is a mapping with 'name' and 'cases'", code="CASES_INVALID", path=path
        )
    try:
        return CaseFile.model_validate(raw)
    except ValidationError as exc:
        field, message = describe(exc)
        raise InputError(message, code="CASES_INVALID", path=path, field=field or None) from None


def read_tools_file(path: Path) -> list[WorldTool]:
    raw = read_structured(path)
    try:
        return list(ToolsFile.model_validate(raw).tools)
    except ValidationError as exc:
        field, message = describe(exc)
        raise InputError(message, code="CASES_INVALID", path=path, field=field or None) from None


def load_case_file(path: Path, tools: Path | None = None) -> CaseFile:
    """Read a one-screen file; ``tools`` names a separate tool world (the file then has none)."""
    return with_world(parse_case_file(read_structured(path), path), path, tools)


def with_world(document: CaseFile, path: Path, tools: Path | None) -> CaseFile:
    """The document with its tool world: its own ``tools`` or the ``--tools`` file's."""
    if tools is None:
        if not document.tools:
            raise InputError(
                "no tool world: give 'tools' in the file or a --tools FILE",
                code="CASES_INVALID",
                path=path,
                field="tools",
            )
        return document
    if document.tools:
        raise InputError(
            f"the file has its own 'tools' and --tools {tools} was given: use one tool world",
            code="CASES_INVALID",
            path=path,
            field="tools",
        )
    try:
        return document.model_copy(update={"tools": read_tools_file(tools)})
    except ValidationError as exc:  # pragma: no cover - the tools were validated on their own
        raise InputError(str(exc), code="CASES_INVALID", path=path) from None


def default_because(suite: str, name: str, category: str) -> str:
    """The ``because`` an imported task gets when its case gives none."""
    return f"One-screen case '{name}' ({category}) of '{suite}'."


def tool_spec(tool: WorldTool) -> ToolSpec:
    data: dict[str, Any] = {"name": tool.name, "description": tool.description}
    if tool.result is not None:
        data["default"] = tool.result
    return ToolSpec.model_validate(data)


def case_expectations(case: OneCase) -> list[Expectation]:
    axis = _AXIS[case.category]
    several = len(case.steps) > 1
    expectations: list[Expectation] = []
    first = case.steps[0]
    if case.category == "tool":
        expectations.append(
            Trajectory(required=[str(first.expect)], forbidden=list(first.forbidden), axis="tool")
        )
    elif case.category == "irrelevance":
        forbidden = [] if several else list(first.forbidden)
        expectations.append(Trajectory(max_calls=0, forbidden=forbidden, axis="irrelevance"))
    else:
        steps = [Step(tool=str(step.expect)) for step in case.steps]
        expectations.append(Steps(steps=steps, axis="step"))
    if several:
        for number, step in enumerate(case.steps, start=1):
            if step.forbidden:
                expectations.append(
                    Trajectory(forbidden=list(step.forbidden), axis=axis, note=f"step {number}")
                )
    for number, step in enumerate(case.steps, start=1):
        for value in step.evidence:
            note = f"step {number}" if several else None
            expectations.append(Contains(value=value, axis="answer", note=note))
    return expectations


def to_tasks(
    document: CaseFile,
    *,
    split: str = "public",
    path: Path | None = None,
    refuse_unknown: bool = True,
) -> list[Task]:
    """One ``tool-trajectory`` task per case (see the module docstring for the mapping).

    A case naming a tool that is not in its world is refused (``TASK_UNKNOWN_TOOL``), as
    ``bench task validate`` refuses the task it would become; ``refuse_unknown=False`` converts
    it anyway, for ``bench check`` to report on."""
    tools = [tool_spec(tool) for tool in document.tools]
    tasks: list[Task] = []
    for index, case in enumerate(document.cases):
        tags = [f"suite:{document.name}", f"category:{case.category}"]
        tags += [f"requires:{name}" for name in document.requires]
        data = {
            "id": f"{document.name}-{case.name}",
            "family": "tool-trajectory",
            "split": split,
            "language": document.language,
            "input": [Message(role="user", content=step.message) for step in case.steps],
            "tools": tools,
            "expectations": case_expectations(case),
            "because": case.because or default_because(document.name, case.name, case.category),
            "tags": tags,
        }
        try:
            task = Task.model_validate(data)
        except ValidationError as exc:
            field, message = describe(exc)
            raise InputError(
                message,
                code="CASES_INVALID",
                path=path,
                field=f"cases[{index}] ({case.name}).{field}" if field else f"cases[{index}]",
            ) from None
        unknown = task.unknown_tools() if refuse_unknown else []
        if unknown:  # what `bench task validate` refuses, refused before anything is written
            _, tool = unknown[0]
            where = next(
                (
                    f".steps[{n}].{key}"
                    for n, step in enumerate(case.steps)
                    for key, named in (("expect", [step.expect]), ("forbidden", step.forbidden))
                    if tool in named
                ),
                "",
            )
            raise InputError(
                f"'{tool}' is not a tool in the case's world "
                f"({', '.join(task.tool_names()) or 'no tools'})",
                code="TASK_UNKNOWN_TOOL",
                path=path,
                field=f"cases[{index}] ({case.name}){where}",
            )
        tasks.append(task)
    return tasks


def task_document(task: Task) -> dict[str, Any]:
    """A task as it is written to a task file: defaults left out."""
    data: dict[str, Any] = task.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    for tool in data.get("tools", []):
        tool.pop("has_default", None)
    data["expectations"] = [
        {"type": expectation.type, **written}
        for expectation, written in zip(task.expectations, data["expectations"], strict=True)
    ]
    return data


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


def render_task_file(tasks: Sequence[Task], source: str) -> bytes:
    header = (
        f"# Imported by `bench task import` from {source}: {len(tasks)} task(s).\n"
        "# Edit the case file and import again; `bench check` reads either form.\n"
    )
    body = yaml.dump(
        {"format_version": 1, "tasks": [task_document(task) for task in tasks]},
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        width=100,
        default_flow_style=False,
    )
    return (header + body).encode("utf-8")


# --- export ---------------------------------------------------------------------------------


def _refuse(task: Task, why: str) -> InputError:
    return InputError(
        f"task '{task.id}' cannot be written in the one-screen format: {why}",
        code="CASES_EXPORT",
    )


def _world_tool(task: Task, tool: ToolSpec | Any) -> WorldTool:
    if not isinstance(tool, ToolSpec):
        raise _refuse(task, f"the builtin tool '{tool.builtin}' has no one-screen form")
    plain = (
        tool.kind == "read"
        and not tool.cases
        and tool.reads is None
        and not tool.writes
        and tool.parameters == _PARAMETERS
    )
    if not plain:
        raise _refuse(task, f"tool '{tool.name}' has parameters, cases, reads or writes")
    return WorldTool(
        name=tool.name,
        description=tool.description,
        result=tool.default if tool.has_default else None,
    )


def _tag(task: Task, prefix: str) -> list[str]:
    return [tag.removeprefix(prefix) for tag in task.tags if tag.startswith(prefix)]


def _step_of(task: Task, note: str | None, count: int) -> int:
    if count == 1 and note is None:
        return 0
    found = _STEP_NOTE.match(note or "")
    if found is None or int(found.group(1)) > count:
        raise _refuse(task, f"a check noted {note!r} does not name one of its {count} step(s)")
    return int(found.group(1)) - 1


def _case(task: Task, suite: str) -> OneCase:
    categories = _tag(task, "category:")
    if task.family != "tool-trajectory" or len(categories) != 1:
        raise _refuse(task, "not imported from a case file (family or category tag)")
    category = categories[0]
    messages = [message for message in task.input if message.role == "user"]
    if len(messages) != len(task.input):
        raise _refuse(task, "its input has messages that are not the user's")
    steps = [CaseStep(message=message.content) for message in messages]
    several = len(steps) > 1
    main, *rest = task.expectations
    axis = _AXIS.get(category)
    if category == "tool" and isinstance(main, Trajectory) and len(main.required) == 1:
        steps[0].expect = main.required[0]
        steps[0].forbidden = list(main.forbidden)
    elif category == "irrelevance" and isinstance(main, Trajectory) and main.max_calls == 0:
        steps[0].forbidden = list(main.forbidden)
    elif category == "multi-step" and isinstance(main, Steps) and len(main.steps) == len(steps):
        for step, expected in zip(steps, main.steps, strict=True):
            if expected.args:
                raise _refuse(task, "a step with arguments has no one-screen form")
            step.expect = expected.tool
    else:
        raise _refuse(task, f"its first check is not the '{category}' check an import writes")
    if main.axis != axis or main.note is not None or main.weight != 1.0 or main.safety:
        raise _refuse(task, "its first check has an axis, note, weight or safety of its own")
    for expectation in rest:
        if expectation.weight != 1.0 or expectation.safety:
            raise _refuse(task, "a check has a weight or safety of its own")
        where = _step_of(task, expectation.note, len(steps))
        if isinstance(expectation, Contains) and expectation.axis == "answer":
            if expectation.case_sensitive:
                raise _refuse(task, "a case-sensitive contains has no one-screen form")
            steps[where].evidence.append(expectation.value)
        elif (
            isinstance(expectation, Trajectory)
            and several
            and expectation.axis == axis
            and not expectation.required
            and not expectation.order
            and expectation.max_calls is None
        ):
            steps[where].forbidden.extend(expectation.forbidden)
        else:
            raise _refuse(task, f"a '{expectation.type}' check has no one-screen form")
    prefix = f"{suite}-"
    name = task.id.removeprefix(prefix)
    return OneCase.model_validate(
        {
            "name": name,
            "category": category,
            "steps": [step.model_dump() for step in steps],
            "because": None
            if task.because == default_because(suite, name, category)
            else task.because,
        }
    )


def from_tasks(tasks: Sequence[Task]) -> CaseFile:
    """The one-screen file a list of imported tasks came from (``CASES_EXPORT`` otherwise)."""
    if not tasks:
        raise InputError("no tasks to export", code="CASES_EXPORT")
    first = tasks[0]
    suites = {tuple(_tag(task, "suite:")) for task in tasks}
    if len(suites) != 1 or len(next(iter(suites))) != 1:
        raise _refuse(first, "the tasks do not share one 'suite:' tag")
    suite = next(iter(suites))[0]
    world = [_world_tool(first, tool) for tool in first.tools]
    for task in tasks:
        if task.tools != first.tools or task.language != first.language:
            raise _refuse(task, f"its tools or language differ from '{first.id}'")
        if _tag(task, "requires:") != _tag(first, "requires:"):
            raise _refuse(task, f"its requires tags differ from '{first.id}'")
        if not task.id.startswith(f"{suite}-"):
            raise _refuse(task, f"its id does not start with '{suite}-'")
    try:
        return CaseFile(
            name=suite,
            language=first.language,
            requires=_tag(first, "requires:"),
            tools=world,
            cases=[_case(task, suite) for task in tasks],
        )
    except ValidationError as exc:
        field, message = describe(exc)
        raise InputError(message, code="CASES_EXPORT", field=field or None) from None


__all__ = [
    "case_expectations",
    "default_because",
    "from_tasks",
    "is_case_document",
    "load_case_file",
    "parse_case_file",
    "read_tools_file",
    "render_task_file",
    "task_document",
    "to_tasks",
    "tool_spec",
    "with_world",
]
