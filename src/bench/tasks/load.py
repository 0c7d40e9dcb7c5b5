"""Loading a task set from files, validating every task, and the set-level lints.

A task set is a directory of ``*.yaml``/``*.yml``/``*.json`` task files (or one file) plus a
corpus root, by default the ``corpora`` directory beside the task directory, and a suite, said
by the ``suite.json`` beside the task directory (``bench.core.suite``; none: this project's own
suite, ``bench-suite``). Every refusal is
an ``InputError`` naming the file and the field, e.g.
``tasks/grounded-qa.yaml: tasks[3] (gqa-0004).because: a task must say why it exists``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import ValidationError

from bench.core.canonical import fingerprint, sha256_hex
from bench.core.errors import InputError
from bench.core.files import read_structured
from bench.core.suite import DEFAULT_SUITE, SuiteManifest, load_suite
from bench.core.validation import describe

from .expectations import EXPECTATION_TYPES, Citations
from .model import Task, TaskFile

TASK_SUFFIXES = (".yaml", ".yml", ".json")
_SKIP = frozenset(EXPECTATION_TYPES)


@dataclass(frozen=True)
class TaskSet:
    """Validated tasks, where they came from, and the corpus they may cite."""

    source: Path
    corpus_root: Path
    tasks: tuple[Task, ...]
    files: tuple[Path, ...]
    origins: tuple[tuple[str, str, str], ...] = ()  # (task id, file, "tasks[i] (id)")
    suite: SuiteManifest = field(default_factory=lambda: DEFAULT_SUITE)
    """The suite the tasks belong to (``suite.json`` beside the task directory)."""
    prints: dict[int, tuple[Task, str]] = field(default_factory=dict, compare=False, repr=False)
    """Each task's ``fingerprint()`` by ``id(task)`` (the task kept beside it, so the id stays
    its own), made once for the load's duplicate check and shared with every selection of
    it: a run's content hashes and records reuse them (docs/PERFORMANCE.md, issue 19)."""

    def fingerprint(self, task: Task) -> str:
        """``task.fingerprint()``, made once per loaded task (tasks are read, never changed,
        once loaded)."""
        known = self.prints.get(id(task))
        if known is None or known[0] is not task:
            known = (task, task.fingerprint())
            self.prints[id(task)] = known
        return known[1]

    def select(
        self,
        split: str | None = None,
        ids: Iterable[str] | None = None,
        language: str | None = None,
    ) -> TaskSet:
        wanted = set(ids) if ids is not None else None
        chosen = tuple(
            task
            for task in self.tasks
            if (split is None or task.split == split)
            and (wanted is None or task.id in wanted)
            and (language is None or task.language == language)
        )
        return TaskSet(
            self.source, self.corpus_root, chosen, self.files, self.origins, self.suite, self.prints
        )

    def origin(self, task_id: str) -> tuple[str, str]:
        """(file, 'tasks[i] (id)') where a task was defined, for error messages."""
        return self._origin_index.get(task_id) or (str(self.source), task_id)

    @functools.cached_property
    def _origin_index(self) -> dict[str, tuple[str, str]]:
        # Built once: a scan of ``origins`` per call made a check of BFCL's 3,631 tasks
        # quadratic. The first entry of an id wins, as the scan's did.
        index: dict[str, tuple[str, str]] = {}
        for tid, file, where in self.origins:
            index.setdefault(tid, (file, where))
        return index

    def by_id(self) -> dict[str, Task]:
        return {task.id: task for task in self.tasks}

    def corpus_documents(self) -> list[str]:
        return sorted({doc for task in self.tasks for doc in task.corpus})

    def content_hash(self) -> str:
        """Moves with any task's question or scoring, its id or split, or a corpus byte."""
        tasks = sorted([task.id, task.split, self.fingerprint(task)] for task in self.tasks)
        corpus = [
            [doc, sha256_hex((self.corpus_root / doc).read_bytes())]
            for doc in self.corpus_documents()
        ]
        return fingerprint({"tasks": tasks, "corpus": corpus}, length=64)


def task_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise InputError("no such file or directory", code="FILE_MISSING", path=path)
    files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in TASK_SUFFIXES)
    if not files:
        raise InputError(
            "no task files (*.yaml, *.yml, *.json) here", code="TASKS_EMPTY", path=path
        )
    return files


def load_task_file(path: Path) -> list[Task]:
    raw = read_structured(path)
    if not isinstance(raw, dict):
        raise InputError(
            "a task file is a mapping with 'format_version' and 'tasks'",
            code="TASK_FILE_INVALID",
            path=path,
        )
    try:
        document = TaskFile.model_validate(raw)
    except ValidationError as exc:
        field, message = describe(exc)
        raise InputError(message, code="TASK_FILE_INVALID", path=path, field=field) from None
    tasks: list[Task] = []
    for index, entry in enumerate(document.tasks):
        label = f"tasks[{index}]"
        if isinstance(entry.get("id"), str):
            label += f" ({entry['id']})"
        try:
            tasks.append(Task.model_validate(entry))
        except ValidationError as exc:
            field, message = describe(exc, skip_labels=_SKIP)
            raise InputError(
                message,
                code="TASK_INVALID",
                path=path,
                field=f"{label}.{field}" if field else label,
            ) from None
    return tasks


def default_corpus_root(source: Path) -> Path:
    directory = source if source.is_dir() else source.parent
    return directory.parent / "corpora"


def load_task_set(source: Path, corpus_root: Path | None = None) -> TaskSet:
    """Load, validate and lint every task under ``source``, and name its suite."""
    root = corpus_root if corpus_root is not None else default_corpus_root(source)
    located: list[tuple[Path, int, Task]] = []
    files = task_files(source)
    suite = load_suite(source)
    for file in files:
        for index, task in enumerate(load_task_file(file)):
            located.append((file, index, task))
    prints = _check_unique(located)
    for file, index, task in located:
        _check_corpus(file, index, task, root)
    origins = tuple(
        (task.id, str(file), f"tasks[{index}] ({task.id})") for file, index, task in located
    )
    tasks = tuple(task for _, _, task in located)
    _share_tools(tasks)
    return TaskSet(source, root, tasks, tuple(files), origins, suite, prints)


def _share_tools(tasks: tuple[Task, ...]) -> None:
    """Equal tool definitions kept once: the shipped tasks declare 379 tools of 32 kinds, a
    third of a task set's memory (docs/PERFORMANCE.md, issue 19). Equal: same model, same
    ``repr`` (every field, floats and ints apart). Tasks are read, never changed, once loaded."""
    seen: dict[tuple[type, str], Any] = {}
    for task in tasks:
        tools = task.tools
        for position, tool in enumerate(tools):
            tools[position] = seen.setdefault((type(tool), repr(tool)), tool)


def _check_unique(located: list[tuple[Path, int, Task]]) -> dict[int, tuple[Task, str]]:
    """Refuses a reused id or a task asked twice; each task's fingerprint, by ``id(task)``."""
    prints: dict[int, tuple[Task, str]] = {}
    seen_ids: dict[str, Path] = {}
    seen_prints: dict[str, tuple[Path, Task]] = {}
    for file, index, task in located:
        where = f"tasks[{index}] ({task.id})"
        if task.id in seen_ids:
            raise InputError(
                f"task id '{task.id}' is already used in {seen_ids[task.id]}",
                code="TASK_DUPLICATE_ID",
                path=file,
                field=f"{where}.id",
            )
        seen_ids[task.id] = file
        mark = task.fingerprint()
        prints[id(task)] = (task, mark)
        if mark in seen_prints:
            other_file, other = seen_prints[mark]
            leak = other.split != task.split
            raise InputError(
                f"the same task as '{other.id}' in {other_file}"
                + (f" appears in both splits ({other.split} and {task.split})" if leak else ""),
                code="TASK_SPLIT_LEAK" if leak else "TASK_DUPLICATE",
                path=file,
                field=where,
            )
        seen_prints[mark] = (file, task)
    return prints


def _check_corpus(file: Path, index: int, task: Task, root: Path) -> None:
    where = f"tasks[{index}] ({task.id})"
    for position, doc in enumerate(task.corpus):
        pure = PurePosixPath(doc)
        if pure.is_absolute() or ".." in pure.parts or "\\" in doc:
            raise InputError(
                f"corpus document '{doc}' must be a path inside the corpus root",
                code="CORPUS_PATH",
                path=file,
                field=f"{where}.corpus[{position}]",
            )
        if not (root / doc).is_file():
            raise InputError(
                f"corpus document '{doc}' not found under {root}",
                code="CORPUS_MISSING",
                path=file,
                field=f"{where}.corpus[{position}]",
            )
    for position, expectation in enumerate(task.expectations):
        if isinstance(expectation, Citations):
            for passage in expectation.required:
                doc = passage.split("#", 1)[0]
                if doc not in task.corpus:
                    raise InputError(
                        f"cites '{passage}', but '{doc}' is not in this task's corpus",
                        code="TASK_INVALID",
                        path=file,
                        field=f"{where}.expectations[{position}].required",
                    )


__all__ = ["TaskSet", "default_corpus_root", "load_task_file", "load_task_set", "task_files"]
