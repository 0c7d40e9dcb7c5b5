"""Checks that need the corpus and the mock world, run before anything is written: every
corpus document parses, and every task's world can be built from its data."""

from __future__ import annotations

from bench.core.errors import HarnessFault, InputError
from bench.corpus import CorpusLibrary
from bench.tasks.load import TaskSet

from .world import World


def check_task_set(task_set: TaskSet, worlds: dict[str, World] | None = None) -> CorpusLibrary:
    """Raise ``InputError`` naming the task file and task when its corpus or tools are broken.
    ``worlds``, if given, receives each task's world as built here (by task id): a run takes
    them instead of building each again (``World.built_for``; about 30 ms for 172 tasks)."""
    library = CorpusLibrary(task_set.corpus_root)
    for task in task_set.tasks:
        file, where = task_set.origin(task.id)
        try:
            corpus = library.corpus(task.corpus) if task.corpus else None
        except InputError as exc:
            raise InputError(
                f"{exc.message} ({exc.path})", code=exc.code, path=file, field=f"{where}.corpus"
            ) from None
        unknown = task.unknown_tools()
        if unknown:
            field, tool = unknown[0]
            raise InputError(
                f"'{tool}' is not a tool in this task's world "
                f"({', '.join(task.tool_names()) or 'no tools'})",
                code="TASK_UNKNOWN_TOOL",
                path=file,
                field=f"{where}.{field}",
            )
        try:
            world = World(task, corpus)
        except HarnessFault as exc:
            raise InputError(
                exc.message,
                code="TASK_TOOLS_INVALID",
                path=file,
                field=f"{where}.{exc.field}" if exc.field else where,
            ) from None
        if worlds is not None:
            worlds[task.id] = world
    return library


__all__ = ["check_task_set"]
