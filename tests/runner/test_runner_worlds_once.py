"""Issue 19, a run's start-up: each task's world is built once per run, by the task set's
check, and the run starts every attempt from a fresh copy of it (``World.fresh``); a world
built from another task or corpus object is not taken."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.runner import NullProgress, RunRequest, start_run
from bench.runner.engine import RunPlan
from bench.tasks.load import load_task_set
from bench.world import World, check_task_set


def _count_builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    built: list[str] = []
    real = World.__init__

    def counted(self: World, task: Any, corpus: Any) -> None:
        built.append(task.id)
        real(self, task, corpus)

    monkeypatch.setattr(World, "__init__", counted)
    return built


def test_a_run_builds_each_tasks_world_once(mini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built = _count_builds(monkeypatch)
    request = RunRequest(
        tasks=mini / "tasks",
        target_file=mini / "targets" / "good.yaml",
        runs_dir=mini / "runs",
        repeats=2,
    )
    run, status = start_run(request, NullProgress())
    assert status.status == "complete"
    ids = run.config().task_set.task_ids
    assert len(ids) >= 2
    assert sorted(built) == sorted(ids)  # once each: by the check, not again by the run


def test_a_world_is_taken_only_for_the_same_task_and_corpus(mini: Path) -> None:
    task_set = load_task_set(mini / "tasks")
    worlds: dict[str, World] = {}
    library = check_task_set(task_set, worlds)
    task = task_set.tasks[0]
    corpus = library.corpus(task.corpus) if task.corpus else None
    assert worlds[task.id].built_for(task, corpus)
    again = task.model_copy()  # equal, but another object: its world is built again
    assert not worlds[task.id].built_for(again, corpus)
    plan = RunPlan.__new__(RunPlan)
    object.__setattr__(plan, "built_worlds", worlds)
    assert plan.world(task, corpus)._task is task
    assert plan.world(again, corpus)._task is again
