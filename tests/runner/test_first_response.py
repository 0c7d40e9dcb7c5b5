"""A task scored on the model's first response only (every check a ``calls`` check: BFCL's
single-turn semantics) ends after that response: a model that went on calling tools after a
right first response was cut off over budget (8 model calls) and failed, where BFCL passes it
(docs/DECISIONS.md 55). A task with any other check keeps the whole loop."""

from __future__ import annotations

import copy
from pathlib import Path

import yaml

from bench.reports import summarize
from bench.runner import RunRequest, start_run

AGENT = '''
from bench.core.trace import ToolCallRequest
from bench.targets import ModelRequest, ModelResponse


def eager(request: ModelRequest) -> ModelResponse:
    """Calls the same tool again and again, however often it is asked."""
    n = sum(1 for m in request.messages if m.role == "tool")
    call = ToolCallRequest(id=f"c{n}", name="area", arguments={"base": 10, "height": 5})
    return ModelResponse(tool_calls=[call])
'''

TOOL = {
    "name": "area",
    "description": "The area of a triangle.",
    "parameters": {
        "type": "object",
        "properties": {"base": {"type": "integer"}, "height": {"type": "integer"}},
        "required": ["base", "height"],
    },
    "default": {"area": 25},
}


def _task(task_id: str, expectations: list[dict[str, object]]) -> dict[str, object]:
    # Fresh objects per task: the task loader refuses YAML anchors and aliases.
    return {
        "id": task_id,
        "family": "tool-trajectory",
        "split": "public",
        "input": [{"role": "user", "content": "Area of a triangle of base 10 and height 5?"}],
        "tools": [copy.deepcopy(TOOL)],
        "expectations": copy.deepcopy(expectations),
        "because": "a test of the first-response rule",
    }


def _run(tmp_path: Path) -> dict[str, object]:
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    calls = {"type": "calls", "calls": [{"tool": "area", "args": {"base": [10], "height": [5]}}]}
    trajectory = {"type": "trajectory", "required": ["area"]}
    body = [_task("first-only", [calls]), _task("whole-loop", [calls, trajectory])]
    (tasks / "t.yaml").write_text(
        yaml.safe_dump({"format_version": 1, "tasks": body}), encoding="utf-8"
    )
    (tmp_path / "agent.py").write_text(AGENT, encoding="utf-8")
    target = tmp_path / "eager.yaml"
    target.write_text(
        "format_version: 1\nkind: scripted\nentrant: eager\ndisplay_name: eager\n"
        "model: eager\ncallable: agent.py:eager\n",
        encoding="utf-8",
    )
    run, status = start_run(
        RunRequest(tasks=tasks, target_file=target, runs_dir=tmp_path / "runs", split="public")
    )
    assert status.status == "complete"
    return {r.task_id: r for r in run.attempts()} | {"summary": summarize(run)}


def test_a_first_response_task_ends_after_it_and_is_scored(tmp_path: Path) -> None:
    got = _run(tmp_path)
    first = got["first-only"]
    assert first.outcome == "scored", first.reason  # type: ignore[attr-defined]
    assert first.value == 1.0  # type: ignore[attr-defined]
    assert len(first.trace.exchanges) == 1  # type: ignore[attr-defined]
    assert [c.result for c in first.trace.tool_calls] == [{"area": 25}]  # type: ignore[attr-defined]


def test_a_task_with_other_checks_keeps_the_whole_loop(tmp_path: Path) -> None:
    whole = _run(tmp_path)["whole-loop"]
    assert whole.outcome == "over_budget"  # type: ignore[attr-defined]
    assert len(whole.trace.exchanges) == 8  # type: ignore[attr-defined]
