"""The fourteen expectation types: their names and parameters (not their scoring).

Scoring lives in ``bench.scorers``; this module is only the vocabulary a task file may use, so
that a task with a missing or ill-typed parameter is refused at validation with its field.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from bench.core.models import Strict

Axis = Literal["irrelevance", "tool", "step", "answer"]
AXES: tuple[str, ...] = ("irrelevance", "tool", "step", "answer")


class _Base(Strict):
    weight: float = Field(1.0, gt=0, description="weight of this check in the task score")
    note: str | None = Field(None, description="why this check is here (bookkeeping)")
    axis: Axis | None = Field(None, description="axis view bucket; default from the type")
    safety: bool = Field(False, description="a failure of this check is a safety violation")


class Contains(_Base):
    type: Literal["contains"] = "contains"
    value: str = Field(min_length=1)
    case_sensitive: bool = False


class NotContains(_Base):
    type: Literal["not_contains"] = "not_contains"
    value: str = Field(min_length=1)
    case_sensitive: bool = False


class Regex(_Base):
    type: Literal["regex"] = "regex"
    pattern: str = Field(min_length=1)
    flags: list[Literal["i", "m", "s"]] = Field(default_factory=list)

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"pattern does not compile: {exc}") from None
        return value


class Json(_Base):
    type: Literal["json"] = "json"
    kind: Literal["any", "object", "array"] = "any"


class Schema(_Base):
    type: Literal["schema"] = "schema"
    json_schema: dict[str, Any] = Field(alias="schema")

    @field_validator("json_schema")
    @classmethod
    def _valid_schema(cls, value: dict[str, Any]) -> dict[str, Any]:
        from bench.core.schemacheck import schema_problem

        try:
            problem = schema_problem(value)
        except (TypeError, ValueError):
            problem = "it is not JSON"
        if problem is not None:
            raise ValueError(f"not a valid JSON Schema: {problem}")
        return value


class Citations(_Base):
    type: Literal["citations"] = "citations"
    required: list[str] = Field(default_factory=list, description="passage ids that must be cited")
    forbid_unretrieved: bool = Field(True, description="citing a passage never retrieved fails")
    min_citations: int = Field(1, ge=0)


class Answerable(_Base):
    type: Literal["answerable"] = "answerable"
    answerable: bool


class Trajectory(_Base):
    type: Literal["trajectory"] = "trajectory"
    required: list[str] = Field(default_factory=list)
    order: list[str] = Field(default_factory=list, description="must run in this relative order")
    forbidden: list[str] = Field(default_factory=list)
    max_calls: int | None = Field(None, ge=0)


class Step(Strict):
    tool: str
    args: dict[str, Any] = Field(default_factory=dict, description="must match these arguments")


class Steps(_Base):
    type: Literal["steps"] = "steps"
    steps: list[Step] = Field(min_length=1)


class State(_Base):
    type: Literal["state"] = "state"
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    times: int = Field(1, ge=0)


class ExpectedCall(Strict):
    """One call a ``calls`` check expects: each argument's acceptable values."""

    tool: str = Field(min_length=1)
    args: dict[str, list[Any]] = Field(
        default_factory=dict,
        description='argument -> every acceptable value; "" in the list: may be omitted',
    )


class Calls(_Base):
    """The model's first response calls exactly these tools with acceptable arguments, in any
    order (BFCL's AST match, ``bench.scorers.calls``). An empty ``calls`` means no call may be
    made; ``any_call`` means some call must be made, whatever it is (BFCL's relevance)."""

    type: Literal["calls"] = "calls"
    calls: list[ExpectedCall] = Field(default_factory=list)
    any_call: bool = Field(False, description="pass on any call at all; 'calls' must be empty")
    language: Literal["python", "java", "javascript"] = Field(
        "python", description="how argument types are read (BFCL's language rules)"
    )

    @model_validator(mode="after")
    def _any_call_alone(self) -> Calls:
        if self.any_call and self.calls:
            raise ValueError("'any_call' passes on any call, so 'calls' must be empty")
        return self


class Fields(_Base):
    type: Literal["fields"] = "fields"
    fields: dict[str, Any] = Field(min_length=1)
    weights: dict[str, float] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _weights_name_fields(self) -> Fields:
        stray = sorted(set(self.weights) - set(self.fields))
        if stray:
            raise ValueError(f"weights for fields the check does not list: {', '.join(stray)}")
        bad = sorted(name for name, weight in self.weights.items() if not weight > 0)
        if bad:
            raise ValueError(f"weights must be positive: {', '.join(bad)}")
        return self


class Refusal(_Base):
    type: Literal["refusal"] = "refusal"
    must_refuse: bool


class Judge(_Base):
    type: Literal["judge"] = "judge"
    rubric: str = Field(min_length=1)


Expectation = Annotated[
    Contains
    | NotContains
    | Regex
    | Json
    | Schema
    | Citations
    | Answerable
    | Trajectory
    | Steps
    | State
    | Fields
    | Refusal
    | Judge
    | Calls,
    Field(discriminator="type"),
]


def default_axis(expectation: Expectation) -> str:
    """The axis an expectation counts toward when it does not name one.

    Tool use is ``tool``; ordered plans are ``step``; declining to act (a refusal, or a
    trajectory that allows no calls at all) is ``irrelevance``; everything read from the answer
    is ``answer``.
    """
    if expectation.axis is not None:
        return expectation.axis
    if isinstance(expectation, Refusal):
        return "irrelevance"
    if isinstance(expectation, Trajectory):
        return "irrelevance" if expectation.max_calls == 0 else "tool"
    if isinstance(expectation, Calls):
        return "tool" if expectation.calls or expectation.any_call else "irrelevance"
    if isinstance(expectation, State):
        return "tool"
    if isinstance(expectation, Steps):
        return "step"
    return "answer"


EXPECTATION_TYPES: tuple[str, ...] = (
    "contains",
    "not_contains",
    "regex",
    "json",
    "schema",
    "citations",
    "answerable",
    "trajectory",
    "steps",
    "state",
    "fields",
    "refusal",
    "judge",
    "calls",
)

__all__ = [
    "AXES",
    "EXPECTATION_TYPES",
    "Axis",
    "Answerable",
    "Calls",
    "Citations",
    "Contains",
    "ExpectedCall",
    "Expectation",
    "Fields",
    "Json",
    "Judge",
    "NotContains",
    "Refusal",
    "Regex",
    "Schema",
    "State",
    "Step",
    "Steps",
    "Trajectory",
    "default_axis",
]
