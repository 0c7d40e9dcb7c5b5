"""``bench rescore``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from .common import CONTEXT, format_option, require_exists, runs_dir_option


@click.command(context_settings=CONTEXT)
@click.argument("run_ref", metavar="RUN", default="latest")
@click.option("--tasks", type=click.Path(path_type=Path), help="Task set (default: the run's).")
@click.option("--corpora", type=click.Path(path_type=Path, file_okay=False), help="Corpus root.")
@click.option(
    "--judge",
    "judge_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Judge file for 'judge' expectations (see docs/JUDGE.md).",
)
@click.option(
    "--judge-cache",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Judge verdict cache (default with --judge: <runs-dir>/judge-cache.sqlite3).",
)
@runs_dir_option
@format_option
@click.pass_context
def rescore(
    ctx: click.Context,
    run_ref: str,
    tasks: Path | None,
    corpora: Path | None,
    judge_file: Path | None,
    judge_cache: Path | None,
    runs_dir: Path,
    fmt: str,
) -> None:
    """Re-score RUN from its traces with today's scorers; write nothing.

    Exit 0 when every attempt scores as recorded, 1 when any changed.
    """
    from bench.records.store import RunStore
    from bench.runner.rescore import rescore_run

    for named in (tasks, judge_file):
        if named is not None:
            require_exists(named)
    cache = judge_cache or (runs_dir / "judge-cache.sqlite3" if judge_file else None)
    result = rescore_run(RunStore(runs_dir).resolve(run_ref), tasks, corpora, judge_file, cache)
    if fmt == "json":
        payload = {
            "run_id": result.run_id,
            "rescored": result.rescored,
            "changed": [c.__dict__ for c in result.changed],
            "judge_usage": result.judge_usage,
        }
        click.echo(json.dumps(payload, indent=2, sort_keys=True))
    else:
        click.echo(
            f"{result.run_id}: re-scored {result.rescored} attempt(s), "
            f"{len(result.changed)} changed"
        )
        for change in result.changed:
            click.echo(f"  {change.task_id}#{change.repeat}: {change.before} → {change.after}")
        if result.judge_usage is not None:
            usage = result.judge_usage
            click.echo(
                f"  judge: {usage['requests']} request(s), {usage['cache_hits']} cache hit(s), "
                f"{usage['cache_misses']} miss(es), {usage['outages']} outage(s), "
                f"{usage.get('retries', 0)} asked again for want of a verdict, "
                f"{usage.get('no_verdicts', 0)} without one after that (FAIL)"
            )
    if result.changed:
        ctx.exit(1)
