"""What ``prepare`` already made is what the run uses: the corpora its check read and
indexed, and the fingerprints the task set's load made."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import bench.runner.session as session
from bench.runner import RunRequest, start_run
from bench.runner.engine import RunPlan


def test_the_run_uses_the_checked_corpora_and_the_loaded_fingerprints(
    mini: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked: list[Any] = []
    planned: list[RunPlan] = []
    check, execute = session.check_task_set, session.execute

    def keep_check(task_set: Any, *worlds: Any) -> Any:
        checked.append(check(task_set, *worlds))
        return checked[-1]

    async def keep_plan(plan: RunPlan, progress: Any = None) -> Any:
        planned.append(plan)
        return await execute(plan, progress)

    monkeypatch.setattr(session, "check_task_set", keep_check)
    monkeypatch.setattr(session, "execute", keep_plan)
    run_dir, status = start_run(
        RunRequest(
            tasks=mini / "tasks",
            target_file=mini / "targets" / "good.yaml",
            runs_dir=mini / "runs",
            split="public",
        )
    )
    assert status.status == "complete"
    [plan] = planned
    assert plan.corpora is checked[0]
    assert plan.fingerprint_of is not None
    for record in run_dir.attempts():
        task = next(task for task in plan.tasks if task.id == record.task_id)
        assert record.task_fingerprint == task.fingerprint()
