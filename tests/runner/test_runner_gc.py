"""A run paces the cyclic garbage collector for itself and gives the settings back."""

from __future__ import annotations

import gc
from pathlib import Path

from bench.records.run import AttemptRecord
from bench.runner import RunRequest, start_run
from bench.runner.progress import NullProgress


def test_the_collector_is_paced_during_a_run_and_restored_after(mini: Path) -> None:
    before, frozen_before = gc.get_threshold(), gc.get_freeze_count()
    seen: list[tuple[tuple[int, int, int], int]] = []

    class Watch(NullProgress):
        def attempt(self, record: AttemptRecord, done: int, total: int) -> None:
            seen.append((gc.get_threshold(), gc.get_freeze_count()))

    start_run(
        RunRequest(
            tasks=mini / "tasks",
            target_file=mini / "targets" / "good.yaml",
            runs_dir=mini / "runs",
            split="public",
        ),
        Watch(),
    )
    assert seen and all(t[0] >= 50_000 and frozen > 0 for t, frozen in seen)
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == frozen_before
