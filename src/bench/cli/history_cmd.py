"""``bench history``, ``bench leaderboard`` and ``bench export``: the SQLite run history."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import click

from .common import CONTEXT, format_option, runs_dir_option

db_option = click.option(
    "--db",
    type=click.Path(path_type=Path, dir_okay=False),
    help="History database (default: <runs-dir>/history.sqlite3).",
)


def _open(db: Path | None, runs_dir: Path) -> sqlite3.Connection:
    """Open the history and index any run under ``runs_dir`` that is new or changed."""
    from bench.reports.history import DEFAULT_DB, open_db, sync

    if db is None and not runs_dir.exists():
        # Run from the wrong directory: say where it looked, and leave no runs/ behind there.
        click.echo(
            f"note: no run directory at {runs_dir} (bench run writes runs there, relative to "
            "the current directory; --runs-dir names another)",
            err=True,
        )
        db = Path(":memory:")
    connection = open_db(db or runs_dir / DEFAULT_DB)
    sync(connection, runs_dir)
    return connection


@click.command(context_settings=CONTEXT)
@db_option
@click.option("--entrant", help="Only this entrant.")
@click.option("--model", help="Only this model.")
@click.option("--fingerprint", help="Only this config fingerprint (or a prefix of it).")
@click.option("--limit", type=click.IntRange(min=1), help="At most this many runs, newest first.")
@runs_dir_option
@format_option
def history(
    db: Path | None,
    entrant: str | None,
    model: str | None,
    fingerprint: str | None,
    limit: int | None,
    runs_dir: Path,
    fmt: str,
) -> None:
    """List past runs, newest first (indexing runs not yet in the history)."""
    from bench.reports.board import list_runs
    from bench.reports.boardtext import render_history

    connection = _open(db, runs_dir)
    rows = list_runs(connection, entrant=entrant, model=model, fingerprint=fingerprint, limit=limit)
    connection.close()
    if fmt == "json":
        click.echo(json.dumps([r.model_dump(mode="json") for r in rows], indent=2, sort_keys=True))
        return
    click.echo(render_history(rows), nl=False)


@click.command(context_settings=CONTEXT)
@db_option
@runs_dir_option
@format_option
def leaderboard(db: Path | None, runs_dir: Path, fmt: str) -> None:
    """Rank the latest complete run per entrant and config, per cohort, with tie-aware ranks."""
    from bench.reports.board import leaderboard as build
    from bench.reports.boardtext import render_leaderboard

    connection = _open(db, runs_dir)
    cohorts = build(connection)
    connection.close()
    if fmt == "json":
        payload = [c.model_dump(mode="json") for c in cohorts]
        click.echo(json.dumps(payload, indent=2, sort_keys=True))
        return
    click.echo(render_leaderboard(cohorts), nl=False)


@click.command(context_settings=CONTEXT)
@db_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "json"]),
    default="csv",
    show_default=True,
    help="CSV (one row per run) or JSON.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False, allow_dash=True),
    help="Write to a file ('-': standard output), replacing one there whole.",
)
@runs_dir_option
def export(db: Path | None, fmt: str, out: Path | None, runs_dir: Path) -> None:
    """Export the run history as CSV (formula cells neutralised) or JSON."""
    from bench.core.atomic import made_directory, write_atomic
    from bench.reports.board import list_runs
    from bench.reports.export import export_csv, export_json

    connection = _open(db, runs_dir)
    rows = list_runs(connection)
    connection.close()
    text = export_csv(rows) if fmt == "csv" else export_json(rows)
    if out is None or str(out) == "-":  # '-' is standard output, as for any Unix tool
        click.echo(text, nl=False)
        return
    with made_directory(out.parent):  # a full disk leaves no empty directory behind
        write_atomic(out, text.encode("utf-8"))
    click.echo(f"wrote {out}")
