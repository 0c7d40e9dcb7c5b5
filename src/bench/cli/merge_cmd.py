"""``bench merge``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from .common import CONTEXT, format_option, runs_dir_option


@click.command(context_settings=CONTEXT)
@click.argument("run_refs", metavar="RUN...", nargs=-1, required=True)
@runs_dir_option
@format_option
def merge(run_refs: tuple[str, ...], runs_dir: Path, fmt: str) -> None:
    """Join the shards of one run (bench run --shard K/N) into one new run directory.

    The shards must share one config fingerprint and target (but for where the endpoint is),
    cover the task set exactly once, each be complete and hold only attempts it recorded
    itself; otherwise nothing is written (MERGE_FINGERPRINT, MERGE_OVERLAP, MERGE_GAP,
    MERGE_FOREIGN, MERGE_INCOMPLETE, MERGE_NOT_SHARD).
    """
    from bench.runner.merge import merge_runs

    run, status = merge_runs(list(run_refs), runs_dir)
    if fmt == "json":
        payload = {
            "run_id": status.run_id,
            "path": str(run.path),
            "config_fingerprint": status.config_fingerprint,
            "attempts": status.attempts_done,
            "sources": list(run_refs),
        }
        click.echo(json.dumps(payload, indent=2, sort_keys=True))
        return
    click.echo(
        f"merged {len(run_refs)} shard(s) into {status.run_id}: {status.attempts_done} "
        f"attempt(s), config fingerprint {status.config_fingerprint}"
    )
    click.echo(f"  run directory {run.path}")
