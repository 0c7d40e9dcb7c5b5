"""Stage 2: entries -> the board's rows. Pure: plain values in, a :class:`Board` out.

- A cohort is a cohort key (task set hash, split, subset, suite, harness, repeats); cohorts are
  never ranked together; each is its own table. The board shows one suite per page
  (``build``); ``build_rows`` is given the entries of one page.
- Within a cohort, one row per (entrant, config fingerprint): the LATEST run by created time
  (then run id), never the best.
- Only complete runs are ranked, on the tasks every ranked entry scored; the rest are listed.
- Reference runs (no-model baselines, ``RunConfig.reference``) are listed, marked, after the
  ranked rows: never ranked, and in no rank, frontier or staircase computation.
- Every row's headline is its run's own (:func:`.entries.run_headline`: its tasks, its seed),
  the number every other surface prints for that run; ranks and the frontier rest on the
  cohort's shared resamples over the shared tasks.
- Rows sort by ``bench.reports.order.order_key``: rank_lo, the headline as shown (3 places),
  entrant, run id; reference rows, then unranked rows, follow by the same rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bench.core.suite import DEFAULT_SUITE_NAME
from bench.reports.order import SHOWN_DECIMALS, order_key
from bench.reports.terminal import P95_FEW

from .categories import category_scores
from .cohort import CohortStats, cohort_stats
from .entries import EntryInput, RunHeadline, engine_label, p95_point, run_headline
from .model import Board, CohortRows, EntryRow, Estimate, LanguageScore

RANK_MODE = (
    "per-pair paired bootstrap on the shared resamples: i beats j when i is ahead in more than "
    "{pct} of them (exact sign-flip test instead when fewer than 30 tasks); printed rank = 1 + "
    "rows that certainly beat it (rows, not distinct entrants); not simultaneous over all pairs"
)
SMALL_FAMILY = 10
POINT_NOTE = "every family is constant: the interval is a single point"
"""As ``bench show`` says it (``bench.stats.stratified_headline``'s warning)."""
ORDER = (
    f"rank (best end), then the headline as shown ({SHOWN_DECIMALS} places), then entrant id, "
    "then run id; reference rows, then unranked rows, follow in the same order"
)


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
            "attempts": e.counted,
            # no attempt counted: no rate (a "0.0 %" would say it never errored)
            "error_rate": e.errored / e.counted if e.counted else None,
            "harness_faults": e.harness_faults,
            "cost_usd": sum(e.costs.values()) if e.costs is not None else None,
            "cost_note": e.cost_note,
            "p95_latency_s": _p95(e),
            "p95_note": p95_note(len(e.latencies)) if e.latencies else None,
            "axes": dict(e.axes),
            "safety": list(e.safety),
            "judge_excluded": list(e.judge_excluded),
            # plain mappings, validated in this one call (made one object at a time they
            # took 1.3x the CPU: 160,000 failed tasks on a board of 100 BFCL entrants)
            "failed": [vars(f) for f in e.failed],
            "not_scored": [vars(n) for n in e.not_scored],
            "engine": engine_label(e.config),
            "note": e.note,
            "reference": e.reference,
            "subset": e.subset,
            "languages": [
                LanguageScore(language=lang, n=n, mean=mean)
                for lang, (mean, n) in sorted(e.languages.items())
            ],
            **stats,
        }
    )


def _p95(e: EntryInput) -> float | None:
    return p95_point(e) if e.latencies else None


def p95_note(attempts: int) -> str | None:
    """What a p95 over ``attempts`` timed attempts is, as ``bench show`` says it: below
    ``P95_FEW`` the inverted-CDF p95 is the slowest attempt; None from ``P95_FEW`` on."""
    if attempts >= P95_FEW:
        return None
    return f"the slowest of {attempts} attempt(s): fewer than {P95_FEW}"


def _estimate(head: RunHeadline) -> Estimate:
    return Estimate(value=head.value, lo=head.lo, hi=head.hi, method=head.method)


def _stats_of(
    e: EntryInput, st: CohortStats, i: int, *, level: float, ranked: bool
) -> dict[str, object]:
    """The row's statistics: the run's own headline; the rest from the cohort's resamples."""
    head = run_headline(e, level)
    return {
        "ranked": ranked,
        "rank": st.rank_lo[i] if ranked else None,
        "rank_hi": st.rank_hi[i] if ranked else None,
        "headline": _estimate(head),
        "headline_note": POINT_NOTE if head.lo == head.hi else None,
        "analytic_se": head.analytic_se,
        "pooled": head.pooled,
        "families": st.families[i],
        "pass_hat_k": st.pass_hat[i],
        "flakiness": st.flakiness[i],
        "frontier_probability": st.probability[i] if ranked else None,
        "on_frontier": st.on_frontier[i] if ranked else False,
        "dominated_95": st.dominated[i] if ranked else False,
    }


def limit_notes(ranked: list[EntryInput]) -> list[str]:
    """A note for rows ranked together whose runs set other time limits (``--timeout``) or task
    budgets than the rest: neither is in the cohort key, and verification cannot check the
    limit a run really had (latency is the submitter's own clock), so a reader is told."""
    notes = []
    for key, what in (("time_limit_s", "attempt time limits"), ("task_budget", "task budgets")):
        chosen = {e.key: e.config.get(key) for e in ranked}
        if len({repr(v) for v in chosen.values()}) < 2:
            continue
        shown = "; ".join(f"{k}: {_limit(v)}" for k, v in sorted(chosen.items()) if v is not None)
        notes.append(
            f"these rows ran with other {what} than the rest (the submitter's setting, not in "
            f"the cohort key, not checked by verification): {shown}; every other row: each "
            "task's own"
        )
    return notes


def resample_notes(
    ranked: int,
    tasks: int,
    probability: Sequence[float | None],
    *,
    B: int,
    frontier_B: int,
    level: float,
) -> list[str]:
    """What too few resamples leave undecided (``bench.stats.ranks.min_resamples``): every
    rank the bootstrap decides (30 tasks or more) when ``B`` is under 200 at 95 %; and, when
    the frontier's resamples are under 100, the "dominated with 95 % confidence" mark a row's
    frontier membership (``probability``) would otherwise have earned."""
    from bench.stats.paired import SMALL_N
    from bench.stats.ranks import min_resamples

    notes = []
    floor = min_resamples((1.0 - level) / 2.0)
    if ranked >= 2 and tasks >= SMALL_N and floor > B:
        notes.append(
            f"{B} resample(s) are too few to tell rows apart (at least {floor}): no row is "
            "shown ahead of another, whatever its headline"
        )
    frontier = min(frontier_B, B)
    floor = min_resamples(1.0 - level)
    if frontier < floor and any(p is not None and p <= 1.0 - level for p in probability):
        notes.append(
            f"frontier membership rests on {frontier} resample(s), too few to mark a row "
            f"dominated with {level:.0%} confidence (at least {floor}): none is marked"
        )
    return notes


def _limit(value: object) -> str:
    if isinstance(value, int | float):
        return f"{value:g} s"
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {v}" for k, v in sorted(value.items()))
    return str(value)


def _cohort(
    members: list[EntryInput], *, B: int, seed: int, frontier_B: int, level: float
) -> CohortRows:
    first = members[0]
    warnings: list[str] = []
    if first.subset:
        warnings.append(
            f"{first.subset}: these runs left out tasks of the split; ranked only with each "
            "other, never with whole-split runs"
        )
    listed = [e for e in members if e.status == "complete" and e.values]
    ranked = [e for e in listed if e.reference is None]
    references = [e for e in listed if e.reference is not None]
    for e in members:
        if e.status != "complete" or not e.values:
            warnings.append(f"{e.key}: run {e.run_id} is {e.status}; listed, not ranked")
    tasks = sorted(set.intersection(*(set(e.values) for e in ranked))) if ranked else []
    union = sorted(set().union(*(set(e.values) for e in ranked))) if ranked else []
    if len(tasks) < len(union):
        warnings.append(f"ranked on the {len(tasks)} tasks every entry scored, of {len(union)}")
    if ranked and not tasks:
        ranked = []
    warnings += limit_notes(ranked)
    # From a ranked entry: every one scored each of ``tasks``. The first member may be a run
    # cut short (listed, not ranked), which lacks most of them.
    family_of = ranked[0].families if ranked else {}
    families = sorted({family_of[t] for t in tasks})
    family_notes: dict[str, str] = {}
    for f in families:
        n = sum(1 for t in tasks if family_of[t] == f)
        if n < SMALL_FAMILY:
            from bench.stats.headline import small_family_note  # numpy: only when building

            family_notes[f] = small_family_note(f, n)
            warnings.append(family_notes[f])
    # An imported suite's categories (BFCL's): each row's own figures, as bench suite scores
    # prints them for its run; none for a row that shows no score (unranked, below).
    names, per_row = category_scores([*ranked, *references], level)
    categories = {id(e): scores for e, scores in zip([*ranked, *references], per_row, strict=True)}
    rows: list[EntryRow] = []
    if ranked:
        st = cohort_stats(ranked, tasks, B=B, seed=seed, frontier_B=frontier_B, level=level)
        warnings += resample_notes(
            len(ranked), len(tasks), st.probability, B=B, frontier_B=frontier_B, level=level
        )
        if len(ranked) == 1:
            warnings.append(ALONE)
        for i, e in enumerate(ranked):
            stats = _stats_of(e, st, i, level=level, ranked=True)
            rows.append(_row(e, **stats, categories=categories[id(e)]))
    for e in references:  # alone: a reference row changes no other row
        own = sorted(e.values)
        st = cohort_stats([e], own, B=B, seed=seed, frontier_B=frontier_B, level=level)
        stats = _stats_of(e, st, 0, level=level, ranked=False)
        rows.append(_row(e, **stats, categories=categories[id(e)]))
    # By identity: EntryInput equality compares every field.
    chosen = {id(e) for e in ranked} | {id(e) for e in references}
    for e in members:
        if id(e) not in chosen:
            # Not ranked, and no score of any kind: a partial run's means cover only the
            # attempts it did, which its submitter chose where the run stopped (a run with
            # its failures cut off and called partial would show 1.000 per axis and language).
            rows.append(
                _row(
                    e,
                    ranked=False,
                    headline=None,
                    analytic_se=None,
                    pooled=None,
                    families=[],
                    axes={},
                    languages=[],
                )
            )
    rows.sort(
        key=lambda r: order_key(
            r.rank,
            r.headline.value if r.headline else None,
            r.entrant,
            r.run_id,
            group=0 if r.ranked else 1 if r.reference is not None and r.headline else 2,
        )
    )
    measured = [r for r in rows if r.ranked and r.cost_usd is not None and r.headline]
    split = f"{first.split or 'all'} split"
    if first.subset:
        split += f" ({first.subset})"
    suite = suite_label(first)
    if suite is not None:
        split = f"{suite}, {split}"
    return CohortRows(
        cohort_key=first.cohort_key,
        suite=suite,
        title=f"{split}, task set {first.task_set_hash[:12]}, "
        f"{first.repeats} repeat{'s' if first.repeats != 1 else ''}, harness {first.harness}",
        task_set_hash=first.task_set_hash,
        split=first.split,
        subset=first.subset,
        repeats=first.repeats,
        harness=first.harness,
        ranked_on=len(tasks),
        families=families,
        family_notes=family_notes,
        categories=names,
        rank_mode=RANK_MODE.format(pct=f"{(1 + level) / 2:.1%}"),
        order=ORDER,
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


def suite_label(e: EntryInput) -> str | None:
    """``bfcl-v4 2026.3.23`` for a run of an imported suite; None for bench-suite's own."""
    if e.suite == DEFAULT_SUITE_NAME and e.suite_version is None:
        return None
    return e.suite if e.suite_version is None else f"{e.suite} {e.suite_version}"


def _stair(points: list[tuple[str, float | None, float]]) -> list[str]:
    if not points:
        return []
    from bench.stats import staircase

    order = staircase([p[1] or 0.0 for p in points], [p[2] for p in points])
    return [points[i][0] for i in order]


def cohort_order(cohort: CohortRows) -> tuple[int, bool, str]:
    """Cohorts in the order a reader meets them: most ranked rows first, whole-split runs
    before subsets, then by key. By key alone (a hash), a run made with another number of
    repeats or on a chosen subset formed a cohort of its own that could open the page, its one
    row shown "rank 1" above every shipped entry."""
    ranked = sum(1 for row in cohort.entries if row.ranked)
    return (-ranked, cohort.subset is not None, cohort.cohort_key)


ALONE = (
    "the only ranked entry of its cohort: its rank compares it with no one, and it is never "
    "compared with the rows of other cohorts"
)


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
        _cohort(by_cohort[k], B=B, seed=seed, frontier_B=frontier_B, level=level) for k in by_cohort
    ]
    cohorts.sort(key=cohort_order)
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


__all__ = [
    "ALONE",
    "build_rows",
    "cohort_order",
    "latest_per_key",
    "limit_notes",
    "p95_note",
    "suite_label",
]
