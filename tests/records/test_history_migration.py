"""The history database of an older bench opens, migrates once, and keeps every row.

``OLD_SCHEMA`` is what the code at schema version 3 (before tokens could be NULL) left on disk:
``MIGRATIONS[0:3]`` of ``bench.reports.history`` as they were, folded into the table they
built. A database made with it, filled with rows of runs whose directories are here and of
runs whose directories are gone, must open with the new code with every ``runs`` and
``task_values`` row kept (``runs`` is rebuilt to drop ``tokens NOT NULL``, and dropping it with
foreign keys on would delete every task value through ``ON DELETE CASCADE``), the unknown
read as unknown, and each surface saying "not measured" where nothing was measured.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench.cli.main import cli
from bench.core.errors import RunStoreError
from bench.records.store import RunDir
from bench.reports import summarize
from bench.reports.board import leaderboard, list_runs
from bench.reports.history import SCHEMA_VERSION, open_db, sync
from bench.runner import RunRequest, start_run

OLD_VERSION = 3
OLD_SCHEMA = """
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
    config_json TEXT NOT NULL,
    subset TEXT,
    reference TEXT,
    suite TEXT
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
"""
OLD_COLUMNS = (
    "run_id", "run_dir", "created_at", "indexed_at", "status_updated_at", "entrant",
    "display_name", "model", "target_kind", "harness_version", "task_set_hash", "split",
    "repeats", "seed", "fingerprint", "cohort_key", "status", "headline", "headline_lo",
    "headline_hi", "headline_method", "pooled", "tasks_total", "tasks_scored", "tasks_passed",
    "attempts_total", "errored", "over_budget", "not_scorable", "skipped", "harness_faults",
    "safety_violations", "cost_usd", "tokens", "p95_latency_s", "config_json", "subset",
    "reference", "suite",
)  # fmt: skip

PARTIAL_USAGE = '''

def partial_usage(request: ModelRequest) -> ModelResponse:
    """``good``, but the endpoint reports no tokens on refunds."""
    response = good(request)
    if "Refund" in _question(request):
        return response.model_copy(update={"usage": None})
    return response
'''


def _run(mini: Path, agent: str, runs: Path) -> RunDir:
    target = mini / "targets" / f"{agent}.yaml"
    if not target.exists():
        target.write_text(
            f"format_version: 1\nkind: scripted\nentrant: mini-{agent.replace('_', '-')}\n"
            f"display_name: {agent}\nmodel: mini-{agent}\ncallable: ../agents.py:{agent}\n"
            "pricing: {prompt_per_mtok: 1.0, completion_per_mtok: 2.0}\n",
            encoding="utf-8",
        )
    run, status = start_run(
        RunRequest(tasks=mini / "tasks", target_file=target, split="public", runs_dir=runs)
    )
    assert status.status == "complete"
    return run


def _old_row(run: RunDir, tokens: int) -> dict[str, object]:
    """The row the old code wrote for ``run``: ``tokens`` 0 when none was reported."""
    summary = summarize(run)
    config, head = summary.config, summary.headline
    assert head is not None
    return {
        "run_id": config.run_id,
        "run_dir": str(run.path),
        "created_at": config.created_at.isoformat(timespec="microseconds"),
        "indexed_at": "2026-12-01T00:00:00.000000+00:00",
        "status_updated_at": summary.status.updated_at.isoformat(timespec="microseconds"),
        "entrant": config.entrant,
        "display_name": config.display_name,
        "model": str(config.target.get("model")),
        "target_kind": config.target_kind,
        "harness_version": config.harness_version,
        "task_set_hash": config.task_set.content_hash,
        "split": config.task_set.split,
        "repeats": config.repeats,
        "seed": config.seed,
        "fingerprint": config.fingerprint(),
        "cohort_key": config.cohort_key(),
        "status": summary.status.status,
        "headline": head.score.value,
        "headline_lo": head.score.interval.lo,
        "headline_hi": head.score.interval.hi,
        "headline_method": head.score.interval.method,
        "pooled": head.pooled,
        "tasks_total": len(config.task_set.task_ids),
        "tasks_scored": summary.scored_tasks,
        "tasks_passed": summary.passed_tasks,
        "attempts_total": summary.status.attempts_total,
        "errored": summary.outcomes.get("errored", 0),
        "over_budget": 0,
        "not_scorable": 0,
        "skipped": 0,
        "harness_faults": 0,
        "safety_violations": 0,
        "cost_usd": summary.cost_usd,
        "tokens": tokens,
        "p95_latency_s": summary.p95_latency_s,
        "config_json": json.dumps(config.model_dump(mode="json"), sort_keys=True),
        "subset": None,
        "reference": None,
        "suite": "bench-suite",
    }


def _gone(row: dict[str, object], run_id: str, **changes: object) -> dict[str, object]:
    """A row of a run whose directory has since been deleted."""
    return {**row, "run_id": run_id, "run_dir": f"/nowhere/{run_id}", **changes}


def _make_old_db(path: Path, rows: list[dict[str, object]]) -> None:
    with sqlite3.connect(path) as raw:
        raw.executescript(OLD_SCHEMA)
        marks = ", ".join("?" for _ in OLD_COLUMNS)
        for row in rows:
            raw.execute(
                f"INSERT INTO runs ({', '.join(OLD_COLUMNS)}) VALUES ({marks})",
                [row[c] for c in OLD_COLUMNS],
            )
            for i in range(3):
                raw.execute(
                    "INSERT INTO task_values VALUES (?, ?, ?, ?, ?)",
                    (row["run_id"], f"t{i}", "grounded-qa", i / 2, int(i == 2)),
                )
        raw.execute(f"PRAGMA user_version = {OLD_VERSION}")
    raw.close()


def _dump(path: Path) -> tuple[dict[str, dict[str, object]], list[tuple[object, ...]]]:
    with sqlite3.connect(path) as raw:
        raw.row_factory = sqlite3.Row
        runs = {r["run_id"]: dict(r) for r in raw.execute("SELECT * FROM runs")}
        values = [tuple(r) for r in raw.execute("SELECT * FROM task_values ORDER BY 1, 2")]
    raw.close()
    return runs, values


@pytest.fixture
def old(
    mini: Path, tmp_path: Path
) -> tuple[Path, Path, dict[str, RunDir], list[dict[str, object]]]:
    agents = mini / "agents.py"
    agents.write_text(agents.read_text(encoding="utf-8") + PARTIAL_USAGE, encoding="utf-8")
    runs = tmp_path / "runs"
    made = {agent: _run(mini, agent, runs) for agent in ("good", "no_usage", "partial_usage")}
    good = _old_row(made["good"], summarize(made["good"]).tokens)
    rows = [
        good,
        _old_row(made["no_usage"], 0),  # the old code's 0 for "no attempt reported tokens"
        _old_row(made["partial_usage"], summarize(made["partial_usage"]).tokens),
        _gone(good, "20261101T000000Z-gone01", tokens=0, cost_usd=None),
        _gone(good, "20261101T000001Z-gone02", tokens=1234, cost_usd=0.5),
        _gone(good, "20261101T000002Z-gone03", tokens=77, cost_usd=0.0),
    ]
    path = tmp_path / "old.sqlite3"
    _make_old_db(path, rows)
    return path, runs, made, rows


CHANGED = {"tokens", "status_updated_at", "indexed_at"}
"""What migrating and re-reading a run may change; every other old column must read as it
was (the re-read runs are indexed from the same directories, so they agree anyway)."""


def test_an_old_database_migrates_once_keeping_every_row(
    old: tuple[Path, Path, dict[str, RunDir], list[dict[str, object]]],
) -> None:
    path, runs, made, rows = old
    before_runs, before_values = _dump(path)
    assert len(before_runs) == 6 and len(before_values) == 18

    db = open_db(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1  # back on after the rebuild
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    # every row kept; nothing re-read yet: every row is marked stale, so sync re-reads them
    after_runs, after_values = _dump(path)
    assert after_values == before_values  # not one task value lost to ON DELETE CASCADE
    assert set(after_runs) == set(before_runs)
    for run_id, old_row in before_runs.items():
        new_row = after_runs[run_id]
        assert {k: v for k, v in new_row.items() if k in old_row and k not in CHANGED} == {
            k: v for k, v in old_row.items() if k not in CHANGED
        }
        assert new_row["status_updated_at"] == ""
    # an old 0 cannot be told from none measured: not measured; a sum may be partial
    gone = {r: after_runs[r] for r in before_runs if r.endswith(("gone01", "gone02", "gone03"))}
    assert [(g["tokens"], g["tokens_measured"], g["tokens_note"], g["cost_note"])
            for _, g in sorted(gone.items())] == [
        (None, None, "not measured", "not measured"),
        (1234, None, "1234 (may leave out attempts that reported no tokens: indexed by an "
                     "older bench)", "$0.500000"),
        (77, None, "77 (may leave out attempts that reported no tokens: indexed by an older "
                   "bench)", "$0.000000"),
    ]  # fmt: skip
    # the table has its indexes back, and the schema says tokens may be NULL
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"runs_cohort", "runs_created"} <= names
    columns = {r["name"]: r for r in db.execute("PRAGMA table_info(runs)")}
    assert columns["tokens"]["notnull"] == 0

    # the runs whose directories are here are re-read, with what their summaries say
    assert sorted(sync(db, runs)) == sorted(r.run_id for r in made.values())
    by_id = {row.run_id: row for row in list_runs(db)}
    for run in made.values():
        truth, row = summarize(run), by_id[run.run_id]
        assert (row.tokens, row.tokens_measured, row.tokens_note) == (
            truth.tokens_or_none, truth.tokens_measured, truth.tokens_note,
        )  # fmt: skip
        assert (row.cost_usd, row.cost_note) == (truth.cost_usd, truth.cost_note)
    no_usage = by_id[made["no_usage"].run_id]
    assert (no_usage.tokens, no_usage.tokens_note) == (None, "not measured")
    partial = by_id[made["partial_usage"].run_id]
    assert partial.tokens_note.endswith("(1 of 3 attempts report no tokens)")
    assert partial.cost_usd is None and "1 of 3 attempts report no cost" in partial.cost_note
    good = by_id[made["good"].run_id]
    assert good.tokens and good.tokens_note == str(good.tokens)
    assert len(_dump(path)[1]) == 18 - 9 + sum(summarize(r).scored_tasks for r in made.values())
    db.close()

    # opened again: migrated once, nothing re-read, nothing changed
    kept = _dump(path)
    db = open_db(path)
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1  # on, migrating or not
    assert sync(db, runs) == []
    db.close()
    assert _dump(path) == kept


def test_every_surface_says_not_measured_for_a_run_with_no_tokens(
    old: tuple[Path, Path, dict[str, RunDir], list[dict[str, object]]],
) -> None:
    """From the migrated database: history, export (JSON and CSV), leaderboard and compare."""
    path, runs, made, _ = old
    run_id = made["no_usage"].run_id

    def bench(*args: str | Path) -> str:
        done = CliRunner().invoke(cli, [str(a) for a in args])
        assert done.exit_code == 0, (args, done.output)
        return done.stdout

    text = bench("history", "--db", path, "--runs-dir", runs)
    header, *lines = text.splitlines()
    assert "  cost  " in header and "  tokens  " in header
    (line,) = [ln for ln in lines if run_id in ln]
    assert "not measured (3 of 3 attempts report no cost)  not measured  " in line
    listed = json.loads(bench("history", "--db", path, "--runs-dir", runs, "--format", "json"))
    (row,) = [r for r in listed if r["run_id"] == run_id]
    assert (row["tokens"], row["tokens_measured"], row["tokens_note"]) == (None, 0, "not measured")

    exported = json.loads(bench("export", "--db", path, "--runs-dir", runs, "--format", "json"))
    (row,) = [r for r in exported["runs"] if r["run_id"] == run_id]
    assert (row["tokens"], row["tokens_note"], row["cost_usd"]) == (None, "not measured", None)
    csv_text = bench("export", "--db", path, "--runs-dir", runs, "--format", "csv")
    (cells,) = [r for r in csv.DictReader(io.StringIO(csv_text)) if r["run_id"] == run_id]
    assert (cells["tokens"], cells["tokens_note"]) == ("", "not measured")

    board = bench("leaderboard", "--db", path, "--runs-dir", runs)
    (line,) = [ln for ln in board.splitlines() if run_id in ln]
    assert "not measured" in line.split(run_id)[0].split("]", 1)[1]
    cohorts = json.loads(bench("leaderboard", "--db", path, "--runs-dir", runs, "--format", "json"))
    (entry,) = [e for c in cohorts for e in c["entries"] if e["run"]["run_id"] == run_id]
    assert (entry["run"]["tokens"], entry["run"]["tokens_note"]) == (None, "not measured")

    other = made["good"].run_id
    side = json.loads(bench("compare", run_id, other, "--runs-dir", runs, "--format", "json"))
    assert side["first"]["tokens"] == "not measured"
    assert side["second"]["tokens"] == str(summarize(made["good"]).tokens)
    printed = bench("compare", run_id, other, "--runs-dir", runs)
    assert "  tokens  " in printed.splitlines()[0]
    (line,) = [ln for ln in printed.splitlines() if ln.rstrip().endswith(run_id)]
    assert "not measured  " + run_id in line


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_newer_database_is_refused_and_left_byte_for_byte(tmp_path: Path) -> None:
    path = tmp_path / "newer.sqlite3"
    with sqlite3.connect(path) as raw:  # a rollback-journal database, as a newer bench may make
        raw.execute("CREATE TABLE runs (run_id TEXT PRIMARY KEY, whatever TEXT)")
        raw.execute("INSERT INTO runs VALUES ('r', 'x')")
        raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    raw.close()
    before = _sha(path)
    with pytest.raises(RunStoreError) as info:
        open_db(path)
    assert info.value.code == "HISTORY_TOO_NEW"
    said = info.value.message
    assert f"version {SCHEMA_VERSION + 1} is newer than this bench ({SCHEMA_VERSION})" in said
    assert _sha(path) == before  # not switched to WAL, not migrated: never altered
    done = CliRunner().invoke(
        cli, ["history", "--db", str(path), "--runs-dir", str(tmp_path / "runs")]
    )
    assert done.exit_code == 4 and "error[HISTORY_TOO_NEW]" in done.output
    assert "Traceback" not in done.output
    assert _sha(path) == before


def test_a_migration_that_would_break_a_foreign_key_leaves_the_database_as_it_was(
    tmp_path: Path,
) -> None:
    """A task value of no run (written with foreign keys off) is caught by the check SQLite
    prescribes after a rebuild; the migration is rolled back whole."""
    path = tmp_path / "old.sqlite3"
    _make_old_db(path, [])
    with sqlite3.connect(path) as raw:
        raw.execute("INSERT INTO task_values VALUES ('no-such-run', 't', 'f', 1.0, 1)")
    raw.close()
    before = _dump(path)
    with pytest.raises(RunStoreError) as info:
        open_db(path)
    assert info.value.code == "HISTORY_CORRUPT"
    assert "foreign key" in info.value.message and "task_values" in info.value.message
    assert _dump(path) == before
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == OLD_VERSION
        columns = {r[1]: r[3] for r in raw.execute("PRAGMA table_info(runs)")}
    raw.close()
    assert columns["tokens"] == 1 and "tokens_note" not in columns  # the old table, untouched


def test_a_new_database_has_the_new_schema(tmp_path: Path) -> None:
    db = open_db(tmp_path / "new.sqlite3")
    columns = {r["name"]: r["notnull"] for r in db.execute("PRAGMA table_info(runs)")}
    assert leaderboard(db) == [] and list_runs(db) == []
    db.close()
    assert columns["tokens"] == 0 and columns["tokens_measured"] == 0
    assert columns["tokens_note"] == 1 and columns["cost_note"] == 1
