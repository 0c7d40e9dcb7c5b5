"""``bench task validate``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import click

from .common import CONTEXT, format_option


@click.group(context_settings=CONTEXT)
def task() -> None:
    """Work with task files."""


@task.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--corpora",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Corpus root (default: the 'corpora' directory beside the task directory).",
)
@format_option
def validate(path: Path, corpora: Path | None, fmt: str) -> None:
    """Load and check every task under PATH (a file or a directory).

    Refuses a task with no 'because', an unknown expectation type, an expectation outside
    its family's vocabulary, a missing corpus document, duplicate ids, and the same task in
    both splits under two ids, naming the file and the field.
    """
    from bench.tasks.load import load_task_set
    from bench.world import check_task_set

    task_set = load_task_set(path, corpora)
    check_task_set(task_set)
    families = Counter(t.family for t in task_set.tasks)
    splits = Counter(t.split for t in task_set.tasks)
    if fmt == "json":
        payload = {
            "ok": True,
            "tasks": len(task_set.tasks),
            "files": [str(f) for f in task_set.files],
            "families": dict(sorted(families.items())),
            "splits": dict(sorted(splits.items())),
            "content_hash": task_set.content_hash(),
        }
        click.echo(json.dumps(payload, indent=2, sort_keys=True))
        return
    click.echo(
        f"ok: {len(task_set.tasks)} task(s) in {len(task_set.files)} file(s); "
        + ", ".join(f"{name} {count}" for name, count in sorted(families.items()))
        + "; "
        + ", ".join(f"{name} {count}" for name, count in sorted(splits.items()))
    )
    click.echo(f"task set hash {task_set.content_hash()}")
