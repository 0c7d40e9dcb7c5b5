"""``bench show`` and ``bench compare``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .common import CONTEXT, format_option, runs_dir_option


@click.command(context_settings=CONTEXT)
@click.argument("run_ref", metavar="RUN", default="latest")
@click.option("--task", "task_id", help="Also print this task's attempts and traces.")
@runs_dir_option
@format_option
def show(run_ref: str, task_id: str | None, runs_dir: Path, fmt: str) -> None:
    """Show RUN (an id, a unique prefix, a path, or 'latest'): the score, the failed tasks
    with the sentences that failed them, and with --task that task's trace."""
    from bench.core.errors import UsageError
    from bench.records.store import RunStore
    from bench.reports import render_show, render_task, summarize

    summary = summarize(RunStore(runs_dir).resolve(run_ref))
    if fmt == "json":
        click.echo(json.dumps(_as_json(summary, task_id), indent=2, sort_keys=True))
        return
    if sys.stdout.isatty():
        from .rich_show import print_show

        print_show(summary)  # the same content, the failures as a table
    else:
        click.echo(render_show(summary), nl=False)
    if task_id:
        text = render_task(summary, task_id)
        if text is None:
            raise UsageError(f"run {summary.config.run_id} has no attempt of task '{task_id}'")
        click.echo("")
        click.echo(text, nl=False)


def _as_json(summary: object, task_id: str | None) -> dict[str, object]:
    from bench.reports import RunSummary

    assert isinstance(summary, RunSummary)
    head = summary.headline
    payload: dict[str, object] = {
        "run_id": summary.config.run_id,
        "entrant": summary.config.entrant,
        "display_name": summary.config.display_name,
        "status": summary.status.status,
        "config_fingerprint": summary.config.fingerprint(),
        "subset": summary.config.task_set.subset_label(),
        "suite": summary.config.task_set.suite.model_dump(mode="json"),
        "reference": summary.config.reference(),
        "score": None if head is None else head.score.model_dump(mode="json"),
        "pooled": None if head is None else head.pooled,
        "family_means": None if head is None else head.family_means,
        "outcomes": summary.outcomes,
        "cost_usd": summary.cost_usd,
        "cost": summary.cost_note,
        "tokens": summary.tokens_or_none,  # None: not measured, never 0
        "tokens_note": summary.tokens_note,
        "p95_latency_s": summary.p95_latency_s,
        "tasks": [s.model_dump(mode="json") for s in summary.task_scores],
        "failures": [
            {"task_id": f.task_id, "family": f.family, "value": f.value, "lines": list(f.lines)}
            for f in summary.failures
        ],
        "not_scorable": [{"task_id": t, "reason": r} for t, r in summary.not_scorable],
        "skipped": [k.model_dump() for k in summary.status.skipped],
    }
    if task_id:
        payload["attempts"] = [
            r.model_dump(mode="json") for r in summary.records if r.task_id == task_id
        ]
    return payload


@click.command(context_settings=CONTEXT)
@click.argument("first")
@click.argument("second")
@click.option(
    "--fail-on-regression",
    is_flag=True,
    help="Exit 1 when SECOND is significantly worse than FIRST and the runs are comparable.",
)
@runs_dir_option
@format_option
def compare(first: str, second: str, fail_on_regression: bool, runs_dir: Path, fmt: str) -> None:
    """Compare two runs on their shared tasks: the paired difference with its interval, the
    tasks that flipped each way with their sentences, and whether the runs are comparable."""
    from bench.records.store import RunStore
    from bench.reports import compare_runs, render_compare, summarize

    store = RunStore(runs_dir)
    result = compare_runs(summarize(store.resolve(first)), summarize(store.resolve(second)))
    if fmt == "json":
        click.echo(result.model_dump_json(indent=2))
    else:
        click.echo(render_compare(result), nl=False)
    if fail_on_regression and result.verdict == "regression":
        click.get_current_context().exit(1)
