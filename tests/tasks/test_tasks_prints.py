"""A task set makes each task's fingerprint once, at load, and its selections reuse them."""

from __future__ import annotations

from pathlib import Path

from bench.core.canonical import fingerprint, sha256_hex
from bench.tasks.load import load_task_set


def test_the_loaded_fingerprints_are_the_tasks_own_and_shared_by_selections(mini: Path) -> None:
    whole = load_task_set(mini / "tasks")
    assert whole.tasks
    assert {id(task) for task in whole.tasks} <= set(whole.prints)  # made by the load's check
    for task in whole.tasks:
        assert whole.fingerprint(task) == task.fingerprint()
    chosen = whole.select(whole.tasks[0].split)
    assert chosen.prints is whole.prints
    assert chosen.fingerprint(chosen.tasks[0]) == chosen.tasks[0].fingerprint()


def test_the_content_hash_is_the_one_made_from_scratch(mini: Path) -> None:
    task_set = load_task_set(mini / "tasks")
    tasks = sorted([task.id, task.split, task.fingerprint()] for task in task_set.tasks)
    corpus = [
        [doc, sha256_hex((task_set.corpus_root / doc).read_bytes())]
        for doc in task_set.corpus_documents()
    ]
    assert task_set.content_hash() == fingerprint({"tasks": tasks, "corpus": corpus}, length=64)


def test_a_task_not_from_the_load_is_fingerprinted_as_itself(mini: Path) -> None:
    task_set = load_task_set(mini / "tasks")
    first = task_set.tasks[0]
    limits = first.limits.model_copy(update={"max_turns": first.limits.max_turns + 1})
    other = first.model_copy(update={"limits": limits})  # a copy: a new object, not the loaded
    assert task_set.fingerprint(other) == other.fingerprint() != first.fingerprint()
