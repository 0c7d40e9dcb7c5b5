"""Run history in SQLite (stdlib ``sqlite3``, WAL): one row per run, one per task value.

Traces stay in the run directory; the database holds what the history, the leaderboard and
the export read. ``PRAGMA user_version`` is the schema version; :data:`MIGRATIONS` are applied
in order on open, each in one ``BEGIN IMMEDIATE`` transaction with foreign keys off (SQLite's
procedure for rebuilding a table: with them on, dropping ``runs`` would delete every
``task_values`` row through ``ON DELETE CASCADE``) and ``PRAGMA foreign_key_check`` before it
commits. A database newer than this code is refused (``HISTORY_TOO_NEW``) before anything is
written to it. :func:`index_run` is idempotent: indexing a run again replaces its rows.

Unknown is never 0 (docs/SCORING.md): ``cost_usd`` and ``tokens`` are NULL when not measured,
``cost_note`` and ``tokens_note`` say it as the terminal report does (``not measured``,
``1234 (2 of 6 attempts report no tokens)``), and ``tokens_measured`` counts the attempts
whose entrant reported tokens.
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
    # 4: tokens not measured are NULL, not 0, and a partial sum says so (``tokens_measured``,
    # ``tokens_note``); the cost says why it is not measured (``cost_note``). ``tokens`` was
    # NOT NULL, a constraint SQLite cannot drop in place, so ``runs`` is rebuilt (foreign keys
    # off: see the module docstring). A row indexed before cannot tell a measured 0 from none
    # measured, nor a whole sum from a partial one: 0 becomes NULL (not measured) and a sum
    # says it may be partial, until the next sync re-reads the run from its directory (every
    # row is marked stale, as in 2); a row whose directory is gone keeps those words.
    """
    CREATE TABLE runs_new (
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
        cost_note TEXT NOT NULL,
        tokens INTEGER,
        tokens_measured INTEGER,
        tokens_note TEXT NOT NULL,
        p95_latency_s REAL,
        config_json TEXT NOT NULL,
        subset TEXT,
        reference TEXT,
        suite TEXT
    );
    INSERT INTO runs_new (
        run_id, run_dir, created_at, indexed_at, status_updated_at, entrant, display_name,
        model, target_kind, harness_version, task_set_hash, split, repeats, seed, fingerprint,
        cohort_key, status, headline, headline_lo, headline_hi, headline_method, pooled,
        tasks_total, tasks_scored, tasks_passed, attempts_total, errored, over_budget,
        not_scorable, skipped, harness_faults, safety_violations, cost_usd, cost_note, tokens,
        tokens_measured, tokens_note, p95_latency_s, config_json, subset, reference, suite
    )
    SELECT
        run_id, run_dir, created_at, indexed_at, '', entrant, display_name,
        model, target_kind, harness_version, task_set_hash, split, repeats, seed, fingerprint,
        cohort_key, status, headline, headline_lo, headline_hi, headline_method, pooled,
        tasks_total, tasks_scored, tasks_passed, attempts_total, errored, over_budget,
        not_scorable, skipped, harness_faults, safety_violations, cost_usd,
        CASE WHEN cost_usd IS NULL THEN 'not measured' ELSE printf('$%.6f', cost_usd) END,
        CASE WHEN tokens = 0 THEN NULL ELSE tokens END,
        NULL,
        CASE WHEN tokens = 0 THEN 'not measured'
             ELSE tokens || ' (may leave out attempts that reported no tokens: indexed by an '
                  || 'older bench)' END,
        p95_latency_s, config_json, subset, reference, suite
    FROM runs;
    DROP TABLE runs;
    ALTER TABLE runs_new RENAME TO runs;
    CREATE INDEX runs_cohort ON runs(cohort_key, entrant, fingerprint, created_at);
    CREATE INDEX runs_created ON runs(created_at);
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)
DEFAULT_DB = "history.sqlite3"


def stamp(moment: datetime) -> str:
    """UTC ISO 8601 with microseconds: sorts as text in time order."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _too_new(version: int, path: Path) -> RunStoreError:
    return RunStoreError(
        f"history schema version {version} is newer than this bench ({SCHEMA_VERSION}); "
        "upgrade bench-suite (the database is left as it is)",
        code="HISTORY_TOO_NEW",
        path=path,
    )


def _statements(script: str) -> list[str]:
    """``script`` cut into its SQL statements (a ``;`` inside a string literal stays)."""
    out, pending = [], ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n;"):
                out.append(pending.strip())
            pending = ""
    return out


def _migrate(db: sqlite3.Connection, path: Path) -> None:
    """Apply the migrations the database lacks, each once, in its own transaction.

    ``BEGIN IMMEDIATE`` takes the write lock before the version is read again, so two
    processes opening an old database at once migrate it once; a migration that fails (or
    leaves a broken foreign key) is rolled back whole, leaving the database as it was."""
    db.execute("PRAGMA foreign_keys=OFF")  # a no-op inside a transaction: set before BEGIN
    try:
        for number in range(SCHEMA_VERSION):
            db.execute("BEGIN IMMEDIATE")
            try:
                version = int(db.execute("PRAGMA user_version").fetchone()[0])
                if version <= number:
                    for statement in _statements(MIGRATIONS[number]):
                        db.execute(statement)
                    broken = db.execute("PRAGMA foreign_key_check").fetchall()
                    if broken:
                        raise RunStoreError(
                            f"migration {number + 1} would leave {len(broken)} row(s) whose "
                            f"foreign key points nowhere (first: table {broken[0][0]}); the "
                            "database is left as it was",
                            code="HISTORY_CORRUPT",
                            path=path,
                        )
                    db.execute(f"PRAGMA user_version = {number + 1}")
                db.execute("COMMIT")
            except BaseException:
                _rollback(db)
                raise
    finally:
        db.execute("PRAGMA foreign_keys=ON")


def open_db(path: Path) -> sqlite3.Connection:
    """Open (creating and migrating) the history database at ``path``. A database newer
    than this code is refused (``HISTORY_TOO_NEW``) before anything is written to it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        db = sqlite3.connect(path, isolation_level=None)
        try:
            # The version first: switching a newer database to WAL would alter its file.
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            if version > SCHEMA_VERSION:
                raise _too_new(version, path)
            db.execute("PRAGMA journal_mode=WAL")
            if version < SCHEMA_VERSION:
                _migrate(db, path)
                version = int(db.execute("PRAGMA user_version").fetchone()[0])
                if version > SCHEMA_VERSION:  # a newer bench migrated it meanwhile
                    raise _too_new(version, path)
            db.execute("PRAGMA foreign_keys=ON")
        except BaseException:
            db.close()
            raise
    except sqlite3.Error as exc:
        raise refusal(exc, path) from None
    db.row_factory = sqlite3.Row
    return db


def refusal(exc: sqlite3.Error, path: Path | str) -> Exception:
    """What a SQLite error on the history database at ``path`` is, said truly: the file
    system's refusal (an ``OSError`` naming the file: IO_ERROR; a full disk was
    HISTORY_CORRUPT), another process holding it (``HISTORY_BUSY``), or a file that is not a
    usable database (``HISTORY_CORRUPT``)."""
    from bench.core.sqlerrors import disk_refusal, is_busy

    refused = disk_refusal(exc, path, "the run history")
    if refused is not None:
        return refused
    if is_busy(exc):
        return RunStoreError(
            f"another process holds the history database ({exc}); run the command again "
            "when it is done (nothing was changed)",
            code="HISTORY_BUSY",
            path=path,
        )
    return RunStoreError(
        f"not a usable history database ({exc})", code="HISTORY_CORRUPT", path=path
    )


def _path_of(db: sqlite3.Connection) -> str:
    try:
        return str(db.execute("PRAGMA database_list").fetchone()[2]) or "history database"
    except sqlite3.Error:
        return "history database"


def _rollback(db: sqlite3.Connection) -> None:
    """Roll back the open transaction, if SQLite has not already (it does on a full disk);
    a failing rollback never hides the error that caused it."""
    if db.in_transaction:
        try:  # noqa: SIM105 - the error being raised is the one to report
            db.execute("ROLLBACK")
        except sqlite3.Error:
            pass


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
        "cost_note": summary.cost_note,
        "tokens": summary.tokens_or_none,
        "tokens_measured": (
            len(summary.records) if summary.tokens_measured < 0 else summary.tokens_measured
        ),
        "tokens_note": summary.tokens_note,
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
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("DELETE FROM task_values WHERE run_id = ?", (config.run_id,))
            db.execute("DELETE FROM runs WHERE run_id = ?", (config.run_id,))
            db.execute(f"INSERT INTO runs ({columns}) VALUES ({marks})", row)
            db.executemany("INSERT INTO task_values VALUES (?, ?, ?, ?, ?)", tasks)
            db.execute("COMMIT")
        except BaseException:
            _rollback(db)
            raise
    except sqlite3.Error as exc:  # a full disk at COMMIT was a traceback
        raise refusal(exc, _path_of(db)) from None
    return config.run_id


def sync(db: sqlite3.Connection, runs_dir: Path) -> list[str]:
    """Index every run under ``runs_dir`` that is new or whose status changed since."""
    try:
        known = {
            r["run_id"]: r["status_updated_at"]
            for r in db.execute("SELECT run_id, status_updated_at FROM runs")
        }
    except sqlite3.Error as exc:
        raise refusal(exc, _path_of(db)) from None
    indexed = []
    for run in RunStore(runs_dir).runs():
        seen = known.get(run.run_id)
        if seen is not None and seen == stamp(run.status().updated_at):
            continue
        indexed.append(index_run(db, run.path))
    return indexed


__all__ = [
    "DEFAULT_DB",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "index_run",
    "open_db",
    "refusal",
    "stamp",
    "sync",
]
