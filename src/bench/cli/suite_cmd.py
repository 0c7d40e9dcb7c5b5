"""``bench suite import bfcl``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from .common import CONTEXT, format_option


@click.group(context_settings=CONTEXT)
def suite() -> None:
    """Public suites converted into task files (docs/SUITES.md)."""


@suite.group("import", context_settings=CONTEXT)
def import_() -> None:
    """Convert a public suite into task files that 'bench task validate' accepts."""


@import_.command()
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    required=True,
    help="Directory to write: tasks/bfcl-<category>.json and README.md (licence, attribution).",
)
@click.option(
    "--source",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    default=None,
    help="A bfcl_eval package directory (default: the installed bfcl-eval, found by import).",
)
@click.option(
    "--category",
    "categories",
    multiple=True,
    help="Import only this BFCL category (repeatable; default: every single-turn one).",
)
@format_option
def bfcl(out: Path, source: Path | None, categories: tuple[str, ...], fmt: str) -> None:
    """Import BFCL v4's single-turn categories from an installed bfcl-eval.

    Each case becomes a tool-trajectory task with one 'calls' check (BFCL's AST match);
    ids and categories are kept in the task's tags.
    """
    from bench.suites.bfcl import import_bfcl
    from bench.suites.bfcl_suite import SUITE_NAME

    done = import_bfcl(out, source, list(categories) or None)
    if fmt == "json":
        payload = {
            "out": str(done.out),
            "bfcl_eval": done.source.version,
            "licence": done.source.licence,
            "tasks": done.total,
            "categories": done.counts,
            "dropped": [list(pair) for pair in done.dropped],
            "unpassable": [list(pair) for pair in done.unpassable],
            "files": [str(path) for path in done.files],
            "suite": {"name": SUITE_NAME, "version": done.source.version},
        }
        click.echo(json.dumps(payload, indent=2, sort_keys=True))
        return
    click.echo(
        f"wrote {done.total} task(s) from bfcl-eval {done.source.version} "
        f"({done.source.licence}) to {done.out / 'tasks'}"
    )
    for category, n in done.counts.items():
        click.echo(f"  {category:<24} {n}")
    if done.unpassable:
        click.echo(
            f"left out {len(done.unpassable)} case(s) no output can pass, listed in README.md"
        )
    if done.dropped:
        click.echo(f"left out {len(done.dropped)} exact duplicate(s), listed in README.md")
    click.echo(
        f"suite {SUITE_NAME} {done.source.version}: {done.out / 'suite.json'} (its runs are "
        "their own cohorts; bench board build --suite-tasks gives the board its methodology note)"
    )
