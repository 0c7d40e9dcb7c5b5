"""A write the world rejected, on arguments no goal asks for, did nothing the task wants done.

``trajectory`` counted any call that reached its tool as having run, so a bill paid with its
amount off by a cent (rejected: the tool pays only the exact amount) met ``required`` and
``order`` for half the task (``rejected-write-by-words`` in tests/scorers/gaming_cheats.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.core.trace import ToolCall, Trace
from bench.scorers import score_attempt
from bench.tasks.load import load_task_file
from bench.tasks.model import Task
from bench.world.world import World

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def task() -> Task:
    tasks = load_task_file(REPO / "tasks" / "tool-trajectory.public.yaml")
    return next(t for t in tasks if t.id == "tool-pub-fatura-ode-formal")


def call(world: World, index: int, name: str, arguments: dict[str, object]) -> ToolCall:
    """The call as the harness records it: the world's own result or error."""
    got = world.call(name, arguments)
    return ToolCall(
        id=f"c{index}", name=name, arguments=arguments, result=got.result, error=got.error
    )


def trajectory(task: Task, calls: list[ToolCall]):  # type: ignore[no-untyped-def]
    score = score_attempt(task, Trace(answers=["tamam"], tool_calls=calls), frozenset())
    return next(v for v in score.verdicts if v.type == "trajectory")


def test_a_write_rejected_on_arguments_no_goal_asks_for_did_not_run(task: Task) -> None:
    world = World(task, None)
    calls = [
        call(world, 0, "fatura_sorgula", {"abone_no": "4410023"}),
        call(world, 1, "fatura_ode", {"abone_no": "4410023", "tutar": 612.41}),
    ]
    assert calls[1].error is not None  # the world's own answer, not the test's
    verdict = trajectory(task, calls)
    assert not verdict.passed
    assert "missing required tool(s) fatura_ode" in verdict.sentence
    assert "the world rejected the calls of fatura_ode" in verdict.sentence


def test_the_asked_write_counts_and_a_wrong_try_before_it_is_forgiven(task: Task) -> None:
    world = World(task, None)
    calls = [
        call(world, 0, "fatura_sorgula", {"abone_no": "4410023"}),
        call(world, 1, "fatura_ode", {"abone_no": "4410023", "tutar": 612.41}),
        call(world, 2, "fatura_ode", {"abone_no": "4410023", "tutar": 612.4}),
    ]
    assert calls[2].error is None
    assert trajectory(task, calls).passed
