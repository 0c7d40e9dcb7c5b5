"""contains, not_contains, regex: both sides, exact sentences."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bench.core.score import Verdict
from bench.scorers.base import excerpt, truncate

Check = Callable[..., Verdict]

ROLLOUT = (
    "I think the rollout failed because the deploy job could not reach the registry, "
    "so the old image kept serving traffic."
)


def assert_pass(verdict: Verdict, sentence: str) -> None:
    assert (verdict.decided, verdict.passed, verdict.credit) == (True, True, 1.0)
    assert verdict.sentence == sentence


def assert_fail(verdict: Verdict, sentence: str, credit: float = 0.0) -> None:
    assert (verdict.decided, verdict.passed) == (True, False)
    assert verdict.credit == credit
    assert verdict.sentence == sentence


# --- contains ------------------------------------------------------------------------------


def test_contains_passes(check: Check) -> None:
    verdict = check(
        {"type": "contains", "value": "permission"}, answer="It was a permission error."
    )
    assert_pass(verdict, "the answer contains 'permission'")
    assert verdict.type == "contains"


def test_contains_fails_quoting_the_start_of_the_answer(check: Check) -> None:
    verdict = check({"type": "contains", "value": "permission"}, answer=ROLLOUT)
    assert_fail(
        verdict,
        "the answer does not contain 'permission': I think the rollout failed because the "
        "deploy job could not reach the registry, …",
    )


def test_contains_is_case_insensitive_by_default(check: Check) -> None:
    verdict = check({"type": "contains", "value": "Permission"}, answer="a PERMISSION error")
    assert_pass(verdict, "the answer contains 'Permission'")


def test_contains_case_sensitive_says_so_when_it_fails(check: Check) -> None:
    verdict = check(
        {"type": "contains", "value": "Permission", "case_sensitive": True},
        answer="a permission error",
    )
    assert_fail(
        verdict, "the answer does not contain 'Permission' (case-sensitive): a permission error"
    )


def test_contains_squashes_whitespace_in_the_answer(check: Check) -> None:
    verdict = check(
        {"type": "contains", "value": "refund window is 30 days"},
        answer="The refund\n  window is\t30   days.",
    )
    assert_pass(verdict, "the answer contains 'refund window is 30 days'")


def test_contains_squashes_whitespace_in_the_value_too(check: Check) -> None:
    verdict = check({"type": "contains", "value": "refund\nwindow"}, answer="the refund window")
    assert_pass(verdict, "the answer contains 'refund window'")


def test_contains_normalises_nothing_but_case_and_whitespace(check: Check) -> None:
    verdict = check({"type": "contains", "value": "30 days"}, answer="thirty days, i.e. 30-days")
    assert_fail(verdict, "the answer does not contain '30 days': thirty days, i.e. 30-days")


def test_contains_on_an_empty_answer(check: Check) -> None:
    verdict = check({"type": "contains", "value": "refund"}, answer="")
    assert_fail(verdict, "the answer does not contain 'refund': (empty answer)")


def test_contains_reads_the_last_answer(check: Check) -> None:
    verdict = check(
        {"type": "contains", "value": "refund"}, answer=["the refund is 30 days", "anything else?"]
    )
    assert_fail(verdict, "the answer does not contain 'refund': anything else?")


# --- not_contains --------------------------------------------------------------------------


def test_not_contains_passes(check: Check) -> None:
    verdict = check({"type": "not_contains", "value": "guarantee"}, answer="Refunds take 30 days.")
    assert_pass(verdict, "the answer does not contain 'guarantee'")


def test_not_contains_fails(check: Check) -> None:
    verdict = check({"type": "not_contains", "value": "guarantee"}, answer="We GUARANTEE a refund.")
    assert_fail(
        verdict, "the answer contains 'guarantee', which the task forbids: We GUARANTEE a refund."
    )


def test_not_contains_quotes_around_a_match_far_into_the_answer(check: Check) -> None:
    answer = ROLLOUT + " In any case we guarantee a full refund within thirty days of purchase."
    verdict = check({"type": "not_contains", "value": "guarantee"}, answer=answer)
    assert_fail(
        verdict,
        "the answer contains 'guarantee', which the task forbids: … In any case we guarantee a "
        "full refund within thirty days of purchase.",
    )


def test_not_contains_squashes_whitespace(check: Check) -> None:
    verdict = check({"type": "not_contains", "value": "full refund"}, answer="a full\n\nrefund")
    assert_fail(verdict, "the answer contains 'full refund', which the task forbids: a full refund")


def test_not_contains_case_sensitive(check: Check) -> None:
    verdict = check(
        {"type": "not_contains", "value": "Guarantee", "case_sensitive": True},
        answer="we guarantee it",
    )
    assert_pass(verdict, "the answer does not contain 'Guarantee' (case-sensitive)")


# --- regex ---------------------------------------------------------------------------------


def test_regex_passes(check: Check) -> None:
    verdict = check({"type": "regex", "pattern": r"\b30 days\b"}, answer="Refunds take 30 days.")
    assert_pass(verdict, r"/\b30 days\b/ matches: Refunds take 30 days.")


def test_regex_fails(check: Check) -> None:
    verdict = check({"type": "regex", "pattern": "^root cause:"}, answer=ROLLOUT)
    assert_fail(
        verdict,
        "/^root cause:/ does not match: I think the rollout failed because the deploy job "
        "could not reach the registry, …",
    )


def test_regex_is_case_sensitive_without_the_i_flag(check: Check) -> None:
    verdict = check({"type": "regex", "pattern": "^root cause:"}, answer="Root cause: DNS")
    assert_fail(verdict, "/^root cause:/ does not match: Root cause: DNS")


def test_regex_i_flag(check: Check) -> None:
    verdict = check(
        {"type": "regex", "pattern": "^root cause:", "flags": ["i"]}, answer="Root cause: DNS"
    )
    assert_pass(verdict, "/^root cause:/i matches: Root cause: DNS")


def test_regex_m_flag_sees_lines(check: Check) -> None:
    answer = "Summary: it broke.\nroot cause: DNS"
    without = check({"type": "regex", "pattern": "^root cause:"}, answer=answer)
    assert_fail(without, "/^root cause:/ does not match: Summary: it broke. root cause: DNS")
    with_m = check({"type": "regex", "pattern": "^root cause:", "flags": ["m"]}, answer=answer)
    assert_pass(with_m, "/^root cause:/m matches: Summary: it broke. root cause: DNS")


def test_regex_s_flag_lets_dot_cross_lines(check: Check) -> None:
    answer = "start\nend"
    assert not check({"type": "regex", "pattern": "start.end"}, answer=answer).passed
    verdict = check({"type": "regex", "pattern": "start.end", "flags": ["s"]}, answer=answer)
    assert_pass(verdict, "/start.end/s matches: start end")


def test_regex_flags_are_shown_in_a_fixed_order(check: Check) -> None:
    verdict = check({"type": "regex", "pattern": "x", "flags": ["s", "i", "m"]}, answer="y")
    assert_fail(verdict, "/x/ims does not match: y")


def test_regex_searches_rather_than_matches_at_the_start(check: Check) -> None:
    verdict = check({"type": "regex", "pattern": "DNS"}, answer="the root cause was DNS")
    assert_pass(verdict, "/DNS/ matches: the root cause was DNS")


# --- quoting ---------------------------------------------------------------------------------


def test_truncate_cuts_at_a_word_and_marks_it() -> None:
    assert truncate("short") == "short"
    assert truncate("word " * 30) == ("word " * 16).rstrip() + " …"
    assert truncate("x" * 100) == "x" * 80 + "…"


@pytest.mark.parametrize(
    ("text", "expected"),
    [("", "(empty answer)"), ("  \n ", "(empty answer)"), ("a\n\tb", "a b")],
)
def test_excerpt(text: str, expected: Any) -> None:
    assert excerpt(text) == expected
