"""The SQLite history: indexing, migrations, ``bench history``, ``leaderboard``, ``export``."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from bench.core.errors import RunStoreError
from bench.records import RunDir
from bench.reports.board import leaderboard, list_runs
from bench.reports.export import export_csv, neutralise
from bench.reports.history import SCHEMA_VERSION, index_run, open_db

Invoke = Callable[..., tuple[int, str, str]]


def test_index_run_is_idempotent(mini_runs: dict[str, RunDir], tmp_path: Path) -> None:
    db = open_db(tmp_path / "h.sqlite3")
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    run = mini_runs["crashes_on_refunds"]
    for _ in range(2):
        assert index_run(db, run.path) == run.run_id
    assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 1
    assert db.execute("SELECT COUNT(*) FROM task_values").fetchone()[0] == 3
    (row,) = list_runs(db)
    assert (row.entrant, row.status, row.headline, row.errored) == (
        "mini-crashes-on-refunds", "complete", 0.5, 1)  # fmt: skip
    assert (row.tasks_scored, row.tasks_passed, row.cost_usd) == (3, 2, None)
    db.close()
    db = open_db(tmp_path / "h.sqlite3")  # reopening migrates nothing
    assert len(list_runs(db)) == 1


def test_a_newer_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    with sqlite3.connect(path) as raw:
        raw.execute("PRAGMA user_version = 99")
    raw.close()
    with pytest.raises(RunStoreError) as info:
        open_db(path)
    assert info.value.code == "HISTORY_TOO_NEW"
    bad = tmp_path / "bad.sqlite3"
    bad.write_bytes(b"not a database at all" * 100)
    with pytest.raises(RunStoreError) as info:
        open_db(bad)
    assert info.value.code == "HISTORY_CORRUPT"


def test_history_command_indexes_and_filters(
    mini_runs: dict[str, RunDir], mini: Path, invoke: Invoke
) -> None:
    runs = mini / "runs"
    code, out, err = invoke("history", "--runs-dir", runs)
    assert code == 0, err
    assert (runs / "history.sqlite3").is_file()
    lines = out.splitlines()
    assert lines[0].startswith("created") and len(lines) == 3
    code, out, _ = invoke("history", "--runs-dir", runs, "--entrant", "mini-good",
                          "--format", "json")  # fmt: skip
    (row,) = json.loads(out)
    assert row["run_id"] == mini_runs["good"].run_id and row["headline"] == 1.0
    code, out, _ = invoke("history", "--runs-dir", runs, "--limit", "1", "--format", "json")
    assert len(json.loads(out)) == 1
    code, out, _ = invoke("history", "--runs-dir", runs, "--fingerprint", "zzz")
    assert out == "no runs in the history\n"


def test_leaderboard_ranks_with_ties(
    mini_runs: dict[str, RunDir], mini: Path, invoke: Invoke, synth: Callable[..., RunDir]
) -> None:
    runs, template = mini / "runs", mini_runs["good"]
    # the non-transitive triple (docs/METHODOLOGY.md, "Ranks"), 100 one-family tasks
    a, b, c = ([0.0] * 100 for _ in range(3))
    for i in [*range(0, 10), *range(14, 24), *range(28, 64)]:
        a[i] = 1.0
    for i in [*range(10, 14), *range(14, 24), *range(28, 64)]:
        b[i] = 1.0
    for i in [*range(10, 14), *range(24, 28), *range(28, 64)]:
        c[i] = 1.0
    synth(template, runs, "20260101T000000Z-cccccc", "ent-c", c)
    synth(template, runs, "20260101T000001Z-bbbbbb", "ent-b", b)
    synth(template, runs, "20260101T000002Z-aaaaaa", "ent-a", [0.0] * 100)
    synth(template, runs, "20260101T000003Z-aaaaab", "ent-a", a)  # latest ent-a wins
    code, out, err = invoke("leaderboard", "--runs-dir", runs, "--format", "json")
    assert code == 0, err
    cohorts = json.loads(out)
    assert len(cohorts) == 2  # the synthetic task set and the mini public split
    big = next(c for c in cohorts if c["entries"][0]["ranked_on"] == 100)
    got = [(e["run"]["entrant"], e["rank_lo"], e["rank_hi"]) for e in big["entries"]]
    assert got == [("ent-a", 1, 2), ("ent-b", 1, 3), ("ent-c", 2, 3)]
    assert big["entries"][0]["run"]["run_id"] == "20260101T000003Z-aaaaab"
    small = next(c for c in cohorts if c["entries"][0]["ranked_on"] == 3)
    assert "sign-flip" in small["mode"]
    assert [(e["run"]["entrant"], e["rank_lo"]) for e in small["entries"]] == [
        ("mini-good", 1), ("mini-crashes-on-refunds", 1)]  # fmt: skip
    code, out, _ = invoke("leaderboard", "--runs-dir", runs)
    assert "  1     1-2    ent-a" in out and "  2     2-3    ent-c" in out
    db = open_db(runs / "history.sqlite3")
    assert [c.cohort_key for c in leaderboard(db)] == [c["cohort_key"] for c in cohorts]


def test_export_neutralises_formula_cells(mini_runs: dict[str, RunDir], mini: Path,
                                          invoke: Invoke) -> None:  # fmt: skip
    assert [neutralise(x) for x in ("=1+1", "+x", "-x", "@x", "ok", "")] == [
        "'=1+1", "'+x", "'-x", "'@x", "ok", ""]  # fmt: skip
    runs = mini / "runs"
    config_path = mini_runs["good"].path / "config.json"
    config = json.loads(config_path.read_text())
    config["display_name"] = '=HYPERLINK("http://evil")'
    config_path.write_text(json.dumps(config))
    code, out, err = invoke("export", "--runs-dir", runs, "--format", "csv")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    names = sorted(r["display_name"] for r in rows)
    assert names == ['\'=HYPERLINK("http://evil")', "mini crashes_on_refunds"]
    out_file = mini / "export" / "h.json"
    code, out, _ = invoke("export", "--runs-dir", runs, "--format", "json", "--out", out_file)
    payload = json.loads(out_file.read_text())
    assert payload["format_version"] == 1 and len(payload["runs"]) == 2
    assert export_csv([]).startswith("run_id,created_at,entrant,")


def test_leaderboard_lists_reference_runs_unranked(
    mini_runs: dict[str, RunDir], mini: Path, invoke: Invoke, synth: Callable[..., RunDir]
) -> None:
    runs, template = mini / "runs", mini_runs["good"]
    a = [float(i % 2 == 0) for i in range(40)]
    b = [float(i % 4 == 0) for i in range(40)]
    synth(template, runs, "20260101T000000Z-aaaaaa", "ent-a", a)
    synth(template, runs, "20260101T000001Z-bbbbbb", "ent-b", b)
    code, out, _ = invoke("leaderboard", "--runs-dir", runs, "--format", "json")
    before = next(c for c in json.loads(out) if c["entries"][0]["ranked_on"] == 40)
    ref = synth(template, runs, "20260101T000002Z-rrrrrr", "baseline-echo", [1.0] * 40)
    config = json.loads((ref.path / "config.json").read_text())
    config["target"]["callable"] = "bench.baselines:echo"  # what a baseline's run records
    (ref.path / "config.json").write_text(json.dumps(config))
    code, out, err = invoke("leaderboard", "--runs-dir", runs, "--format", "json")
    assert code == 0, err
    cohort = next(c for c in json.loads(out) if c["entries"][0]["ranked_on"] == 40)
    got = [(e["run"]["entrant"], e["rank_lo"], e["reference"]) for e in cohort["entries"]]
    assert got == [("ent-a", 1, False), ("ent-b", 2, False), ("baseline-echo", None, True)]
    assert cohort["entries"][-1]["run"]["reference"] == "echo"
    assert [e["rank_hi"] for e in cohort["entries"][:2]] == [
        e["rank_hi"] for e in before["entries"]
    ]
    code, out, _ = invoke("leaderboard", "--runs-dir", runs)
    assert "1 reference run(s), not ranked" in out
    assert "ref   reference  baseline-echo" in out


def test_version_1_history_is_migrated_and_reindexed(
    mini_runs: dict[str, RunDir], mini: Path, tmp_path: Path
) -> None:
    from bench.reports.history import MIGRATIONS, sync

    path = tmp_path / "old.sqlite3"
    db = open_db(path)
    sync(db, mini / "runs")
    db.close()
    with sqlite3.connect(path) as raw:  # back to what version 1 held
        raw.execute("ALTER TABLE runs DROP COLUMN subset")
        raw.execute("ALTER TABLE runs DROP COLUMN reference")
        raw.execute("ALTER TABLE runs DROP COLUMN suite")
        raw.execute("PRAGMA user_version = 1")
    raw.close()
    assert len(MIGRATIONS) == 4
    db = open_db(path)
    assert {r["status_updated_at"] for r in db.execute("SELECT * FROM runs")} == {""}
    assert sorted(sync(db, mini / "runs")) == sorted(r.run_id for r in mini_runs.values())
    assert all(row.subset is None and row.reference is None for row in list_runs(db))
    assert {row.suite for row in list_runs(db)} == {"bench-suite"}  # migration 3, re-read


def test_leaderboard_orders_equal_shown_headlines_by_id(
    mini_runs: dict[str, RunDir], mini: Path, invoke: Invoke, synth: Callable[..., RunDir]
) -> None:
    runs, template = mini / "runs", mini_runs["good"]
    base = [float(i % 3 == 0) for i in range(40)]
    higher = [*base[:1], 0.01, *base[2:]]  # +0.00025: both print 0.350
    synth(template, runs, "20260101T000000Z-zzzzzz", "ent-z", higher)
    synth(template, runs, "20260101T000001Z-aaaaaa", "ent-a", base)
    code, out, err = invoke("leaderboard", "--runs-dir", runs, "--format", "json")
    assert code == 0, err
    cohort = next(c for c in json.loads(out) if c["entries"][0]["ranked_on"] == 40)
    entries = cohort["entries"]
    assert [(e["run"]["entrant"], e["rank_lo"]) for e in entries] == [("ent-a", 1), ("ent-z", 1)]
    assert entries[1]["run"]["headline"] > entries[0]["run"]["headline"]
    assert f"{entries[0]['run']['headline']:.3f}" == f"{entries[1]['run']['headline']:.3f}"
