"""``bench suite import bfcl``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from .common import CONTEXT, format_option, runs_dir_option


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
    help=(
        "Directory to write: tasks/bfcl-<category>.json, README.md (licence, attribution) "
        "and suite.json (the suite's name, version and methodology note)."
    ),
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
    help=(
        "Import only this BFCL category (repeatable; default: every single-turn one). For "
        "trying an entrant: a published bundle must be a run of the whole import."
    ),
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
            "whole": done.whole,
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
    if not done.whole:
        click.echo(
            "not the whole suite (--category): its runs verify only against this directory; "
            f"the publish workflow verifies {SUITE_NAME} bundles against every category "
            "(bench board suite-tasks) and refuses these (TASK_SET_MISMATCH). To publish, "
            "import without --category and run all of it (bench run --task tries a few of "
            "its tasks first)."
        )


@suite.command()
@click.argument("run_ref", metavar="RUN", default="latest")
@runs_dir_option
@format_option
def scores(run_ref: str, runs_dir: Path, fmt: str) -> None:
    """Score RUN (an id, a unique prefix, a path, or 'latest') of BFCL's tasks per category.

    Each category's mean over its tasks (repeats averaged first; errors count as failures;
    tasks no check could decide left out), with a 95 % interval drawn as the run's headline is,
    with the run's seed. These are BFCL's categories, not BFCL's overall accuracy, which
    weights them otherwise (docs/SUITES.md).
    """
    from bench.core.errors import InputError
    from bench.records.store import RunStore
    from bench.reports import summarize
    from bench.stats.headline import stratified_headline
    from bench.suites.bfcl_suite import SUITE_NAME
    from bench.suites.categories import by_category

    summary = summarize(RunStore(runs_dir).resolve(run_ref))
    config = summary.config
    suite_ref = config.task_set.suite
    if suite_ref.name != SUITE_NAME:
        raise InputError(
            f"run {config.run_id} is of suite {config.task_set.suite_label()}, not {SUITE_NAME}: "
            "only a run of bench suite import bfcl's tasks has categories (bench show gives "
            "any run's family means)",
            code="SUITE_RUN",
            field="task_set.suite",
        )
    tasks = {s.task_id: s for s in summary.task_scores}
    groups, other = by_category(tasks)
    rows = []
    for category, ids in groups.items():
        scored = [v for v in (tasks[task].value for task in ids) if v is not None]
        passed = sum(1 for task in ids if tasks[task].value is not None and tasks[task].passed)
        score = None
        if scored:
            score = stratified_headline(
                scored, [category] * len(scored), seed=config.seed, label=category
            ).score
        rows.append((category, len(ids), len(scored), passed, score))
    if fmt == "json":
        payload = {
            "run_id": config.run_id,
            "suite": suite_ref.model_dump(mode="json"),
            "seed": config.seed,
            "categories": [
                {
                    "category": category,
                    "tasks": total,
                    "scored": n,
                    "passed": passed,
                    "score": None if score is None else score.model_dump(mode="json"),
                }
                for category, total, n, passed, score in rows
            ],
            "other_tasks": other,
        }
        click.echo(json.dumps(payload, indent=2, sort_keys=True))
        return
    click.echo(
        f"{config.run_id}   {config.display_name}   suite {config.task_set.suite_label()}   "
        f"{config.repeats} repeat(s)"
    )
    click.echo(f"  {'category':<24} {'tasks':>5} {'passed':>6}  mean [95% interval]")
    for category, total, n, passed, score in rows:
        shown = (
            "not scorable"
            if score is None
            else f"{score.value:.3f} [{score.interval.lo:.3f}, {score.interval.hi:.3f}]"
        )
        left = f" ({total - n} not scorable)" if n < total else ""
        click.echo(f"  {category:<24} {total:>5} {passed:>6}  {shown}{left}")
    if other:
        click.echo(f"  {len(other)} task(s) of no BFCL category: {', '.join(other[:5])}")
    click.echo(
        "  per category, each task once; BFCL's own overall accuracy weights categories "
        "otherwise (docs/SUITES.md)"
    )
