"""What verify derives from a pinned task set, derived once per process rather than per bundle.

Verifying one bundle loads the pinned task set, selects the run's split, hashes it, fingerprints
every task, and builds each task's world and the corpus library it cites. None of that depends
on the bundle: a board that verifies 100 BFCL bundles (3,628 tasks each) did it 100 times, 2 to
4 s of CPU each (docs/PERFORMANCE.md, "Issue 18"). A :class:`TaskCache` holds the results for as
long as its owner lives (one ``verify_bundle`` call when none is given; a whole board build when
``VerifyOptions.task_cache`` is set), keyed by the directory and corpus root given and, for
everything derived, by the task set object itself. Nothing a bundle says enters a key, and a
value is the same as computing it again from the same files, so a verdict never depends on
whether the cache was warm; a task set that cannot be loaded is not cached (its failure is
raised again for the next bundle).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from bench.corpus import CorpusLibrary
from bench.tasks.load import TaskSet, load_task_set
from bench.tasks.model import Task

T = TypeVar("T")


class TaskCache:
    """Loaded task sets and what verify derives from them (see the module docstring)."""

    def __init__(self) -> None:
        self._loaded: dict[tuple[Path, Path | None], TaskSet] = {}
        # id(task set) -> (the task set, kept so that its id is not reused; derived values)
        self._derived: dict[int, tuple[TaskSet, dict[str, Any]]] = {}
        self._corpora: dict[Path, CorpusLibrary] = {}
        self._shared: dict[tuple[str, Path], Any] = {}

    def load(self, tasks: Path, corpus_root: Path | None) -> TaskSet:
        key = (tasks, corpus_root)
        found = self._loaded.get(key)
        if found is None:
            found = self._loaded[key] = load_task_set(tasks, corpus_root)
        return found

    def _memo(self, task_set: TaskSet, name: str, make: Callable[[], T]) -> T:
        held = self._derived.setdefault(id(task_set), (task_set, {}))
        assert held[0] is task_set
        values = held[1]
        if name not in values:
            values[name] = make()
        value: T = values[name]
        return value

    def select(self, task_set: TaskSet, split: str | None) -> TaskSet:
        """``task_set.select(split)``, the same object for the same split."""
        return self._memo(task_set, f"select:{split}", lambda: task_set.select(split))

    def content_hash(self, task_set: TaskSet) -> str:
        return self._memo(task_set, "content_hash", task_set.content_hash)

    def by_id(self, task_set: TaskSet) -> dict[str, Task]:
        return self._memo(task_set, "by_id", task_set.by_id)

    def fingerprints(self, task_set: TaskSet) -> dict[str, str]:
        """Task id -> ``Task.fingerprint()``."""
        return self._memo(
            task_set, "fingerprints", lambda: {t.id: t.fingerprint() for t in task_set.tasks}
        )

    def corpora(self, root: Path) -> CorpusLibrary:
        found = self._corpora.get(root)
        if found is None:
            found = self._corpora[root] = CorpusLibrary(root)
        return found

    def shared(self, name: str, root: Path, make: Callable[[], T]) -> T:
        """A value made once per ``name`` and corpus root (the re-drive's worlds, which it
        keys by task object)."""
        key = (name, root)
        if key not in self._shared:
            self._shared[key] = make()
        value: T = self._shared[key]
        return value


__all__ = ["TaskCache"]
