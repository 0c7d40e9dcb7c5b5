"""Reading the history: the run list, the local leaderboard and the export.

Leaderboard rule (docs/REPORTS.md): complete runs only; grouped by cohort key; the latest run
per (entrant, config fingerprint); ranked on the tasks every ranked entry of the cohort scored,
with tie-aware ranks from the shared seeded resample matrix (``bench.stats.ranks``); reference
(baseline) runs listed after them, never ranked; sorted by :func:`.order.order_key` (rank_lo,
the headline as shown, entrant, run id), the order the board uses too.
"""

from __future__ import annotations

import sqlite3

from bench.core.models import Strict
from bench.core.rng import DEFAULT_SEED

from .order import order_key


class HistoryRow(Strict):
    run_id: str
    created_at: str
    entrant: str
    display_name: str
    model: str | None
    status: str
    fingerprint: str
    cohort_key: str
    subset: str | None = None
    """``subset: 43 of 86 public tasks`` for a run on part of its split."""
    reference: str | None = None
    """The baseline's name for a reference run (never ranked)."""
    suite: str | None = None
    """The suite of the run's task set: ``bfcl-v4 2026.3.23``, ``bench-suite`` (the project's)."""
    split: str | None
    repeats: int
    headline: float | None
    headline_lo: float | None
    headline_hi: float | None
    tasks_total: int
    tasks_scored: int
    tasks_passed: int
    errored: int
    skipped: int
    harness_faults: int
    safety_violations: int
    cost_usd: float | None
    """None: not measured (any counted attempt without a cost); ``cost_note`` says why."""
    cost_note: str
    """As the terminal report says it: ``$0.001234``, ``not measured (1 of 3 attempts report
    no cost)``."""
    tokens: int | None
    """None: no attempt reported tokens (never 0); a sum over some attempts when
    ``tokens_measured`` is fewer than the attempts, and ``tokens_note`` says so."""
    tokens_measured: int | None
    """Attempts whose entrant reported tokens; None for a row an older bench indexed whose
    run directory is gone."""
    tokens_note: str
    """``1234``, ``1234 (2 of 6 attempts report no tokens)`` or ``not measured``."""
    run_dir: str


class BoardEntry(Strict):
    rank_lo: int | None
    """None for a reference run: listed, never ranked."""
    rank_hi: int | None
    run: HistoryRow
    ranked_on: int
    """Number of tasks the ranks rest on (scored by every ranked entry of the cohort)."""
    reference: bool = False


class Cohort(Strict):
    cohort_key: str
    split: str | None
    subset: str | None = None
    suite: str | None = None
    """Every run of a cohort is of one suite (the suite is part of the cohort key)."""
    repeats: int
    seed: int
    B: int
    mode: str
    entries: list[BoardEntry]


_FIELDS = ", ".join(HistoryRow.model_fields)


def list_runs(
    db: sqlite3.Connection,
    *,
    entrant: str | None = None,
    model: str | None = None,
    fingerprint: str | None = None,
    limit: int | None = None,
) -> list[HistoryRow]:
    """Newest first, filtered by exact entrant, model or fingerprint (prefix)."""
    where, args = [], []
    for column, value in (("entrant", entrant), ("model", model)):
        if value is not None:
            where.append(f"{column} = ?")
            args.append(value)
    if fingerprint is not None:
        where.append("fingerprint LIKE ? ESCAPE '\\'")
        args.append(fingerprint.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
    sql = f"SELECT {_FIELDS} FROM runs"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY created_at DESC, run_id DESC"
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    return [HistoryRow.model_validate(dict(row)) for row in db.execute(sql, args)]


def _latest(db: sqlite3.Connection) -> dict[str, list[HistoryRow]]:
    cohorts: dict[str, dict[tuple[str, str], HistoryRow]] = {}
    for run in reversed(list_runs(db)):  # oldest first: later runs replace earlier ones
        if run.status != "complete" or run.headline is None:
            continue
        cohorts.setdefault(run.cohort_key, {})[(run.entrant, run.fingerprint)] = run
    return {key: list(runs.values()) for key, runs in sorted(cohorts.items())}


def _ranks(
    db: sqlite3.Connection, runs: list[HistoryRow], B: int, seed: int, alpha: float
) -> tuple[list[int], list[int], int]:
    """Tie-aware ranks of ``runs`` on the tasks all of them scored, and how many those are."""
    from bench.stats import headline_bootstrap, task_weights
    from bench.stats.ranks import tie_ranks

    if not runs:
        return [], [], 0
    values: list[dict[str, tuple[str, float]]] = []
    for run in runs:
        rows = db.execute(
            "SELECT task_id, family, value FROM task_values WHERE run_id = ?", (run.run_id,)
        )
        values.append({r["task_id"]: (r["family"], float(r["value"])) for r in rows})
    shared = sorted(set.intersection(*(set(v) for v in values)))
    if not shared:
        return [1] * len(runs), [len(runs)] * len(runs), 0
    families = [values[0][t][0] for t in shared]
    X = [[v[t][1] for t in shared] for v in values]
    M = headline_bootstrap(X, families, B, seed)
    lo, hi = tie_ranks(M, alpha, X=X, weights=list(task_weights(families)))
    return list(lo), list(hi), len(shared)


def leaderboard(
    db: sqlite3.Connection, *, B: int = 2000, seed: int = DEFAULT_SEED, alpha: float = 0.05
) -> list[Cohort]:
    from bench.stats.paired import SMALL_N

    out = []
    for key, runs in _latest(db).items():
        ranked = [run for run in runs if run.reference is None]
        references = [run for run in runs if run.reference is not None]
        lo, hi, n_shared = _ranks(db, ranked, B, seed, alpha)
        mode = (
            f"pairwise, alpha={alpha}: "
            + (
                f"sign-flip test (< {SMALL_N} shared tasks)"
                if n_shared < SMALL_N
                else f"paired stratified bootstrap B={B}, seed={seed}"
            )  # fmt: skip
        )
        entries = [
            BoardEntry(rank_lo=a, rank_hi=b, run=run, ranked_on=n_shared)
            for a, b, run in zip(lo, hi, ranked, strict=True)
        ]
        entries += [
            BoardEntry(rank_lo=None, rank_hi=None, run=run, ranked_on=n_shared, reference=True)
            for run in references
        ]
        entries.sort(
            key=lambda e: order_key(
                e.rank_lo, e.run.headline, e.run.entrant, e.run.run_id, group=int(e.reference)
            )
        )
        first = runs[0]
        out.append(
            Cohort(
                cohort_key=key,
                split=first.split,
                subset=first.subset,
                suite=first.suite,
                repeats=first.repeats,
                seed=seed,
                B=B,
                mode=mode,
                entries=entries,
            )  # fmt: skip
        )
    return out


__all__ = ["BoardEntry", "Cohort", "HistoryRow", "leaderboard", "list_runs"]
