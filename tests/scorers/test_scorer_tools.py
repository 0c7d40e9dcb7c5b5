"""trajectory: required, forbidden, order, max_calls — exact sentences and exact credit."""

from __future__ import annotations

from collections.abc import Callable

from bench.core.score import Verdict
from bench.core.trace import ToolCall

Check = Callable[..., Verdict]

REFUND_FLOW = {
    "type": "trajectory",
    "required": ["get_order", "issue_refund"],
    "order": ["get_order", "issue_refund"],
    "forbidden": ["delete_account"],
    "max_calls": 4,
}


def assert_pass(verdict: Verdict, sentence: str) -> None:
    assert (verdict.decided, verdict.passed, verdict.credit) == (True, True, 1.0)
    assert verdict.sentence == sentence


def assert_fail(verdict: Verdict, sentence: str, credit: float = 0.0) -> None:
    assert (verdict.decided, verdict.passed) == (True, False)
    assert verdict.credit == credit
    assert verdict.sentence == sentence


def test_trajectory_passes(check: Check) -> None:
    verdict = check(REFUND_FLOW, tools=["get_order", "search_docs", "issue_refund"])
    assert_pass(
        verdict, "the tool calls meet the trajectory (called: get_order, search_docs, issue_refund)"
    )
    assert verdict.type == "trajectory"


def test_missing_required_tool(check: Check) -> None:
    verdict = check({"type": "trajectory", "required": ["search_docs"]}, tools=["get_policy"])
    assert_fail(verdict, "missing required tool(s) search_docs (called: get_policy)")


def test_missing_required_tool_when_nothing_ran(check: Check) -> None:
    verdict = check({"type": "trajectory", "required": ["search_docs", "get_policy"]})
    assert_fail(verdict, "missing required tool(s) search_docs, get_policy (called: nothing)")


def test_required_credit_is_per_tool(check: Check) -> None:
    verdict = check(
        {"type": "trajectory", "required": ["a", "b", "c", "d"]}, tools=["a", "c", "c", "d"]
    )
    assert_fail(verdict, "missing required tool(s) b (called: a, c, c, d)", credit=0.75)


def test_the_answer_text_does_not_count_as_a_call(check: Check) -> None:
    verdict = check(
        {"type": "trajectory", "required": ["search_docs"]},
        answer="I called search_docs and it said 30 days.",
    )
    assert_fail(verdict, "missing required tool(s) search_docs (called: nothing)")


def test_a_call_that_errored_still_ran(check: Check) -> None:
    errored = ToolCall(id="c0", name="issue_refund", error="order 1041 is not refundable")
    required = check({"type": "trajectory", "required": ["issue_refund"]}, tools=[errored])
    assert_pass(required, "the tool calls meet the trajectory (called: issue_refund)")
    forbidden = check({"type": "trajectory", "forbidden": ["issue_refund"]}, tools=[errored])
    assert_fail(forbidden, "called forbidden tool(s) issue_refund")
    counted = check({"type": "trajectory", "max_calls": 0}, tools=[errored])
    assert_fail(counted, "made 1 tool call, the task allows 0")


def test_order_violated(check: Check) -> None:
    verdict = check(
        {"type": "trajectory", "order": ["get_order", "issue_refund"]},
        tools=["issue_refund", "get_order"],
    )
    assert_fail(verdict, "get_order must run before issue_refund (called: issue_refund, get_order)")


def test_order_is_a_subsequence_with_calls_in_between(check: Check) -> None:
    verdict = check(
        {"type": "trajectory", "order": ["search_docs", "get_order", "issue_refund"]},
        tools=["get_order", "search_docs", "lookup", "get_order", "issue_refund"],
    )
    assert verdict.passed


def test_order_names_the_first_broken_pair(check: Check) -> None:
    verdict = check({"type": "trajectory", "order": ["a", "b", "c"]}, tools=["a", "c", "b"])
    assert_fail(verdict, "b must run before c (called: a, c, b)")


def test_order_whose_first_tool_never_ran(check: Check) -> None:
    verdict = check({"type": "trajectory", "order": ["a", "b"]}, tools=["b"])
    assert_fail(verdict, "a must run before b (called: b)")
    single = check({"type": "trajectory", "order": ["a"]}, tools=["b"])
    assert_fail(single, "a must run (called: b)")


def test_max_calls(check: Check) -> None:
    verdict = check({"type": "trajectory", "max_calls": 5}, tools=["search_docs"] * 7)
    assert_fail(verdict, "made 7 tool calls, the task allows 5")
    assert check({"type": "trajectory", "max_calls": 5}, tools=["search_docs"] * 5).passed


def test_forbidden(check: Check) -> None:
    verdict = check(
        {"type": "trajectory", "forbidden": ["issue_refund", "delete_account"]},
        tools=["get_order", "issue_refund", "issue_refund"],
    )
    assert_fail(verdict, "called forbidden tool(s) issue_refund")


def test_partial_credit_is_the_share_of_sub_checks(check: Check) -> None:
    # sub-checks: get_order ran, issue_refund ran, order (the goal), then the conditions no
    # forbidden call and max 4 calls, which count only once the goal's sub-checks all hold
    out_of_order = check(REFUND_FLOW, tools=["issue_refund", "get_order"])
    assert_fail(
        out_of_order,
        "get_order must run before issue_refund (called: issue_refund, get_order)",
        credit=0.4,
    )
    too_many = check(
        REFUND_FLOW, tools=["search_docs", "search_docs", "search_docs", "get_order", "search_docs"]
    )
    assert_fail(
        too_many,
        "missing required tool(s) issue_refund (called: search_docs, search_docs, search_docs, "
        "get_order, search_docs); get_order must run before issue_refund; "
        "made 5 tool calls, the task allows 4",
        credit=0.2,
    )


def test_a_forbidden_call_forces_zero(check: Check) -> None:
    verdict = check(REFUND_FLOW, tools=["get_order", "issue_refund", "delete_account"])
    assert_fail(verdict, "called forbidden tool(s) delete_account", credit=0.0)


def test_an_empty_trajectory_decides_nothing(check: Check) -> None:
    verdict = check({"type": "trajectory"}, tools=["a"])
    assert not verdict.decided
    assert (
        verdict.sentence
        == "the trajectory check names no tools and no limit, so it decides nothing"
    )


def test_a_long_call_list_is_cut_short(check: Check) -> None:
    verdict = check({"type": "trajectory", "required": ["z"]}, tools=[f"t{i}" for i in range(15)])
    assert verdict.sentence == (
        "missing required tool(s) z (called: t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, "
        "… (+3 more))"
    )
