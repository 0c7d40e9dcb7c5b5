"""The task contract: what is asked, the mock world it ships, and how it is scored."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from bench.core.budget import Budget
from bench.core.canonical import fingerprint
from bench.core.ids import ID_PATTERN
from bench.core.models import FORMAT_VERSION, Strict
from bench.core.trace import Message
from bench.core.validation import not_json

from .expectations import Calls, Expectation, State, Steps, Trajectory
from .families import VOCABULARY, Family

Split = Literal["public", "private"]


class Case(Strict):
    """A canned result: returned when every key in ``when`` equals the call's argument."""

    when: dict[str, Any] = Field(default_factory=dict)
    result: Any = None
    error: str | None = None

    @model_validator(mode="after")
    def _one_outcome(self) -> Case:
        if self.error is not None and self.result is not None:
            raise ValueError("a case gives a result or an error, not both")
        return self


class Write(Strict):
    """A state change a write tool makes: ``path`` and ``value`` may use ``{arg}`` templates."""

    path: str = Field(min_length=1)
    value: Any = None


class ToolSpec(Strict):
    """A deterministic mock tool, defined entirely by data."""

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
    description: str = ""
    parameters: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}},
        description="JSON Schema the arguments must satisfy",
    )
    kind: Literal["read", "write"] = "read"
    cases: list[Case] = Field(default_factory=list)
    reads: str | None = Field(None, description="state path template the result is read from")
    writes: list[Write] = Field(default_factory=list)
    default: Any = Field(None, description="result when no case matches")
    has_default: bool = Field(False, description="true when 'default' was given")

    @model_validator(mode="before")
    @classmethod
    def _note_default(cls, data: Any) -> Any:
        if isinstance(data, dict) and "default" in data and "has_default" not in data:
            data = {**data, "has_default": True}
        return data

    @model_validator(mode="after")
    def _writes_need_write_kind(self) -> ToolSpec:
        if self.writes and self.kind != "write":
            raise ValueError(f"tool '{self.name}' changes state, so its kind must be 'write'")
        if self.kind == "write" and not (self.cases or self.reads or self.has_default):
            raise ValueError(
                f"write tool '{self.name}' has no result to return: give 'default' or 'cases'"
            )
        return self


class BuiltinTool(Strict):
    """A tool the harness provides; today only ``search_docs`` over the task's corpus."""

    builtin: Literal["search_docs"]
    k: int = Field(3, ge=1, le=20, description="passages returned per search")


class Limits(Strict):
    max_turns: int = Field(8, ge=1, le=100, description="model calls allowed per user turn")
    timeout_s: float = Field(60.0, gt=0, description="wall time allowed for the whole attempt")


class Task(Strict):
    format_version: Literal[1] = FORMAT_VERSION
    id: str = Field(pattern=ID_PATTERN, max_length=128)
    family: Family
    split: Split
    language: str = Field("en", pattern=r"^[a-z]{2}(-[A-Z]{2})?$")
    input: list[Message] = Field(min_length=1)
    tools: list[ToolSpec | BuiltinTool] = Field(default_factory=list)
    state: dict[str, Any] = Field(default_factory=dict, description="initial mock-world state")
    corpus: list[str] = Field(default_factory=list, description="corpus documents search sees")
    expectations: list[Expectation] = Field(min_length=1)
    because: str = Field(description="why this task exists; required")
    limits: Limits = Field(default_factory=Limits)
    budget: Budget = Field(default_factory=Budget)
    tags: list[str] = Field(default_factory=list)

    def first_response_scored(self) -> bool:
        """Whether only the model's first response is scored: every check is a ``calls`` check
        (BFCL's single-turn semantics, ``bench.scorers.calls``). Such an attempt ends after
        that response and its tool calls (``runner.attempt``): a model that went on calling
        tools after a right first response was cut off over budget and failed, where BFCL
        passes it (docs/DECISIONS.md 55)."""
        return all(e.type == "calls" for e in self.expectations)

    @field_validator("because")
    @classmethod
    def _because_said(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("a task must say why it exists ('because' is empty)")
        return value

    @field_validator("input")
    @classmethod
    def _has_user_turn(cls, value: list[Message]) -> list[Message]:
        if not any(message.role == "user" for message in value):
            raise ValueError("the input has no user message")
        return value

    @model_validator(mode="after")
    def _vocabulary_and_tools(self) -> Task:
        allowed = VOCABULARY[self.family]
        for index, expectation in enumerate(self.expectations):
            if expectation.type not in allowed:
                raise ValueError(
                    f"expectations[{index}]: type '{expectation.type}' is not in the "
                    f"{self.family} vocabulary ({', '.join(sorted(allowed))})"
                )
        names = [tool.name if isinstance(tool, ToolSpec) else tool.builtin for tool in self.tools]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ValueError(f"tools: duplicate tool name(s) {', '.join(duplicates)}")
        if "search_docs" in names and not self.corpus:
            raise ValueError("tools: search_docs needs a corpus, and 'corpus' is empty")
        return self

    @model_validator(mode="after")
    def _plain_json(self) -> Task:
        # YAML reads unquoted 2026-07-14 as a date and .nan as NaN: neither can ever be matched
        # by an answer or an argument, so the task is refused instead of failing entrants.
        where = not_json(self.model_dump(mode="python", by_alias=True), "")
        if where is not None:
            path, kind = where
            raise ValueError(f"{path}: {kind} is not a JSON value (quote it in the task file)")
        return self

    def tool_names(self) -> list[str]:
        return [tool.name if isinstance(tool, ToolSpec) else tool.builtin for tool in self.tools]

    def unknown_tools(self) -> list[tuple[str, str]]:
        """``(field, tool)`` for every tool an expectation names that is not in this task's
        world: a forbidden one can never run (the check can never fail), a required one can
        never be called (the task can never pass). ``bench task validate`` and ``bench task
        import`` refuse them (``TASK_UNKNOWN_TOOL``)."""
        names = set(self.tool_names())
        found: list[tuple[str, str]] = []
        for index, expectation in enumerate(self.expectations):
            where = f"expectations[{index}]"
            named: list[tuple[str, str]] = []
            if isinstance(expectation, Trajectory):
                for key, tools in (
                    ("required", expectation.required),
                    ("order", expectation.order),
                    ("forbidden", expectation.forbidden),
                ):
                    named += [(f"{where}.{key}", tool) for tool in tools]
            elif isinstance(expectation, Steps):
                named += [
                    (f"{where}.steps[{n}].tool", step.tool)
                    for n, step in enumerate(expectation.steps)
                ]
            elif isinstance(expectation, State):
                named.append((f"{where}.tool", expectation.tool))
            elif isinstance(expectation, Calls):
                named += [
                    (f"{where}.calls[{n}].tool", call.tool)
                    for n, call in enumerate(expectation.calls)
                ]
            found += [(field, tool) for field, tool in named if tool not in names]
        return found

    def fingerprint(self) -> str:
        """Moves with what is asked and how it is scored; not with id, split, tags or because."""
        data = self.model_dump(mode="json", by_alias=True)
        for bookkeeping in ("id", "split", "tags", "because", "format_version"):
            data.pop(bookkeeping)
        for expectation in data["expectations"]:
            expectation.pop("note", None)
        return fingerprint(data, length=64)


class TaskFile(Strict):
    """One YAML or JSON file of tasks."""

    format_version: Literal[1] = FORMAT_VERSION
    tasks: list[dict[str, Any]] = Field(min_length=1)


__all__ = [
    "Budget",
    "BuiltinTool",
    "Case",
    "Limits",
    "Split",
    "Task",
    "TaskFile",
    "ToolSpec",
    "Write",
]
