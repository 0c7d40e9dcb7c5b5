"""A bundle whose config says it ran on a subset of its split is never published."""

from __future__ import annotations

import typing
from pathlib import Path
from types import SimpleNamespace

import pytest

from bench.records import TaskSubset
from bench.verify import Code
from bench.verify.failure import VerifyFailure
from bench.verify.scores import check_tasks


def test_a_subset_bundle_is_refused(tmp_path: Path) -> None:
    subset = TaskSubset(tasks=1, of=2, of_hash="w" * 64, by=["task"])
    task_set_ref = SimpleNamespace(
        subset_label=lambda: "subset: 1 of 2 public tasks", subset=subset
    )
    run: typing.Any = SimpleNamespace(config=SimpleNamespace(task_set=task_set_ref), attempts=[])
    task_set: typing.Any = SimpleNamespace(content_hash=lambda: "h", tasks=[])
    manifest: typing.Any = SimpleNamespace(task_set_hash="h")
    with pytest.raises(VerifyFailure) as info:
        check_tasks(tmp_path, task_set, run, manifest)
    assert info.value.verify_code is Code.TASK_SET_MISMATCH
    assert info.value.field == "task_set.subset"
    assert "subset: 1 of 2 public tasks" in info.value.message
