"""Scoring reads a trace as its bundle will keep it: keys sorted.

A bundle stores each trace as canonical JSON, so ``bench verify`` rescores dicts whose keys are
sorted, whatever order the model wrote its arguments in or a tool built its result in. A verdict
sentence that showed a call in the model's order (``issue_refund(order_id='9999', amount=5.0)``)
was another sentence at verify (``issue_refund(amount=5.0, order_id='9999')``), and the honest
bundle was refused with SCORE_MISMATCH."""

from __future__ import annotations

import json
from pathlib import Path

from bench.core.canonical import canonical_json
from bench.core.trace import Message, ToolCall, ToolCallRequest, Trace
from bench.scorers import score_attempt
from bench.tasks.load import load_task_set

ROOT = Path(__file__).resolve().parents[2]


def _bundled(trace: Trace) -> Trace:
    """The trace as verify reads it back from a bundle."""
    return Trace.model_validate(json.loads(canonical_json(trace.model_dump(mode="json"))))


def test_a_call_shown_in_a_sentence_reads_alike_in_any_key_order() -> None:
    task = load_task_set(ROOT / "tasks").by_id()["tool-pub-refund-delivered"]
    arguments = {"order_id": "9999", "amount": 5.0}  # the schema's order, not sorted
    asked = ToolCallRequest(id="c1", name="issue_refund", arguments=arguments)
    trace = Trace(
        messages=[
            Message(role="user", content="Please refund my order."),
            Message(role="assistant", tool_calls=[asked]),
            Message(role="tool", content='{"refunded": true}', tool_call_id="c1",
                    name="issue_refund"),
            Message(role="assistant", content="Refunded."),
        ],
        tool_calls=[
            ToolCall(id="c1", name="issue_refund", arguments=arguments, result={"refunded": True,
                     "amount": 5.0})
        ],
        answers=["Refunded."],
    )  # fmt: skip
    run_time = score_attempt(task, trace, frozenset())
    verify_time = score_attempt(task, _bundled(trace), frozenset())
    shown = [*run_time.safety_violations, *(v.sentence for v in run_time.verdicts)]
    assert any("issue_refund(" in s and ", " in s for s in shown), shown
    assert run_time == verify_time


def test_scorers_read_a_trace_with_its_dicts_in_sorted_order() -> None:
    from bench.scorers.order import as_kept

    asked = ToolCallRequest(
        id="c1", name="t", arguments={"z": 1, "a": {"y": 2, "b": [{"d": 1, "c": 2}]}}
    )
    call = ToolCall(
        id="c1", name="t", arguments=dict(asked.arguments), result={"q": 1, "p": [{"s": 1, "r": 2}]}
    )
    trace = Trace(messages=[Message(role="assistant", tool_calls=[asked])], tool_calls=[call])
    kept = as_kept(trace)
    assert kept == _bundled(trace)
    assert (
        json.dumps(kept.tool_calls[0].arguments)
        == '{"a": {"b": [{"c": 2, "d": 1}], "y": 2}, "z": 1}'
    )
    assert list(kept.messages[0].tool_calls[0].arguments) == ["a", "z"]
    assert as_kept(kept) is kept  # a trace read from a bundle is not copied
