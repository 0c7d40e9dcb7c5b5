"""Run history in SQLite (stdlib ``sqlite3``, WAL): one row per run, one per task value.

Traces stay in the run directory; the database holds what the history, the leaderboard and
the export read. ``PRAGMA user_version`` is the schema version; :data:`MIGRATIONS` are applied
in order on open, and a database newer than this code is refused (``HISTORY_TOO_NEW``).
:func:`index_run` is idempotent: indexing a run again replaces its rows.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from bench.core.clock import utc_now
from bench.core.errors import RunStoreError
from bench.records.store import RunDir, RunStore

from .summary import RunSummary, summarize

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE runs (
        run_id TEXT PRIMARY KEY,
        run_dir TEXT NOT NULL,
        created_at TEXT NOT NULL,
        indexed_at TEXT NOT NULL,
        status_updated_at TEXT NOT NULL,
        entrant TEXT NOT NULL,
        display_name TEXT NOT NULL,
        model TEXT,
        target_kind TEXT NOT NULL,
        harness_version TEXT NOT NULL,
        task_set_hash TEXT NOT NULL,
        split TEXT,
        repeats INTEGER NOT NULL,
        seed INTEGER NOT NULL,
        fingerprint TEXT NOT NULL,
        cohort_key TEXT NOT NULL,
        status TEXT NOT NULL,
        headline REAL,
        headline_lo REAL,
        headline_hi REAL,
        headline_method TEXT,
        pooled REAL,
        tasks_total INTEGER NOT NULL,
        tasks_scored INTEGER NOT NULL,
        tasks_passed INTEGER NOT NULL,
        attempts_total INTEGER NOT NULL,
        errored INTEGER NOT NULL,
        over_budget INTEGER NOT NULL,
        not_scorable INTEGER NOT NULL,
        skipped INTEGER NOT NULL,
        harness_faults INTEGER NOT NULL,
        safety_violations INTEGER NOT NULL,
        cost_usd REAL,
        tokens INTEGER NOT NULL,
        p95_latency_s REAL,
        config_json TEXT NOT NULL
    );
    CREATE TABLE task_values (
        run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
        task_id TEXT NOT NULL,
        family TEXT NOT NULL,
        value REAL NOT NULL,
        passed INTEGER NOT NULL,
        PRIMARY KEY (run_id, task_id)
    );
    CREATE INDEX runs_cohort ON runs(cohort_key, entrant, fingerprint, created_at);
    CREATE INDEX runs_created ON runs(created_at);
    """,
    # 2: a run on a subset of its split, and a reference (baseline) run, are said so; every
    # run indexed before is marked stale (an empty status time), so the next sync re-reads it.
    """
    ALTER TABLE runs ADD COLUMN subset TEXT;
    ALTER TABLE runs ADD COLUMN reference TEXT;
    UPDATE runs SET status_updated_at = '';
    """,
    # 3: the suite a run's task set belongs to (``bfcl-v4 2026.3.23``; ``bench-suite`` for the
    # project's own); every run indexed before is re-read, as in 2.
    """
    ALTER TABLE runs ADD COLUMN suite TEXT;
    UPDATE runs SET status_updated_at = '';
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)
DEFAULT_DB = "history.sqlite3"


def stamp(moment: datetime) -> str:
    """UTC ISO 8601 with microseconds: sorts as text in time order."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def open_db(path: Path) -> sqlite3.Connection:
    """Open (creating and migrating) the history database at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA foreign_keys=ON")
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            db.close()
            raise RunStoreError(
                f"history schema version {version} is newer than this bench "
                f"({SCHEMA_VERSION}); upgrade bench-suite",
                code="HISTORY_TOO_NEW",
                path=path,
            )
        for number in range(version, SCHEMA_VERSION):
            db.executescript(
                f"BEGIN; {MIGRATIONS[number]} PRAGMA user_version = {number + 1}; COMMIT;"
            )
    except sqlite3.DatabaseError as exc:
        raise RunStoreError(
            f"not a usable history database ({exc})", code="HISTORY_CORRUPT", path=path
        ) from None
    db.row_factory = sqlite3.Row
    return db


def index_run(db: sqlite3.Connection, run_dir: Path, summary: RunSummary | None = None) -> str:
    """Record (or re-record) one run; returns its id. Idempotent. ``summary``: the run's
    summary when the caller already has it (``bench run`` prints it too), so the attempt files
    are not read and checked again; it must be ``summarize(RunDir(run_dir))``."""
    if summary is None:
        summary = summarize(RunDir(run_dir))
    config, status, head = summary.config, summary.status, summary.headline
    o = summary.outcomes
    model = config.target.get("model")
    row = {
        "run_id": config.run_id,
        "run_dir": str(run_dir.resolve()),
        "created_at": stamp(config.created_at),
        "indexed_at": stamp(utc_now()),
        "status_updated_at": stamp(status.updated_at),
        "entrant": config.entrant,
        "display_name": config.display_name,
        "model": None if model is None else str(model),
        "target_kind": config.target_kind,
        "harness_version": config.harness_version,
        "task_set_hash": config.task_set.content_hash,
        "split": config.task_set.split,
        "repeats": config.repeats,
        "seed": config.seed,
        "fingerprint": config.fingerprint(),
        "cohort_key": config.cohort_key(),
        "subset": config.task_set.subset_label(),
        "reference": config.reference(),
        "suite": config.task_set.suite_label(),
        "status": status.status,
        "headline": None if head is None else head.score.value,
        "headline_lo": None if head is None else head.score.interval.lo,
        "headline_hi": None if head is None else head.score.interval.hi,
        "headline_method": None if head is None else head.score.interval.method,
        "pooled": None if head is None else head.pooled,
        "tasks_total": len(config.task_set.task_ids),
        "tasks_scored": summary.scored_tasks,
        "tasks_passed": summary.passed_tasks,
        "attempts_total": status.attempts_total,
        "errored": o.get("errored", 0),
        "over_budget": o.get("over_budget", 0),
        "not_scorable": o.get("not_scorable", 0),
        "skipped": len(status.skipped),
        "harness_faults": summary.harness_faults,
        "safety_violations": len(summary.safety),
        "cost_usd": summary.cost_usd,
        "tokens": summary.tokens,
        "p95_latency_s": summary.p95_latency_s,
        "config_json": json.dumps(config.model_dump(mode="json"), sort_keys=True),
    }
    columns = ", ".join(row)
    marks = ", ".join(f":{k}" for k in row)
    tasks = [
        (config.run_id, s.task_id, s.family, s.value, int(s.passed))
        for s in summary.task_scores
        if s.value is not None
    ]
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute("DELETE FROM task_values WHERE run_id = ?", (config.run_id,))
        db.execute("DELETE FROM runs WHERE run_id = ?", (config.run_id,))
        db.execute(f"INSERT INTO runs ({columns}) VALUES ({marks})", row)
        db.executemany("INSERT INTO task_values VALUES (?, ?, ?, ?, ?)", tasks)
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
    return config.run_id


def sync(db: sqlite3.Connection, runs_dir: Path) -> list[str]:
    """Index every run under ``runs_dir`` that is new or whose status changed since."""
    known = {
        r["run_id"]: r["status_updated_at"]
        for r in db.execute("SELECT run_id, status_updated_at FROM runs")
    }
    indexed = []
    for run in RunStore(runs_dir).runs():
        seen = known.get(run.run_id)
        if seen is not None and seen == stamp(run.status().updated_at):
            continue
        indexed.append(index_run(db, run.path))
    return indexed


__all__ = ["DEFAULT_DB", "MIGRATIONS", "SCHEMA_VERSION", "index_run", "open_db", "stamp", "sync"]
