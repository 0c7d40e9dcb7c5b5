"""``bench compare A B``: the paired difference of two runs on the tasks they share.

Rule (docs/REPORTS.md): the difference is ``B - A`` of the stratified headlines over the tasks
scored in both runs, with the percentile interval of the paired bootstrap (one seeded ``W``;
``M[:, B] - M[:, A]``). Fewer than 30 shared tasks: the exact sign-flip test decides instead,
and ``decided_by`` says so, because the interval is still shown beside the verdict.
Two runs are *comparable* when their cohort keys match (same suite, task set, split, harness and
repeats); a significant drop between incomparable runs is never called a regression.
"""

from __future__ import annotations

from typing import Any, Literal

from bench.core.models import FORMAT_VERSION, Strict
from bench.core.rng import DEFAULT_SEED
from bench.records.run import RunConfig

from .summary import RunSummary

Verdict = Literal[
    "regression", "improvement", "not significant", "not comparable", "no shared tasks"
]


class RunSide(Strict):
    run_id: str
    entrant: str
    display_name: str
    model: str | None
    status: str
    headline: float | None
    lo: float | None
    hi: float | None
    passed: int
    scored: int
    errored: int
    cost: str
    """The run's cost as the terminal report says it (``$0.001234``, ``not measured (…)``)."""
    tokens: str
    """``1234``, ``1234 (2 of 6 attempts report no tokens)`` or ``not measured``."""
    config_fingerprint: str
    cohort_key: str


class FlippedTask(Strict):
    task_id: str
    family: str
    before: float | None
    after: float | None
    sentences: list[str]
    """The lines that failed the task in the run where it failed."""


class ConfigDifference(Strict):
    field: str
    first: str
    second: str


class Comparison(Strict):
    format_version: Literal[1] = FORMAT_VERSION
    first: RunSide
    second: RunSide
    comparable: bool
    differences: list[ConfigDifference]
    shared_tasks: int
    only_first: list[str]
    only_second: list[str]
    difference: float | None
    lo: float | None
    hi: float | None
    level: float
    p_value: float | None
    method: str | None
    significant: bool
    verdict: Verdict
    decided_by: str | None = None
    """The test that gave ``significant`` and its outcome (e.g. the sign-flip test's p-value
    below 30 shared tasks, where the interval is shown but does not decide)."""
    regressed: list[FlippedTask]
    fixed: list[FlippedTask]
    changed: list[FlippedTask]
    """Tasks whose value changed without flipping pass/fail."""


def _side(summary: RunSummary) -> RunSide:
    config, head = summary.config, summary.headline
    model = config.target.get("model")
    return RunSide(
        run_id=config.run_id,
        entrant=config.entrant,
        display_name=config.display_name,
        model=None if model is None else str(model),
        status=summary.status.status,
        headline=None if head is None else head.score.value,
        lo=None if head is None else head.score.interval.lo,
        hi=None if head is None else head.score.interval.hi,
        passed=summary.passed_tasks,
        scored=summary.scored_tasks,
        errored=summary.outcomes.get("errored", 0),
        cost=summary.cost_note,
        tokens=summary.tokens_note,
        config_fingerprint=config.fingerprint(),
        cohort_key=config.cohort_key(),
    )


def _flatten(prefix: str, value: Any, out: dict[str, str]) -> None:
    if isinstance(value, dict):
        for key in sorted(value):
            _flatten(f"{prefix}.{key}", value[key], out)
    else:
        out[prefix] = "null" if value is None else str(value)


def fingerprint_fields(config: RunConfig) -> dict[str, str]:
    """The inputs of ``RunConfig.fingerprint()``, flattened to ``field -> text``."""
    out: dict[str, str] = {
        "task_set": config.task_set.content_hash,
        "suite": config.task_set.suite_label(),
        "split": str(config.task_set.split),
        "subset": config.task_set.subset_label() or "none (the whole split)",
        "harness": config.harness_version,
        "repeats": str(config.repeats),
        "judge": str(config.judge["fingerprint"]) if config.judge else "none",
    }
    _flatten("target", config.comparable, out)
    return out


def config_differences(a: RunConfig, b: RunConfig) -> list[ConfigDifference]:
    fa, fb = fingerprint_fields(a), fingerprint_fields(b)
    return [
        ConfigDifference(field=k, first=fa.get(k, "(absent)"), second=fb.get(k, "(absent)"))
        for k in sorted(set(fa) | set(fb))
        if fa.get(k) != fb.get(k)
    ]


def compare_runs(
    a: RunSummary, b: RunSummary, *, B: int = 2000, seed: int = DEFAULT_SEED, level: float = 0.95
) -> Comparison:
    first = {s.task_id: s for s in a.task_scores if s.value is not None}
    second = {s.task_id: s for s in b.task_scores if s.value is not None}
    shared = [tid for tid in first if tid in second]
    comparable = a.config.cohort_key() == b.config.cohort_key()
    lines_a = {f.task_id: list(f.lines) for f in a.failures}
    lines_b = {f.task_id: list(f.lines) for f in b.failures}
    regressed: list[FlippedTask] = []
    fixed: list[FlippedTask] = []
    changed: list[FlippedTask] = []
    for tid in shared:
        old, new = first[tid], second[tid]
        if old.passed and not new.passed:
            group, lines = regressed, lines_b
        elif new.passed and not old.passed:
            group, lines = fixed, lines_a
        elif old.value != new.value:
            group, lines = changed, lines_b
        else:
            continue
        group.append(
            FlippedTask(
                task_id=tid,
                family=new.family,
                before=old.value,
                after=new.value,
                sentences=lines.get(tid, []),
            )
        )
    diff = lo = hi = p = None
    method: str | None = None
    decided_by: str | None = None
    significant = False
    verdict: Verdict = "no shared tasks"
    if shared:
        from bench.stats.paired import paired_difference

        result = paired_difference(
            [first[t].value or 0.0 for t in shared],
            [second[t].value or 0.0 for t in shared],
            [first[t].family for t in shared],
            B=B,
            seed=seed,
            level=level,
        )
        diff, lo, hi, p = result.difference, result.lo, result.hi, result.p_value
        method, significant = result.method, result.significant
        decided_by = result.decided_by
        if not comparable:
            verdict = "not comparable"
        elif not significant:
            verdict = "not significant"
        else:
            verdict = "regression" if result.difference < 0 else "improvement"
    return Comparison(
        first=_side(a),
        second=_side(b),
        comparable=comparable,
        differences=config_differences(a.config, b.config),
        shared_tasks=len(shared),
        only_first=sorted(set(first) - set(second)),
        only_second=sorted(set(second) - set(first)),
        difference=diff,
        lo=lo,
        hi=hi,
        level=level,
        p_value=p,
        method=method,
        significant=significant,
        verdict=verdict,
        decided_by=decided_by,
        regressed=regressed,
        fixed=fixed,
        changed=changed,
    )


__all__ = [
    "Comparison",
    "ConfigDifference",
    "FlippedTask",
    "RunSide",
    "compare_runs",
    "config_differences",
    "fingerprint_fields",
]
