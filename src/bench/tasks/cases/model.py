"""The one-screen case format: a named list of cases, each a few user messages with the tool
each one expects, plain-substring evidence and the tool names that must not run.

The format has no tool definitions of its own, so a case file carries a minimal tool world
(``tools``: name, description, and the result every call returns) or takes one from a separate
file (``bench task import --tools FILE``, ``bench check --tools FILE``). See docs/TASKSET.md.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from bench.core.ids import ID_PATTERN
from bench.core.models import Strict

Category = Literal["tool", "irrelevance", "multi-step"]
CATEGORIES: tuple[str, ...] = ("tool", "irrelevance", "multi-step")
TOOL_NAME = r"^[A-Za-z_][A-Za-z0-9_]{0,63}$"


class WorldTool(Strict):
    """One mock tool: what the model is shown (name, description) and what every call returns."""

    name: str = Field(pattern=TOOL_NAME)
    description: str = ""
    result: Any = Field(None, description="returned by every call; absent means an error")


class CaseStep(Strict):
    message: str = Field(min_length=1, description="what the user says")
    expect: str | None = Field(None, description="the tool this message should make the agent run")
    evidence: list[str] = Field(default_factory=list, description="plain substrings of the answer")
    forbidden: list[str] = Field(default_factory=list, description="tool names that must not run")

    @model_validator(mode="after")
    def _non_empty(self) -> CaseStep:
        if any(not value for value in self.evidence):
            raise ValueError("evidence: an empty string matches every answer")
        return self


class OneCase(Strict):
    name: str = Field(pattern=ID_PATTERN, max_length=64)
    category: Category
    steps: list[CaseStep] = Field(min_length=1)
    because: str | None = Field(None, description="why the case exists (default: generated)")

    @model_validator(mode="after")
    def _shape(self) -> OneCase:
        expects = [step.expect for step in self.steps]
        if self.category == "tool" and (len(self.steps) != 1 or expects[0] is None):
            raise ValueError("a 'tool' case has exactly one step, and that step has 'expect'")
        if self.category == "irrelevance" and any(expects):
            raise ValueError("an 'irrelevance' case expects no tool: drop 'expect'")
        if self.category == "multi-step" and (len(self.steps) < 2 or None in expects):
            raise ValueError("a 'multi-step' case has two or more steps, each with 'expect'")
        return self


class CaseFile(Strict):
    name: str = Field(pattern=ID_PATTERN, max_length=60)
    language: str = Field("en", pattern=r"^[a-z]{2}(-[A-Z]{2})?$")
    requires: list[str] = Field(default_factory=list, description="tools the machine must have")
    tools: list[WorldTool] = Field(default_factory=list)
    cases: list[OneCase] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> CaseFile:
        for label, names in (
            ("cases", [case.name for case in self.cases]),
            ("tools", [tool.name for tool in self.tools]),
            ("requires", list(self.requires)),
        ):
            twice = sorted({name for name in names if names.count(name) > 1})
            if twice:
                raise ValueError(f"{label}: duplicate name(s) {', '.join(twice)}")
        return self

    def document(self) -> dict[str, Any]:
        """The file as plain JSON data: defaults left out, except ``language``."""
        data: dict[str, Any] = self.model_dump(mode="json", exclude_defaults=True)
        order = ("name", "language", "requires", "tools", "cases")
        data["language"] = self.language
        return {key: data[key] for key in order if key in data}


class ToolsFile(Strict):
    """A separate tool world: ``{tools: [{name, description, result}, ...]}``."""

    tools: list[WorldTool] = Field(min_length=1)


__all__ = [
    "CATEGORIES",
    "TOOL_NAME",
    "CaseFile",
    "CaseStep",
    "Category",
    "OneCase",
    "ToolsFile",
    "WorldTool",
]
