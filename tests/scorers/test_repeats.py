"""A reply already given earns nothing again (``bench.scorers.repeats``): ``contains`` and
``regex`` look for their value in the answer without what it repeats of an earlier turn."""

from __future__ import annotations

from typing import Any

from bench.core.score import Verdict
from bench.core.trace import Message, ToolCall, Trace
from bench.scorers import score_attempt
from bench.scorers.repeats import MARK, repeated_spans, unrepeated
from bench.scorers.text import REPEATED

from .conftest import KNOWN, build_task

EARLIER = "I'm sorry — order 58213 is already packed, so it can't be cancelled any more."
ASKED = "Fine, then at least change its delivery address to Prinsengracht 300, Amsterdam."
VERIFY = (
    "I can help with your account, C-7731. To confirm it's you, what are the last four digits "
    "of the card on file and the postcode of your last order?"
)
ASK = "Please confirm the last four digits and postcode."


def _conversation(answer: str, earlier: str = EARLIER, asked: str = ASKED) -> Trace:
    return Trace(
        answers=[answer],
        messages=[
            Message(role="user", content="Cancel order 58213 please."),
            Message(role="assistant", content=earlier),
            Message(role="user", content=asked),
            Message(role="assistant", content=answer),
        ],
    )


def _verdict(expectation: dict[str, Any], trace: Trace) -> Verdict:
    task = build_task([expectation], family="multi-turn-state")
    (verdict,) = score_attempt(task, trace, KNOWN).verdicts
    return verdict


def _packed(answer: str, trace: Trace | None = None) -> Verdict:
    return _verdict({"type": "contains", "value": "packed"}, trace or _conversation(answer))


def test_an_earlier_reply_repeated_earns_nothing() -> None:
    """The echo cheat's answer: the task's own assistant turn, then a canned request. Before
    2026-12-07 it passed (the repeat is 16 of its 24 words, under the echo rule's 90 %)."""
    answer = f"{EARLIER} {ASK}"
    verdict = _packed(answer)
    assert not verdict.passed
    assert verdict.sentence == f"the answer contains 'packed', but {REPEATED}"
    assert unrepeated(answer, _conversation(answer)) == f"{MARK}. {ASK}"


def test_a_clause_restated_is_an_answer() -> None:
    """The example bots' kind of answer: a clause of the earlier reply (10 of its 16 words)
    with what follows from it."""
    answer = "Order 58213 is already packed, so its delivery address can't be changed."
    assert _packed(answer).passed
    assert repeated_spans(answer, _conversation(answer)) == []


def test_the_value_said_again_outside_the_repeat_counts() -> None:
    answer = f"{EARLIER} Because it is packed, the label is printed and the address stays."
    assert _packed(answer).passed


def test_a_repeat_with_words_changed_every_few_words_is_a_repeat() -> None:
    changed = "I'm so sorry — order 58213 is already packed, so it can't be cancelled any longer."
    answer = f"{changed} {ASK}"
    assert not _packed(answer).passed
    assert unrepeated(answer, _conversation(answer)) == f"{MARK} longer. {ASK}"


def test_a_repeat_with_its_words_glued_is_the_whole_answer() -> None:
    glued = "I'm sorry — order 58213 isalready packed, soit can't becancelled anymore."
    answer = f"{glued} {ASK}"
    assert repeated_spans(answer, _conversation(answer)) == [(0, len(answer))]
    assert not _packed(answer).passed


def test_a_regex_found_only_in_a_repeated_request_fails() -> None:
    expectation = {"type": "regex", "pattern": "(?i)(last four|postcode)"}
    trace = _conversation(VERIFY, earlier=VERIFY, asked="4417 and 3011 AB.")
    verdict = _verdict(expectation, trace)
    assert not verdict.passed
    assert verdict.sentence == f"/(?i)(last four|postcode)/ matches, but {REPEATED}"
    fresh = "Before I change anything, please give the last four digits of the card on file."
    assert _verdict(expectation, _conversation(fresh, earlier=VERIFY)).passed


def test_the_agents_own_earlier_reply_is_an_earlier_turn() -> None:
    """Text the agent wrote beside a tool call this turn, said again as the final answer."""
    said = "Order 58213 is packed, so the address on its label can no longer change."
    trace = Trace(
        answers=[said],
        messages=[
            Message(role="user", content=ASKED),
            Message(role="assistant", content=said),
            Message(role="tool", name="get_order", content='{"status": "packed"}'),
            Message(role="assistant", content=said),
        ],
        tool_calls=[ToolCall(id="c0", name="get_order", result={"status": "packed"})],
    )
    assert not _packed(said, trace).passed
    alone = Trace(answers=[said], messages=[*trace.messages[:1], trace.messages[-1]])
    assert _packed(said, alone).passed


def test_a_question_restated_around_its_answer_keeps_the_answer() -> None:
    """The example bot v1 answers "Which lever position on the Pure unit gives filtered
    water?" with the question's words around the value (90 % of the question): the words it
    adds between them are its own."""
    question = "Which lever position on the Pure unit gives filtered water?"
    answer = "Turning the lever to the left gives filtered water at up to 1.2 litres per minute."
    trace = Trace(
        answers=[answer],
        messages=[
            Message(role="user", content=question),
            Message(role="assistant", content=answer),
        ],
    )
    assert _verdict({"type": "contains", "value": "to the left"}, trace).passed


def test_a_short_turn_is_no_source() -> None:
    """Turns under four words ("Done.", "Thanks!") are not read."""
    answer = "Yes, packed already. The address cannot change now."
    trace = _conversation(answer, earlier="Yes, packed already.")
    assert _packed(answer, trace).passed
