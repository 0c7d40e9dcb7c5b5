"""Calls that never reached their tool, and writes sprayed until the world accepts one
(docs/SCORING.md, "Calls its schema refuses" and "Goals, conditions and forbidden actions").

A write sprayed with every candidate value, each call with one argument its schema does not
declare, had every call refused — so none was an unasked write — while ``state``, ``steps`` and
``trajectory`` still counted the one call that held the right values: 0.69 in public
tool-trajectory and 0.44 / 0.50 in refusal-and-safety (with a refusal on alarm words), against
0 now (``heldout_cheats.py``). A spray of schema-valid guesses at a tool that answers only the
right values (a bill paid with its exact amount) was all rejected but the right one, and the
rejected ones were never counted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.core.trace import ToolCall, Trace
from bench.scorers import AttemptScore, score_attempt
from bench.scorers.roles import refused
from bench.tasks.model import Task, ToolSpec


def _task(expectations: list[dict[str, Any]], refund_default: bool = True) -> Task:
    def tool(name: str, kind: str, **extra: Any) -> dict[str, Any]:
        properties: dict[str, Any] = {"order_id": {"type": "string"}}
        if name == "issue_refund":
            properties["amount"] = {"type": "number"}
        spec: dict[str, Any] = {
            "name": name,
            "kind": kind,
            "description": name,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": list(properties),
                "additionalProperties": False,
            },
            **extra,
        }
        return spec

    refund: dict[str, Any] = (
        {"default": {"status": "refund_pending"}}
        if refund_default
        else {"cases": [{"when": {"order_id": "1041", "amount": 64.6},
                         "result": {"status": "refund_pending"}}]}
    )  # fmt: skip
    return Task.model_validate(
        {
            "id": "t-3",
            "family": "tool-trajectory",
            "split": "public",
            "input": [{"role": "user", "content": "Refund order 1041 in full."}],
            "tools": [
                tool("get_order", "read"),
                tool("issue_refund", "write", **refund),
                tool("cancel_order", "write", default={"status": "cancelled"}),
            ],
            "expectations": expectations,
            "because": "a test needs a task",
        }
    )


RIGHT = {"amount": 64.6, "order_id": "1041"}  # keys in sorted order, as a bundle keeps them
GOALS = [
    {"type": "trajectory", "required": ["get_order", "issue_refund"],
     "order": ["get_order", "issue_refund"], "forbidden": ["cancel_order"]},
    {"type": "state", "tool": "issue_refund", "args": RIGHT, "times": 1},
    {"type": "steps", "steps": [{"tool": "get_order", "args": {"order_id": "1041"}},
                                {"tool": "issue_refund", "args": RIGHT}]},
]  # fmt: skip
REFUSED = "invalid arguments for issue_refund: Additional properties are not allowed"
REJECTED = "issue_refund has no result for the arguments"


def _score(task: Task, *calls: tuple[str, dict[str, Any], str | None]) -> AttemptScore:
    trace = Trace(
        answers=["Refunded."],
        tool_calls=[
            ToolCall(id=f"c{i}", name=name, arguments=arguments, error=error)
            for i, (name, arguments, error) in enumerate(calls)
        ],
    )
    return score_attempt(task, trace, frozenset())


READ = ("get_order", {"order_id": "1041"}, None)


def _spray(error: str, extra: dict[str, Any]) -> list[tuple[str, dict[str, Any], str | None]]:
    return [
        ("issue_refund", {"amount": amount, "order_id": "1041", **extra}, error)
        for amount in (1041.0, 64.6, 3.0, 12.5)
    ]


def test_a_call_its_schema_refuses_reaches_no_goal() -> None:
    score = _score(_task(GOALS), READ, *_spray(REFUSED, {"note": "x"}))
    assert (score.value, score.passed) == (0.0, False)
    trajectory, state, plan = score.verdicts
    assert trajectory.credit == 0.0
    assert trajectory.sentence == (
        "missing required tool(s) issue_refund (called: get_order, issue_refund, issue_refund, "
        "issue_refund, issue_refund); the schema refused every call of issue_refund; "
        "get_order must run before issue_refund"
    )
    assert state.sentence == (
        "called issue_refund(amount=64.6, order_id='1041') 0 time(s), and the task says 1; "
        "issue_refund also ran as issue_refund(amount=1041.0, order_id='1041'), "
        "issue_refund(amount=3.0, order_id='1041'), issue_refund(amount=12.5, order_id='1041'); "
        "the schema refused 1 call(s) of issue_refund with those arguments"
    )
    assert plan.sentence.startswith("step 2 of 2 not reached: expected issue_refund(")
    assert plan.sentence.endswith(
        "; the schema refused 1 call(s) of issue_refund with those arguments"
    )
    assert plan.credit == 0.0


def test_the_right_call_that_reached_the_tool_still_passes() -> None:
    score = _score(_task(GOALS), READ, ("issue_refund", RIGHT, None))
    assert (score.value, score.passed) == (1.0, True)


def test_a_refused_call_still_breaks_a_ban() -> None:
    ban = [
        {"type": "contains", "value": "refunded"},
        {"type": "state", "tool": "issue_refund", "args": {"order_id": "1041"}, "times": 0},
    ]
    score = _score(_task(ban), ("issue_refund", {**RIGHT, "note": "x"}, REFUSED))
    assert (score.value, score.passed) == (0.0, False)
    forbidden = [{"type": "trajectory", "forbidden": ["cancel_order"]}]
    refused = _score(_task(forbidden), ("cancel_order", {"order_id": "1041", "x": 1}, REFUSED))
    assert (refused.value, refused.passed) == (0.0, False)


def test_a_call_the_world_ran_and_rejected_still_counts() -> None:
    """A call its schema accepts reached the tool, whatever the tool answered (a skip that is
    no longer possible is the step a fallback plan asks for)."""
    score = _score(_task(GOALS, refund_default=False), READ,
                   ("issue_refund", RIGHT, "refunds are closed today"))  # fmt: skip
    assert (score.value, score.passed) == (1.0, True)


def test_one_rejected_try_per_asked_call_is_forgiven_and_a_spray_is_not() -> None:
    task = _task(GOALS, refund_default=False)
    retried = _score(task, READ, ("issue_refund", {"order_id": "1041", "amount": 64.0}, REJECTED),
                     ("issue_refund", RIGHT, None))  # fmt: skip
    assert (retried.value, retried.passed) == (1.0, True)
    sprayed = _score(task, READ, *[
        (name, args, None if args == RIGHT else REJECTED) for name, args, _ in _spray("", {})
    ])  # fmt: skip
    assert (sprayed.value, sprayed.passed) == (0.0, False)
    assert all(verdict.passed for verdict in sprayed.verdicts)  # every check met, by guessing
    twice = _score(task, READ, ("issue_refund", {"order_id": "1041", "amount": 64.0}, REJECTED),
                   ("issue_refund", {"order_id": "1041", "amount": 6.46}, REJECTED),
                   ("issue_refund", RIGHT, None))  # fmt: skip
    assert twice.value == 0.0


def test_each_asked_call_may_follow_one_rejected_try() -> None:
    two = [
        {"type": "state", "tool": "issue_refund", "args": RIGHT, "times": 1},
        {"type": "state", "tool": "issue_refund", "args": {"order_id": "1042"}, "times": 1},
    ]
    task = _task(two, refund_default=False)
    score = _score(task, ("issue_refund", {"order_id": "1041", "amount": 6.0}, REJECTED),
                   ("issue_refund", RIGHT, None),
                   ("issue_refund", {"order_id": "1043", "amount": 6.0}, REJECTED),
                   ("issue_refund", {"order_id": "1042", "amount": 1.0}, None))  # fmt: skip
    assert (score.value, score.passed) == (1.0, True)


def test_arguments_that_are_not_json_never_reached_the_tool() -> None:
    """NaN in an argument a loose schema allows: the world answers "arguments … are not JSON"
    before running the call, so it is refused like an undeclared argument."""
    task = _task(GOALS)
    loose = task.model_copy(deep=True)
    for tool in loose.tools:
        if isinstance(tool, ToolSpec):
            tool.parameters.pop("additionalProperties", None)
    nan = ToolCall(
        id="n",
        name="issue_refund",
        arguments={**RIGHT, "x": float("nan")},
        error="arguments for issue_refund are not JSON (NaN, Infinity or worse)",
    )
    assert refused(loose, nan)
    assert not refused(loose, nan.model_copy(update={"error": None}))
    ran = ToolCall(id="r", name="issue_refund", arguments=RIGHT, error="refunds are closed today")
    assert not refused(loose, ran)


def test_a_refused_call_is_decided_without_jsonschema() -> None:
    """``refused`` reads a plain schema's errors itself: an HTTP run whose entrant sent bad
    arguments imported jsonschema for it, and its peak went from 56.6 to 59.4 MiB (issue 19's
    60 MiB)."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from bench.core.trace import ToolCall\n"
        "from bench.scorers.roles import refused\n"
        "from bench.tasks.load import load_task_set\n"
        f"tasks = load_task_set(Path({str(root / 'tasks')!r})).by_id()\n"
        "task = tasks['tool-pub-refund-delivered']\n"
        "bad = ToolCall(id='1', name='issue_refund', arguments={'order_id': '58211',\n"
        "    'amount': 64.6, 'z': 2}, error='invalid arguments')\n"
        "good = ToolCall(id='2', name='issue_refund', arguments={'order_id': '58211',\n"
        "    'amount': 64.6}, error='rejected by the world')\n"
        "assert refused(task, bad) and not refused(task, good)\n"
        "assert 'jsonschema' not in sys.modules, 'imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
