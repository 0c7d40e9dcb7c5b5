"""A run on a subset of its split never shares a cohort with whole-split runs; a run of a
shipped no-model baseline is recognised as a reference run from what it executed."""

from __future__ import annotations

from datetime import UTC, datetime

from bench.core.canonical import fingerprint
from bench.records import RunConfig, TaskSetRef, TaskSubset

WHEN = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)


def config(
    subset: TaskSubset | None = None,
    target: dict[str, object] | None = None,
    kind: str = "scripted",
) -> RunConfig:
    return RunConfig(
        run_id="20261203T120000Z-aaaaaa",
        harness_version="0.1.0",
        created_at=WHEN,
        entrant="e",
        display_name="E",
        target_kind=kind,
        target_file="t.yaml",
        target=target or {"model": "m", "callable": "agents.py:respond"},
        comparable={"model": "m"},
        task_set=TaskSetRef(
            path="tasks", content_hash="h" * 64, split="public", task_ids=["a"], subset=subset
        ),
        repeats=1,
        concurrency=1,
        seed=1,
    )


SUBSET = TaskSubset(tasks=43, of=86, of_hash="w" * 64, by=["task"])


def test_whole_split_keys_are_what_they_were() -> None:
    whole = config()
    assert whole.task_set.subset_label() is None
    assert whole.cohort_key() == fingerprint(
        {"task_set": "h" * 64, "split": "public", "harness": "0.1.0", "repeats": 1}
    )
    assert whole.fingerprint() == fingerprint(
        {"task_set": "h" * 64, "split": "public", "harness": "0.1.0",
         "target": {"model": "m"}, "repeats": 1}
    )  # fmt: skip


def test_a_subset_is_its_own_cohort_and_says_so() -> None:
    whole, part = config(), config(SUBSET)
    assert part.task_set.subset_label() == "subset: 43 of 86 public tasks"
    assert part.cohort_key() != whole.cohort_key()
    assert part.fingerprint() != whole.fingerprint()
    other = config(SUBSET.model_copy(update={"of_hash": "x" * 64}))
    assert other.cohort_key() != part.cohort_key()  # a subset of another split version
    none = config(SUBSET).model_copy(
        update={"task_set": part.task_set.model_copy(update={"split": None})}
    )
    assert none.task_set.subset_label() == "subset: 43 of 86 tasks"


def test_reference_runs_are_baseline_callables() -> None:
    assert config().reference() is None
    baseline = {"model": "baseline-echo", "callable": "bench.baselines:echo"}
    assert config(target=baseline).reference() == "echo"
    assert config(target=baseline, kind="openai").reference() is None
    assert config(target={"model": "m", "callable": "bench.baselines:"}).reference() is None
    assert config(target={"model": "m", "callable": "my.bench.baselines:echo"}).reference() is None
