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


FAMILIES6 = ("grounded-qa", "multi-turn-state", "refusal-and-safety", "structured-extraction",
             "tool-trajectory", "long-horizon")  # fmt: skip
LONG_TITLE = (
    "public split (subset-free), task set 0123456789ab with a deliberately long descriptive "
    "cohort title that must wrap, 5 repeats, harness 0.1.0-very-long-build-identifier"
)


def synthetic_board(entrants: int, *, seed: int = 7) -> Any:
    """A ``Board`` of ``entrants`` rows in one cohort of six families, made directly (no
    statistics, builds in well under a second), with long names and a long cohort title:
    for layout, reachability and speed checks of the page, never for its numbers."""
    import random

    from bench.board.model import (
        Board,
        CohortRows,
        EntryRow,
        Estimate,
        FamilyScore,
        LanguageScore,
    )
    from bench.stats import staircase

    rng = random.Random(seed)

    def est(v: float, half: float) -> Estimate:
        return Estimate(value=v, lo=max(0.0, v - half), hi=min(1.0, v + half))

    rows = []
    for i in range(entrants):
        head = round(rng.uniform(0.05, 0.95), 4)
        long = i % 7 == 0
        rows.append(
            EntryRow(
                key=f"entrant-{i:04d}/{i:016x}", entrant=f"entrant-{i:04d}",
                display_name=(f"Entrant {i} with an unusually long display name that goes on "
                              "and on without stopping" if long else f"Entrant {i}"),
                config_label="temperature-0.7-max-tokens-4096-tools-v2" if i % 5 == 0 else None,
                run_id=f"20260101T000000Z-{i:06x}", created="2026-01-01", source="run",
                source_path=f"runs/20260101T000000Z-{i:06x}", verified=i % 3 == 0,
                verified_note="a local run", fingerprint=f"{i:016x}", config={"model": f"m{i}"},
                status="complete", ranked=True, rank=i + 1, rank_hi=min(entrants, i + 4),
                headline=est(head, 0.04), analytic_se=0.02, pooled=head,
                families=[FamilyScore(family=f, n=50, score=est(round(rng.random(), 3), 0.08))
                          for f in sorted(FAMILIES6)],
                tasks=300, pass_hat_k=est(head / 2, 0.05), flakiness=est(0.3, 0.03),
                error_rate=0.01 * (i % 4), cost_usd=round(10 ** rng.uniform(-4, 0), 6),
                cost_note="$1.00", p95_latency_s=round(rng.uniform(0.5, 40.0), 3),
                frontier_probability=round(rng.random(), 3), dominated_95=rng.random() < 0.5,
                axes={"answer": head}, safety=[], judge_excluded=[],
                failed=[], languages=[LanguageScore(language="en", n=300, mean=head)],
            )
        )  # fmt: skip
    rows.sort(key=lambda r: -(r.headline.value if r.headline else 0.0))
    rows = [r.model_copy(update={"rank": k + 1}) for k, r in enumerate(rows)]

    def view(of: str) -> list[str]:
        xs = [getattr(r, of) for r in rows]
        order = staircase(xs, [r.headline.value if r.headline else 0.0 for r in rows])
        return [rows[k].key for k in order]

    cohort = CohortRows(
        cohort_key="c" * 64, title=LONG_TITLE, task_set_hash="0123456789ab" + "0" * 52,
        split="public", repeats=5, harness="0.1.0", ranked_on=300, families=sorted(FAMILIES6),
        rank_mode="per-pair paired bootstrap", order="rank, then headline", entries=rows,
        cost_view=view("cost_usd"), latency_view=view("p95_latency_s"), cost_not_measured=[],
        warnings=[],
    )  # fmt: skip
    return Board(inputs_hash="f" * 64, seed=1, resamples=100, frontier_resamples=100,
                 cohorts=[cohort], warnings=[])  # fmt: skip
