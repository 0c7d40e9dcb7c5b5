"""Builders shared by the scorer tests: a task around some expectations, a trace, a verdict."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from bench.core.score import Verdict
from bench.core.trace import ToolCall, Trace
from bench.scorers import AttemptScore, score_attempt
from bench.tasks.model import Task

FAMILY_OF: dict[str, str] = {
    "contains": "grounded-qa",
    "not_contains": "grounded-qa",
    "regex": "grounded-qa",
    "citations": "grounded-qa",
    "answerable": "grounded-qa",
    "trajectory": "tool-trajectory",
    "fields": "structured-extraction",
    "json": "structured-extraction",
}

KNOWN = frozenset(
    {
        "faq.md#refunds",
        "faq.md#shipping",
        "policy.md#refunds",
        "policy.md#returns",
        "guide.md#setup",
    }
)


def build_task(expectations: Sequence[dict[str, Any]], family: str | None = None) -> Task:
    family = family or FAMILY_OF[expectations[0]["type"]]
    return Task.model_validate(
        {
            "id": "t-1",
            "family": family,
            "split": "public",
            "input": [{"role": "user", "content": "What is the refund window?"}],
            "expectations": list(expectations),
            "because": "a test needs a task",
        }
    )


def build_trace(
    answer: str | list[str] = "",
    tools: Sequence[str | ToolCall] = (),
    retrieved: Sequence[str] = (),
) -> Trace:
    calls = [
        tool if isinstance(tool, ToolCall) else ToolCall(id=f"c{index}", name=tool)
        for index, tool in enumerate(tools)
    ]
    answers = answer if isinstance(answer, list) else ([answer] if answer else [])
    return Trace(answers=answers, tool_calls=calls, retrieved=list(retrieved))


Attempt = Callable[..., AttemptScore]
Check = Callable[..., Verdict]


@pytest.fixture
def attempt() -> Attempt:
    """``attempt([exp, ...], answer=..., tools=..., retrieved=..., known=...)``; ``answer`` may
    be a list, one answer per user turn."""

    def run(
        expectations: Sequence[dict[str, Any]],
        answer: str | list[str] = "",
        tools: Sequence[str | ToolCall] = (),
        retrieved: Sequence[str] = (),
        known: frozenset[str] = KNOWN,
        family: str | None = None,
    ) -> AttemptScore:
        task = build_task(expectations, family)
        return score_attempt(task, build_trace(answer, tools, retrieved), known)

    return run


@pytest.fixture
def check(attempt: Attempt) -> Check:
    """``check(exp, answer=..., ...)``: the one verdict of a one-expectation task."""

    def run(expectation: dict[str, Any], **kwargs: Any) -> Verdict:
        (verdict,) = attempt([expectation], **kwargs).verdicts
        return verdict

    return run


def _score_unchecked(
    scorer: Callable[..., Verdict],
    expectation: Any,
    answer: str = "",
    tool_calls: Sequence[ToolCall] = (),
) -> Verdict:
    """Run one scorer on an expectation built with ``model_construct`` (so task validation,
    which would refuse it, is bypassed): the scorer's own line of defence."""
    from bench.core.trace import Trace as _Trace
    from bench.scorers import ScoringContext

    task = Task.model_validate(
        {
            "id": "unchecked",
            "family": "tool-trajectory",
            "split": "public",
            "input": [{"role": "user", "content": "go"}],
            "expectations": [{"type": "contains", "value": "x"}],
            "because": "data that slipped past validation",
        }
    )
    trace = _Trace(answers=[answer], tool_calls=list(tool_calls))
    return scorer(expectation, ScoringContext(task=task, trace=trace, known_passages=frozenset()))


@pytest.fixture
def score_unchecked() -> Callable[..., Verdict]:
    """``score_unchecked(scorer, expectation, answer=..., tool_calls=...)``."""
    return _score_unchecked
