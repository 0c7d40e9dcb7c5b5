"""A run of a named subset of its split (``--task``, ``--language``) bundles and verifies
against the tasks it chose; a subset that does not come from the pinned split is refused."""

from __future__ import annotations

import typing
from pathlib import Path
from types import SimpleNamespace

import pytest

from bench.core.suite import DEFAULT_REF
from bench.records import TaskSubset
from bench.runner import RunRequest, start_run
from bench.signing.bundle import build_bundle
from bench.tasks.load import load_task_set
from bench.verify import Code, VerifyOptions, verify_bundle
from bench.verify.failure import VerifyFailure
from bench.verify.scores import check_tasks

from .conftest import ENTRANT, World, _write_key


def _subset_bundle(world: World, task_ids: tuple[str, ...]) -> Path:
    run, _ = start_run(
        RunRequest(tasks=world.tasks, target_file=world.root / "mini" / "targets" / "good.yaml",
                   runs_dir=world.root / "runs", split="public", task_ids=task_ids)
    )  # fmt: skip
    return build_bundle(
        run, entrant=ENTRANT, key_file=_write_key(world.root / "k" / ENTRANT, world.keys[ENTRANT]),
        out_root=world.results, allowed_signers=world.signers,
    )  # fmt: skip


def test_a_subset_bundle_verifies_against_the_tasks_it_chose(world: World) -> None:
    bundle = _subset_bundle(world, ("tool-0001",))
    options = VerifyOptions(results_root=world.results, allowed_signers=world.signers,
                            tasks=world.tasks, seed=1)  # fmt: skip
    verdict = verify_bundle(bundle, options)
    assert verdict.valid, (verdict.code, verdict.message)
    assert "task set" in verdict.checks


def _ref(world: World, **changes: typing.Any) -> tuple[typing.Any, typing.Any]:
    whole = load_task_set(world.tasks).select("public")
    chosen = whole.select(None, ["tool-0001"])
    subset = TaskSubset(tasks=1, of=len(whole.tasks), of_hash=whole.content_hash(), by=["task"])
    ref = {"subset": subset, "task_ids": ["tool-0001"], "suite": DEFAULT_REF, **changes}
    run = SimpleNamespace(config=SimpleNamespace(task_set=SimpleNamespace(**ref)), attempts=[])
    return whole, (run, SimpleNamespace(task_set_hash=chosen.content_hash()))


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"subset": TaskSubset(tasks=1, of=2, of_hash="w" * 64, by=["task"])},
         "task_set.subset.of_hash"),
        ({"task_ids": ["tool-0001", "no-such-task"]}, "task_set.task_ids"),
        ({"task_ids": ["tool-0001", "tool-0001"]}, "task_set.task_ids"),
    ],
)  # fmt: skip
def test_a_subset_not_drawn_from_the_pinned_split_is_refused(
    world: World, tmp_path: Path, changes: dict[str, typing.Any], field: str
) -> None:
    whole, (run, manifest) = _ref(world, **changes)
    with pytest.raises(VerifyFailure) as info:
        check_tasks(tmp_path, whole, run, manifest)
    assert (info.value.verify_code, info.value.field) == (Code.TASK_SET_MISMATCH, field)
