"""``bench schema print|write|check``."""

from __future__ import annotations

from pathlib import Path

import click

from .common import CONTEXT


@click.group(context_settings=CONTEXT)
def schema() -> None:
    """The JSON Schemas of the on-disk formats, generated from the models."""


@schema.command("print")
@click.argument("name", default="trace")
@click.option("--compact", is_flag=True, help="One line, for piping into jq.")
def print_(name: str, compact: bool) -> None:
    """Print one schema: task, task-file, trace, run, run-status, attempt or target."""
    from bench.core.errors import UsageError
    from bench.schemas import MODELS, render

    if name not in MODELS:
        raise UsageError(f"no schema '{name}' (one of: {', '.join(MODELS)})")
    click.echo(render(name, compact=compact), nl=compact)


@schema.command()
@click.argument("directory", type=click.Path(path_type=Path, file_okay=False), default="schema")
def write(directory: Path) -> None:
    """Regenerate every schema file in DIRECTORY."""
    from bench.schemas import write_all

    for path in write_all(directory):
        click.echo(f"wrote {path}")


@schema.command()
@click.argument("directory", type=click.Path(path_type=Path, file_okay=False), default="schema")
def check(directory: Path) -> None:
    """Fail when DIRECTORY's schemas differ from the models (run 'bench schema write')."""
    from bench.core.errors import InputError
    from bench.schemas import drift

    if not directory.is_dir():
        # drift() would list every schema as missing: a mistyped path is not drift.
        raise InputError(
            "no such directory" if not directory.exists() else "is not a directory",
            code="FILE_MISSING",
            path=directory,
        )
    stale = drift(directory)
    if stale:
        raise InputError(
            f"stale or missing: {', '.join(stale)}; run 'bench schema write {directory}'",
            code="SCHEMA_DRIFT",
            path=directory,
        )
    click.echo("schemas match the models")
