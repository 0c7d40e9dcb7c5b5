"""The ``calls`` check on hand-built tasks: its rules and its sentences (no bfcl-eval needed)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from bench.core.trace import Message, ToolCall, ToolCallRequest, Trace
from bench.scorers import score_attempt
from bench.tasks.expectations import Calls, default_axis
from bench.tasks.model import Task


def _task(check: dict[str, Any], properties: dict[str, Any] | None = None, **extra: Any) -> Task:
    schema = {
        "type": "object",
        "properties": properties
        or {
            "city": {"type": "string", "x-bfcl-type": "string"},
            "days": {"type": "integer", "x-bfcl-type": "integer"},
            "scale": {"type": "number", "format": "float", "x-bfcl-type": "float"},
        },
        "required": [] if properties else ["city"],
    }
    return Task.model_validate(
        {
            "id": "calls-0001",
            "family": "tool-trajectory",
            "split": "public",
            "input": [{"role": "user", "content": "Weather in Paris for 4 days?"}],
            "tools": [
                {"name": "get_weather", "parameters": schema, "default": "ok"},
                {"name": "get_time", "parameters": {"type": "object"}, "default": "ok"},
            ],
            "expectations": [{"type": "calls", **check}],
            "because": "a hand-built case for the calls check's rules and sentences",
            **extra,
        }
    )


def _trace(*responses: list[tuple[str, dict[str, Any]]], broken: str | None = None) -> Trace:
    messages = [Message(role="user", content="Weather in Paris for 4 days?")]
    for number, calls in enumerate(responses):
        requests = [
            ToolCallRequest(id=f"c{number}-{i}", name=name, arguments=args)
            for i, (name, args) in enumerate(calls)
        ]
        if broken is not None and number == 0:
            requests.append(ToolCallRequest(id="bad", name="get_weather", arguments_error=broken))
        messages.append(Message(role="assistant", tool_calls=requests))
    messages.append(Message(role="assistant", content="done"))
    ran = [
        ToolCall(id=request.id, name=request.name, arguments=request.arguments)
        for message in messages
        for request in message.tool_calls
    ]
    return Trace(messages=messages, tool_calls=ran, answers=["done"])


WEATHER = {
    "calls": [
        {
            "tool": "get_weather",
            "args": {"city": ["Paris", "Paris, France"], "days": [4, 5], "scale": [1.0, ""]},
        }
    ]
}


def _verdict(task: Task, trace: Trace) -> tuple[bool, str]:
    score = score_attempt(task, trace, frozenset())
    verdict = score.verdicts[0]
    assert verdict.decided
    assert score.value == (1.0 if verdict.passed else 0.0)
    return verdict.passed, verdict.sentence


@pytest.mark.parametrize(
    ("args", "sentence"),
    [
        (
            {"city": "Paris", "days": 3},
            "get_weather: argument 'days' was 3, expected one of 4, 5",
        ),
        ({"days": 4}, "get_weather: missing required argument 'city'"),
        ({"city": "Paris"}, "get_weather: argument 'days' is missing, expected one of 4, 5"),
        (
            {"city": "Paris", "days": 4, "units": "C"},
            "get_weather: unexpected argument 'units'",
        ),
        (
            {"city": "Paris", "days": "4"},
            "get_weather: argument 'days' should be of type integer, got str '4'",
        ),
        (
            {"city": "Paris", "days": True},
            "get_weather: argument 'days' should be of type integer, got bool true",
        ),
        (
            {"city": "Lyon", "days": 4},
            "get_weather: argument 'city' was 'Lyon', expected one of 'Paris', 'Paris, France'",
        ),
    ],
)
def test_a_wrong_call_fails_with_the_first_problem(args: dict[str, Any], sentence: str) -> None:
    assert _verdict(_task(WEATHER), _trace([("get_weather", args)])) == (False, sentence)


@pytest.mark.parametrize(
    "args",
    [
        {"city": "Paris", "days": 4},  # the optional scale omitted
        {"city": "paris,france", "days": 5, "scale": 1},  # int for float; BFCL's normalisation
        {"city": "  PARIS ", "days": 4, "scale": 1.0},
    ],
)
def test_acceptable_values_pass(args: dict[str, Any]) -> None:
    passed, sentence = _verdict(_task(WEATHER), _trace([("get_weather", args)]))
    assert passed, sentence
    assert sentence.startswith("the calls match the ground truth: get_weather(")


def test_parallel_calls_match_in_any_order_and_count_exactly() -> None:
    task = _task(
        {
            "calls": [
                {"tool": "get_weather", "args": {"city": ["Paris"], "days": [4]}},
                {"tool": "get_time", "args": {}},
            ]
        }
    )
    both = [("get_time", {}), ("get_weather", {"city": "Paris", "days": 4})]
    assert _verdict(task, _trace(both))[0]
    assert _verdict(task, _trace(both + [("get_time", {})])) == (
        False,
        "made 3 calls (get_time, get_weather, get_time), expected 2 (get_weather, get_time)",
    )
    assert _verdict(task, _trace(both[:1]))[1] == (
        "made 1 call (get_time), expected 2 (get_weather, get_time)"
    )
    assert _verdict(task, _trace([])) == (
        False,
        "made no tool call, expected get_weather, get_time",
    )


def test_a_wrong_function_name_is_named() -> None:
    made = [("get_time", {})]
    assert _verdict(_task(WEATHER), _trace(made)) == (
        False,
        "called get_time, expected get_weather",
    )


def test_only_the_first_response_with_calls_is_read() -> None:
    right = [("get_weather", {"city": "Paris", "days": 4})]
    wrong = [("get_weather", {"city": "Rome", "days": 9})]
    assert _verdict(_task(WEATHER), _trace(right, wrong))[0]
    assert not _verdict(_task(WEATHER), _trace(wrong, right))[0]


def test_a_call_written_into_the_input_is_not_the_models() -> None:
    task = _task({"calls": []})
    scripted = Message(
        role="assistant",
        tool_calls=[ToolCallRequest(id="earlier", name="get_time", arguments={})],
    )
    trace = _trace()
    trace = trace.model_copy(update={"messages": [scripted, *trace.messages]})
    assert _verdict(task, trace) == (True, "made no tool call, as the task expects")


def test_malformed_arguments_fail_a_match_and_are_no_call_for_irrelevance() -> None:
    passed, sentence = _verdict(_task(WEATHER), _trace([], broken="Expecting value"))
    assert (passed, sentence) == (
        False,
        "the arguments of get_weather are not a JSON object: Expecting value",
    )
    assert _verdict(_task({"calls": []}), _trace([], broken="Expecting value"))[0]


def test_one_malformed_call_makes_the_whole_response_no_call_as_in_bfcl() -> None:
    # BFCL decodes a response whole: a well-formed call beside a malformed one does not count.
    both = _trace([("get_time", {})], broken="Expecting value")
    assert _verdict(_task({"calls": []}), both) == (
        True,
        "made no tool call (the arguments of get_weather are not a JSON object, so the response "
        "does not decode), as the task expects",
    )
    assert _verdict(_task({"any_call": True}), both) == (
        False,
        "made no tool call (the arguments of get_weather are not a JSON object, so the response "
        "does not decode), and the task expects one",
    )
    assert not _verdict(_task(WEATHER), both)[0]


def test_irrelevance_expects_no_call() -> None:
    task = _task({"calls": []})
    assert _verdict(task, _trace()) == (True, "made no tool call, as the task expects")
    assert _verdict(task, _trace([("get_time", {})])) == (
        False,
        "called get_time, and the task expects no tool call",
    )
    assert default_axis(task.expectations[0]) == "irrelevance"


def test_relevance_expects_any_call() -> None:
    task = _task({"any_call": True})
    assert _verdict(task, _trace([("get_time", {})]))[0]
    assert _verdict(task, _trace()) == (False, "made no tool call, and the task expects one")
    assert default_axis(task.expectations[0]) == "tool"


def test_java_and_javascript_arguments_are_read_as_literals() -> None:
    java = _task(
        {
            "language": "java",
            "calls": [{"tool": "get_weather", "args": {"n": [5], "xs": [[1, 2]]}}],
        },
        {
            "n": {"type": "string", "x-bfcl-type": "long"},
            "xs": {"type": "string", "x-bfcl-type": "ArrayList", "x-bfcl-items": "integer"},
        },
    )
    good = {"n": "5L", "xs": "new ArrayList<>(Arrays.asList(1, 2))"}
    assert _verdict(java, _trace([("get_weather", good)]))[0]
    assert _verdict(java, _trace([("get_weather", {**good, "n": 5})])) == (
        False,
        "get_weather: argument 'n' must be a java literal in a string, got int 5",
    )
    js = _task(
        {"language": "javascript", "calls": [{"tool": "get_weather", "args": {"s": ["a b"]}}]},
        {"s": {"type": "string", "x-bfcl-type": "String"}},
    )
    assert _verdict(js, _trace([("get_weather", {"s": "'a b'"})]))[0]


def test_the_check_is_validated_and_belongs_to_tool_trajectory() -> None:
    with pytest.raises(ValidationError, match="'any_call' passes on any call"):
        Calls.model_validate({"type": "calls", "any_call": True, "calls": [{"tool": "x"}]})
    with pytest.raises(ValidationError, match="not in the grounded-qa vocabulary"):
        Task.model_validate({**_task(WEATHER).model_dump(mode="json"), "family": "grounded-qa"})


def test_expected_calls_are_a_goal_and_no_call_is_a_condition() -> None:
    from bench.scorers.roles import role

    assert role(Calls(calls=[{"tool": "get_weather", "args": {}}])) == "goal"  # type: ignore[list-item]
    assert role(Calls(any_call=True)) == "goal"
    assert role(Calls()) == "condition"


def test_a_calls_check_naming_a_tool_the_task_lacks_is_found() -> None:
    task = _task({"calls": [{"tool": "get_wether", "args": {}}]})
    assert task.unknown_tools() == [("expectations[0].calls[0].tool", "get_wether")]


@pytest.mark.parametrize(
    "args",
    [
        {"city": "Rome", "days": 9, "scale": 2.0},  # three problems: the first one is named
        {"city": "Paris", "days": 4, "scale": 1.0},
    ],
)
def test_the_sentence_does_not_depend_on_the_order_the_arguments_came_in(
    args: dict[str, Any],
) -> None:
    """A bundle stores attempts as canonical JSON (keys sorted): the verdict bench verify
    recomputes from it must be the run's, so the check reads arguments in sorted order."""
    task = _task(WEATHER)
    forward = _verdict(task, _trace([("get_weather", args)]))
    backward = _verdict(task, _trace([("get_weather", dict(reversed(list(args.items()))))]))
    assert forward == backward
