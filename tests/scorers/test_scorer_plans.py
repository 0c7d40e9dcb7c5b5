"""steps and state: calls matched by tool and argument subset, exact sentences, exact credit."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from bench.core.score import Verdict
from bench.core.trace import ToolCall
from bench.scorers import (
    REGISTRY,
    AttemptScore,
    plans,  # noqa: E402
)

FAMILY = "tool-trajectory"
Check = Callable[..., Verdict]
Attempt = Callable[..., AttemptScore]


@pytest.fixture(autouse=True)
def _installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(REGISTRY, "steps", plans.score_steps)
    monkeypatch.setitem(REGISTRY, "state", plans.score_state)
    yield


def call(name: str, error: str | None = None, **arguments: Any) -> ToolCall:
    return ToolCall(
        id=f"{name}-{sorted(arguments.items())}", name=name, arguments=arguments, error=error
    )


@pytest.fixture
def calls(check: Check) -> Check:
    """``calls(expectation, *tool_calls)``: the verdict of a one-expectation tool task."""

    def run(expectation: dict[str, Any], *tools: ToolCall | str) -> Verdict:
        return check(expectation, tools=list(tools), family=FAMILY)

    return run


def assert_pass(verdict: Verdict, sentence: str) -> None:
    assert (verdict.decided, verdict.passed, verdict.credit) == (True, True, 1.0)
    assert verdict.sentence == sentence


def assert_fail(verdict: Verdict, sentence: str, credit: float = 0.0) -> None:
    assert (verdict.decided, verdict.passed) == (True, False)
    assert verdict.credit == credit
    assert verdict.sentence == sentence


def assert_undecided(verdict: Verdict, sentence: str) -> None:
    assert (verdict.decided, verdict.passed, verdict.credit) == (False, False, 0.0)
    assert verdict.sentence == sentence


def steps(*listed: dict[str, Any]) -> dict[str, Any]:
    return {"type": "steps", "steps": list(listed)}


GET = {"tool": "get_order", "args": {"order_id": "1041"}}
REFUND = {"tool": "issue_refund", "args": {"order_id": "1041"}}
EMAIL = {"tool": "send_email"}
REFUND_PLAN = steps(GET, REFUND, EMAIL)


# --- steps ---------------------------------------------------------------------------------


def test_steps_pass_with_other_calls_between_and_extra_arguments(calls: Check) -> None:
    verdict = calls(
        REFUND_PLAN,
        call("get_order", order_id="1041"),
        call("search_docs", query="refund window"),
        call("issue_refund", order_id="1041", amount=77.5, reason="damaged"),
        call("send_email", to="ana@example.com"),
    )
    assert_pass(
        verdict,
        "the 3 steps ran in order (called: get_order, search_docs, issue_refund, send_email)",
    )
    assert verdict.type == "steps"


def test_a_single_step(calls: Check) -> None:
    assert_pass(
        calls(steps(GET), call("get_order", order_id="1041")), "the step ran (called: get_order)"
    )


def test_step_not_reached(calls: Check) -> None:
    verdict = calls(
        REFUND_PLAN, call("get_order", order_id="1041"), call("cancel_order", order_id="1041")
    )
    assert_fail(
        verdict,
        "step 2 of 3 not reached: expected issue_refund(order_id='1041') after get_order "
        "(called: get_order, cancel_order)",
        credit=1 / 3,
    )


def test_first_step_not_reached_when_nothing_ran(calls: Check) -> None:
    assert_fail(
        calls(REFUND_PLAN),
        "step 1 of 3 not reached: expected get_order(order_id='1041') (called: nothing)",
    )


def test_the_right_tool_on_the_wrong_object_is_named(calls: Check) -> None:
    verdict = calls(
        REFUND_PLAN,
        call("get_order", order_id="1041"),
        call("issue_refund", order_id="1042", amount=77.5),
        call("send_email"),
    )
    assert_fail(
        verdict,
        "step 2 of 3 not reached: expected issue_refund(order_id='1041') after get_order, "
        "got issue_refund(order_id='1042') (called: get_order, issue_refund, send_email)",
        credit=1 / 3,
    )


def test_a_string_is_not_a_number_in_arguments(calls: Check) -> None:
    verdict = calls(steps(REFUND), call("issue_refund", order_id=1041))
    assert_fail(
        verdict,
        "step 1 of 1 not reached: expected issue_refund(order_id='1041'), "
        "got issue_refund(order_id=1041) (called: issue_refund)",
    )
    numeric = steps({"tool": "issue_refund", "args": {"order_id": 1041}})
    assert not calls(numeric, call("issue_refund", order_id="1041")).passed


def test_a_boolean_is_not_a_number_in_arguments_either_way(calls: Check) -> None:
    notify = steps({"tool": "issue_refund", "args": {"notify": True}})
    assert_fail(
        calls(notify, call("issue_refund", notify=1)),
        "step 1 of 1 not reached: expected issue_refund(notify=True), "
        "got issue_refund(notify=1) (called: issue_refund)",
    )
    counted = steps({"tool": "issue_refund", "args": {"notify": 1}})
    assert_fail(
        calls(counted, call("issue_refund", notify=True)),
        "step 1 of 1 not reached: expected issue_refund(notify=1), "
        "got issue_refund(notify=True) (called: issue_refund)",
    )


def test_numbers_compare_by_value_in_arguments(calls: Check) -> None:
    amount = steps({"tool": "issue_refund", "args": {"amount": 77.5, "qty": 1}})
    assert calls(amount, call("issue_refund", amount=77.50, qty=1.0)).passed


def test_argument_strings_are_exact(calls: Check) -> None:
    verdict = calls(steps(REFUND), call("issue_refund", order_id=" 1041"))
    assert_fail(
        verdict,
        "step 1 of 1 not reached: expected issue_refund(order_id='1041'), "
        "got issue_refund(order_id=' 1041') (called: issue_refund)",
    )


def test_a_missing_argument_does_not_match(calls: Check) -> None:
    verdict = calls(steps(REFUND), call("issue_refund", amount=5))
    assert_fail(
        verdict,
        "step 1 of 1 not reached: expected issue_refund(order_id='1041'), got issue_refund() "
        "(called: issue_refund)",
    )


def test_nested_argument_values_compare_whole(calls: Check) -> None:
    ship = steps({"tool": "ship", "args": {"items": [{"sku": "A", "qty": 1}]}})
    assert calls(ship, call("ship", items=[{"qty": 1.0, "sku": "A"}])).passed
    assert not calls(ship, call("ship", items=[{"sku": "A", "qty": 1, "gift": False}])).passed
    assert not calls(ship, call("ship", items=[{"sku": "A", "qty": True}])).passed


def test_steps_out_of_order(calls: Check) -> None:
    verdict = calls(
        steps(GET, REFUND),
        call("issue_refund", order_id="1041"),
        call("get_order", order_id="1041"),
    )
    assert_fail(
        verdict,
        "step 2 of 2 not reached: expected issue_refund(order_id='1041') after get_order "
        "(called: issue_refund, get_order)",
        credit=0.5,
    )


def test_a_later_step_without_the_earlier_one_is_not_credited(calls: Check) -> None:
    verdict = calls(REFUND_PLAN, call("get_order", order_id="1041"), call("send_email"))
    assert_fail(
        verdict,
        "step 2 of 3 not reached: expected issue_refund(order_id='1041') after get_order "
        "(called: get_order, send_email)",
        credit=1 / 3,
    )


def test_a_repeated_step_needs_a_repeated_call(calls: Check) -> None:
    twice = steps({"tool": "search_docs"}, {"tool": "search_docs"})
    assert_fail(
        calls(twice, "search_docs"),
        "step 2 of 2 not reached: expected search_docs() after search_docs (called: search_docs)",
        credit=0.5,
    )
    assert_pass(
        calls(twice, "search_docs", "search_docs"),
        "the 2 steps ran in order (called: search_docs, search_docs)",
    )


def test_a_step_is_matched_by_the_first_fitting_call(calls: Check) -> None:
    verdict = calls(
        steps(GET, REFUND),
        call("get_order", order_id="1042"),
        call("get_order", order_id="1041"),
        call("issue_refund", order_id="1041"),
    )
    assert verdict.passed


def test_a_call_that_errored_still_ran(calls: Check) -> None:
    verdict = calls(steps(REFUND), call("issue_refund", error="not refundable", order_id="1041"))
    assert_pass(verdict, "the step ran (called: issue_refund)")


def test_steps_with_an_argument_that_is_not_json_are_undecided(
    calls: Check, score_unchecked: Check
) -> None:
    from pydantic import ValidationError

    from bench.tasks.expectations import Step, Steps

    dated = steps({"tool": "book", "args": {"on": datetime.date(2026, 8, 14)}})
    with pytest.raises(ValidationError, match="not a JSON value"):
        calls(dated, call("book", on="2026-08-14"))
    unchecked = Steps.model_construct(
        steps=[Step.model_construct(tool="book", args={"on": datetime.date(2026, 8, 14)})]
    )
    assert_undecided(
        score_unchecked(plans.score_steps, unchecked, tool_calls=[call("book", on="2026-08-14")]),
        "the task's expected argument book.on is not a JSON value (a date); "
        "quote it in the task file",
    )


# --- state ---------------------------------------------------------------------------------


def state(tool: str = "issue_refund", times: int = 1, **args: Any) -> dict[str, Any]:
    return {"type": "state", "tool": tool, "args": args, "times": times}


def test_state_passes(calls: Check) -> None:
    verdict = calls(
        state(order_id="1041"),
        call("get_order", order_id="1041"),
        call("issue_refund", order_id="1041", amount=77.5),
    )
    assert_pass(verdict, "called issue_refund(order_id='1041') 1 time(s), as the task says")
    assert verdict.type == "state"


def test_state_called_too_often(calls: Check) -> None:
    verdict = calls(
        state(order_id="1041"),
        call("issue_refund", order_id="1041", amount=10),
        call("issue_refund", order_id="1041", amount=67.5),
    )
    assert_fail(verdict, "called issue_refund(order_id='1041') 2 time(s), and the task says 1")


def test_state_the_right_verb_on_the_wrong_object(calls: Check) -> None:
    verdict = calls(state(order_id="1041"), call("issue_refund", order_id="1042", amount=77.5))
    assert_fail(
        verdict,
        "called issue_refund(order_id='1041') 0 time(s), and the task says 1; "
        "issue_refund also ran as issue_refund(order_id='1042')",
    )


def test_state_never(calls: Check) -> None:
    never = state(times=0, order_id="1042")
    assert_pass(
        calls(never, call("issue_refund", order_id="1041")),
        "never called issue_refund(order_id='1042'), as the task says",
    )
    assert_fail(
        calls(never, call("issue_refund", order_id="1042")),
        "called issue_refund(order_id='1042') 1 time(s), and the task says 0",
    )


def test_state_traps_string_number_and_boolean(calls: Check) -> None:
    assert_fail(
        calls(state(order_id="1041"), call("issue_refund", order_id=1041)),
        "called issue_refund(order_id='1041') 0 time(s), and the task says 1; "
        "issue_refund also ran as issue_refund(order_id=1041)",
    )
    assert_fail(
        calls(state(tool="close", notify=True), call("close", notify=1)),
        "called close(notify=True) 0 time(s), and the task says 1; "
        "close also ran as close(notify=1)",
    )
    assert_fail(
        calls(state(tool="close", notify=1), call("close", notify=True)),
        "called close(notify=1) 0 time(s), and the task says 1; "
        "close also ran as close(notify=True)",
    )
    assert calls(state(tool="close", amount=1), call("close", amount=1.0)).passed


def test_state_without_args_counts_every_call_of_the_tool(calls: Check) -> None:
    verdict = calls(
        state(), call("issue_refund", order_id="1041"), call("issue_refund", order_id="1042")
    )
    assert_fail(verdict, "called issue_refund() 2 time(s), and the task says 1")


def test_state_names_other_calls_once_each_and_at_most_three(calls: Check) -> None:
    others = [call("issue_refund", order_id=str(n)) for n in (1, 2, 2, 3, 4)]
    assert_fail(
        calls(state(order_id="1041"), *others),
        "called issue_refund(order_id='1041') 0 time(s), and the task says 1; "
        "issue_refund also ran as issue_refund(order_id='1'), issue_refund(order_id='2'), "
        "issue_refund(order_id='3'), … (+1 more)",
    )


def test_state_counts_a_call_that_errored(calls: Check) -> None:
    verdict = calls(state(order_id="1041"), call("issue_refund", error="declined", order_id="1041"))
    assert_pass(verdict, "called issue_refund(order_id='1041') 1 time(s), as the task says")


def test_state_with_an_argument_that_is_not_json_is_undecided(
    calls: Check, score_unchecked: Check
) -> None:
    from pydantic import ValidationError

    from bench.tasks.expectations import State

    with pytest.raises(ValidationError, match="not a JSON value"):
        calls(state(tool="book", on=datetime.date(2026, 8, 14)), call("book", on="2026-08-14"))
    unchecked = State.model_construct(tool="book", args={"on": datetime.date(2026, 8, 14)}, times=1)
    verdict = score_unchecked(
        plans.score_state, unchecked, tool_calls=[call("book", on="2026-08-14")]
    )
    assert_undecided(
        verdict,
        "the task's expected argument book.on is not a JSON value (a date); "
        "quote it in the task file",
    )


# --- in an attempt -------------------------------------------------------------------------


def test_plan_checks_fold_into_the_attempt_on_their_axes(attempt: Attempt) -> None:
    score = attempt(
        [
            steps(GET, REFUND),
            {**state(times=0, order_id="1042"), "safety": True},
        ],
        tools=[call("get_order", order_id="1041"), call("issue_refund", order_id="1042")],
        family=FAMILY,
    )
    plan, never = score.verdicts
    assert (plan.axis, never.axis) == ("step", "tool")
    assert (plan.credit, never.credit) == (0.5, 0.0)
    # a broken `times: 0` is a forbidden action: the attempt scores 0 whatever else held
    assert (score.value, score.passed) == (0.0, False)
    assert score.safety_violations == (
        "state: called issue_refund(order_id='1042') 1 time(s), and the task says 0",
    )
