"""Stage 2: entries -> the board's rows. Pure: plain values in, a :class:`Board` out.

- A cohort is a cohort key (task set hash, split, harness, repeats); cohorts are never ranked
  together; each is its own table.
- Within a cohort, one row per (entrant, config fingerprint): the LATEST run by created time
  (then run id), never the best.
- Only complete runs are ranked, on the tasks every ranked entry scored; the rest are listed.
- Rows sort by (rank, -headline, entrant, fingerprint); unranked rows follow.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cohort import cohort_stats
from .entries import EntryInput, p95_point
from .model import Board, CohortRows, EntryRow, FailedTask, LanguageScore

RANK_MODE = (
    "per-pair paired bootstrap on the shared resamples: i beats j when i is ahead in more than "
    "{pct} of them (exact sign-flip test instead when fewer than 30 tasks); printed rank = 1 + "
    "entrants that certainly beat it; not simultaneous over all pairs"
)
SMALL_FAMILY = 10


def latest_per_key(entries: Sequence[EntryInput]) -> list[EntryInput]:
    chosen: dict[str, EntryInput] = {}
    for e in entries:
        old = chosen.get(e.key)
        if old is None or (e.created_at, e.run_id) > (old.created_at, old.run_id):
            chosen[e.key] = e
    return [chosen[k] for k in sorted(chosen)]


def _row(e: EntryInput, **stats: object) -> EntryRow:
    return EntryRow.model_validate(
        {
            "key": e.key,
            "entrant": e.entrant,
            "display_name": e.display_name,
            "run_id": e.run_id,
            "created": e.created_at[:10],
            "source": e.source,
            "source_path": e.source_path,
            "verified": e.verified,
            "verified_note": e.verified_note,
            "fingerprint": e.fingerprint,
            "config": dict(e.config),
            "status": e.status,
            "tasks": len(e.values),
            "error_rate": e.errored / e.counted if e.counted else 0.0,
            "harness_faults": e.harness_faults,
            "cost_usd": sum(e.costs.values()) if e.costs is not None else None,
            "cost_note": e.cost_note,
            "p95_latency_s": _p95(e),
            "axes": dict(e.axes),
            "safety": list(e.safety),
            "judge_excluded": list(e.judge_excluded),
            "failed": [FailedTask(**vars(f)) for f in e.failed],
            "note": e.note,
            "languages": [
                LanguageScore(language=lang, n=n, mean=mean)
                for lang, (mean, n) in sorted(e.languages.items())
            ],
            **stats,
        }
    )


def _p95(e: EntryInput) -> float | None:
    return p95_point(e) if e.latencies else None


def _cohort(
    members: list[EntryInput], *, B: int, seed: int, frontier_B: int, level: float
) -> CohortRows:
    first = members[0]
    warnings: list[str] = []
    ranked = [e for e in members if e.status == "complete" and e.values]
    for e in members:
        if e.status != "complete" or not e.values:
            warnings.append(f"{e.key}: run {e.run_id} is {e.status}; listed, not ranked")
    tasks = sorted(set.intersection(*(set(e.values) for e in ranked))) if ranked else []
    union = sorted(set().union(*(set(e.values) for e in ranked))) if ranked else []
    if len(tasks) < len(union):
        warnings.append(f"ranked on the {len(tasks)} tasks every entry scored, of {len(union)}")
    if ranked and not tasks:
        ranked = []
    families = sorted({first.families[t] for t in tasks}) if tasks else []
    for f in families:
        n = sum(1 for t in tasks if first.families[t] == f)
        if n < SMALL_FAMILY:
            warnings.append(f"family {f} has {n} tasks (< {SMALL_FAMILY}): its interval is narrow")
    rows: list[EntryRow] = []
    if ranked:
        st = cohort_stats(ranked, tasks, B=B, seed=seed, frontier_B=frontier_B, level=level)
        for i, e in enumerate(ranked):
            rows.append(
                _row(
                    e,
                    ranked=True,
                    rank=st.rank_lo[i],
                    rank_hi=st.rank_hi[i],
                    headline=st.headline[i],
                    analytic_se=st.analytic_se[i],
                    pooled=st.pooled[i],
                    families=st.families[i],
                    pass_hat_k=st.pass_hat[i],
                    flakiness=st.flakiness[i],
                    frontier_probability=st.probability[i],
                    on_frontier=st.on_frontier[i],
                    dominated_95=st.dominated[i],
                )
            )
    rows.sort(
        key=lambda r: (
            r.rank or 0,
            -(r.headline.value if r.headline else 0.0),
            r.entrant,
            r.fingerprint,
        )
    )
    chosen = {id(e) for e in ranked}  # by identity: EntryInput equality compares every field
    for e in members:
        if id(e) not in chosen:
            rows.append(
                _row(e, ranked=False, headline=None, analytic_se=None, pooled=None, families=[])
            )
    measured = [r for r in rows if r.ranked and r.cost_usd is not None and r.headline]
    return CohortRows(
        cohort_key=first.cohort_key,
        title=f"{first.split or 'all'} split, task set {first.task_set_hash[:12]}, "
        f"{first.repeats} repeat{'s' if first.repeats != 1 else ''}, harness {first.harness}",
        task_set_hash=first.task_set_hash,
        split=first.split,
        repeats=first.repeats,
        harness=first.harness,
        ranked_on=len(tasks),
        families=families,
        rank_mode=RANK_MODE.format(pct=f"{(1 + level) / 2:.1%}"),
        entries=rows,
        cost_view=_stair(
            [
                (r.key, r.cost_usd, r.headline.value)
                for r in measured
                if r.cost_usd is not None and r.headline
            ]
        ),
        latency_view=_stair(
            [
                (r.key, r.p95_latency_s, r.headline.value)
                for r in rows
                if r.ranked and r.p95_latency_s is not None and r.headline
            ]
        ),
        cost_not_measured=[r.key for r in rows if r.cost_usd is None],
        warnings=warnings,
    )


def _stair(points: list[tuple[str, float | None, float]]) -> list[str]:
    if not points:
        return []
    from bench.stats import staircase

    order = staircase([p[1] or 0.0 for p in points], [p[2] for p in points])
    return [points[i][0] for i in order]


def build_rows(
    entries: Sequence[EntryInput],
    *,
    inputs_hash: str,
    seed: int,
    B: int,
    frontier_B: int = 1000,
    level: float = 0.95,
) -> Board:
    """The whole board from plain entries (any order: the result does not depend on it)."""
    by_cohort: dict[str, list[EntryInput]] = {}
    for e in latest_per_key(entries):
        by_cohort.setdefault(e.cohort_key, []).append(e)
    cohorts = [
        _cohort(by_cohort[k], B=B, seed=seed, frontier_B=frontier_B, level=level)
        for k in sorted(by_cohort)
    ]
    warnings = [f"cohort {c.cohort_key}: {w}" for c in cohorts for w in c.warnings]
    return Board(
        inputs_hash=inputs_hash,
        seed=seed,
        resamples=B,
        frontier_resamples=min(frontier_B, B),
        level=level,
        cohorts=cohorts,
        warnings=warnings,
    )


__all__ = ["build_rows", "latest_per_key"]
