"""A small generator of valid run directories (through the records models), for board tests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.core.score import Verdict
from bench.core.trace import Trace
from bench.records.run import AttemptRecord, RunConfig, RunStatus, TaskSetRef
from bench.records.store import RunStore

T0 = datetime(2026, 1, 1, tzinfo=UTC)
TASK_SET = "a" * 64


@dataclass
class SynthRun:
    """One run: ``values[t][k]`` is repeat k's value of task t (None = errored)."""

    entrant: str
    display_name: str
    values: dict[str, list[float | None]]
    families: dict[str, str]
    model: str = "m1"
    minutes: int = 0
    cost: float | None = 0.01
    latency: float = 1.0
    note: str | None = None
    split: str = "public"
    task_set: str = TASK_SET
    status: str = "complete"
    safety: dict[str, str] = field(default_factory=dict)
    languages: dict[str, str] = field(default_factory=dict)
    """task id -> language of its attempts (default "en")."""

    @property
    def repeats(self) -> int:
        return len(next(iter(self.values.values())))


def write_run(root: Path, spec: SynthRun, index: int) -> Path:
    created = T0 + timedelta(minutes=spec.minutes)
    run_id = created.strftime("%Y%m%dT%H%M%SZ") + f"-{index:06x}"
    target: dict[str, Any] = {"kind": "scripted", "model": spec.model}
    if spec.note is not None:
        target["note"] = spec.note
    config = RunConfig(
        run_id=run_id,
        harness_version="0.1.0",
        created_at=created,
        entrant=spec.entrant,
        display_name=spec.display_name,
        target_kind="scripted",
        target_file="targets/x.yaml",
        target=target,
        comparable={"kind": "scripted", "model": spec.model},
        task_set=TaskSetRef(
            path="tasks", content_hash=spec.task_set, split=spec.split, task_ids=sorted(spec.values)
        ),
        repeats=spec.repeats,
        concurrency=1,
        seed=1,
    )
    status = RunStatus(
        run_id=run_id,
        status=spec.status,  # type: ignore[arg-type]
        config_fingerprint=config.fingerprint(),
        started_at=created,
        updated_at=created,
        attempts_total=len(spec.values) * spec.repeats,
        attempts_done=len(spec.values) * spec.repeats,
    )
    run = RunStore(root).create(config, status)
    for task_id in sorted(spec.values):
        for k, value in enumerate(spec.values[task_id]):
            run.write_attempt(_attempt(spec, config, task_id, k, value))
    return run.path


def _attempt(
    spec: SynthRun, config: RunConfig, task_id: str, k: int, value: float | None
) -> AttemptRecord:
    passed = value is not None and value >= 1.0
    verdicts = (
        []
        if value is None
        else [
            Verdict(
                type="contains",
                decided=True,
                passed=passed,
                credit=value,
                sentence="ok" if passed else f"the answer for {task_id} missed the point",
                axis="answer",
            )
        ]
    )
    at = config.created_at + timedelta(seconds=k)
    return AttemptRecord(
        run_id=config.run_id,
        config_fingerprint=config.fingerprint(),
        task_id=task_id,
        task_fingerprint="f" * 16,
        family=spec.families[task_id],
        split=spec.split,
        language=spec.languages.get(task_id, "en"),
        repeat=k,
        outcome="scored" if value is not None else "errored",
        value=value,
        passed=passed if value is not None else None,
        verdicts=verdicts,
        reason=None if value is not None else "endpoint returned 500 after retries",
        safety_violations=[spec.safety[task_id]] if task_id in spec.safety else [],
        axes=["answer"],
        started_at=at,
        finished_at=at,
        trace=Trace(latency_s=spec.latency + 0.01 * k, cost_usd=spec.cost),
    )


def write_runs(root: Path, specs: Sequence[SynthRun]) -> list[Path]:
    return [write_run(root, spec, i) for i, spec in enumerate(specs)]


def triple(n: int = 100) -> tuple[dict[str, str], list[SynthRun]]:
    """The non-transitive triple on 100 binary tasks (one repeat)."""
    ids = [f"t{i:03d}" for i in range(n)]
    solved = {
        "a": set(range(10)) | set(range(14, 24)) | set(range(28, 64)),
        "b": set(range(10, 14)) | set(range(14, 24)) | set(range(28, 64)),
        "c": set(range(10, 14)) | set(range(24, 28)) | set(range(28, 64)),
    }
    families = dict.fromkeys(ids, "qa")
    runs = [
        SynthRun(
            entrant=name,
            display_name=name.upper(),
            values={t: [1.0 if i in solved[name] else 0.0] for i, t in enumerate(ids)},
            families=families,
        )
        for name in ("a", "b", "c")
    ]
    return families, runs
