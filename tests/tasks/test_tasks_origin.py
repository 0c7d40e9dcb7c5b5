"""TaskSet.origin: where a task was defined, looked up in a dict built once (issue 19)."""

from __future__ import annotations

from pathlib import Path

from bench.tasks.load import TaskSet


def test_origin_names_the_first_entry_of_an_id_and_falls_back_to_the_source() -> None:
    origins = (
        ("a", "one.yaml", "tasks[0] (a)"),
        ("b", "one.yaml", "tasks[1] (b)"),
        ("a", "two.yaml", "tasks[0] (a)"),
    )
    task_set = TaskSet(Path("tasks"), Path("corpora"), (), (), origins)
    assert task_set.origin("a") == ("one.yaml", "tasks[0] (a)")
    assert task_set.origin("b") == ("one.yaml", "tasks[1] (b)")
    assert task_set.origin("c") == ("tasks", "c")


def test_a_selection_keeps_the_origins() -> None:
    origins = (("a", "one.yaml", "tasks[0] (a)"),)
    task_set = TaskSet(Path("tasks"), Path("corpora"), (), (), origins)
    assert task_set.origin("a") == ("one.yaml", "tasks[0] (a)")  # the index is built here
    assert task_set.select(split="public").origin("a") == ("one.yaml", "tasks[0] (a)")
    assert task_set == TaskSet(Path("tasks"), Path("corpora"), (), (), origins)
