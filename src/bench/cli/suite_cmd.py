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

    _refuse_leftovers(out, categories)
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


def _refuse_leftovers(out: Path, categories: tuple[str, ...]) -> None:
    """Refuse an --out whose tasks/ holds task files this import would not replace.

    The task set is every task file under DIR/tasks, so an import of one category over an
    earlier one of all thirteen would say "wrote 400 task(s)" and leave a task set of 3,628
    under a suite.json and README that call it one category.
    """
    from bench.core.errors import UsageError
    from bench.suites.bfcl import CATEGORIES
    from bench.tasks.load import TASK_SUFFIXES

    chosen = categories or tuple(CATEGORIES)
    if not set(chosen) <= set(CATEGORIES):
        return  # the import names the unknown category (SUITE_CATEGORY)
    tasks_dir = out / "tasks"
    if not tasks_dir.is_dir():
        return
    written = {f"bfcl-{category.replace('_', '-')}.json" for category in chosen}
    left = sorted(
        path.relative_to(tasks_dir).as_posix()
        for path in tasks_dir.rglob("*")
        if path.is_file() and path.suffix in TASK_SUFFIXES
    )
    left = [name for name in left if name not in written]
    if left:
        shown = ", ".join(left[:3]) + (f" and {len(left) - 3} more" if len(left) > 3 else "")
        raise UsageError(
            f"{tasks_dir} holds task files this import would not replace ({shown}): every "
            "task file there is in the task set, so it would be neither this import nor the "
            "earlier one. Give --out a new directory, or remove them first"
        )


UNSCORED_SHOWN = 10  # tasks left out of a mean named in the text; --format json names all


@suite.command()
@click.argument("run_ref", metavar="RUN", default="latest")
@runs_dir_option
@format_option
def scores(run_ref: str, runs_dir: Path, fmt: str) -> None:
    """Score RUN (an id, a unique prefix, a path, or 'latest') of BFCL's tasks per category.

    Each category's tasks, passes, errored attempts and mean over its tasks (repeats averaged
    first; errors count as failures and are counted on their own; tasks no check could decide
    left out, and named), with a 95 % interval drawn as the run's headline is, with the run's
    seed. These are BFCL's categories, not BFCL's overall accuracy, which weights them
    otherwise (docs/SUITES.md).
    """
    from bench.core.errors import InputError
    from bench.records.store import RunStore
    from bench.reports import summarize
    from bench.stats.headline import stratified_headline
    from bench.suites.bfcl_suite import SUITE_NAME
    from bench.suites.categories import tally

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
    groups, other = tally(summary.task_scores, summary.not_scorable)
    rows = [
        (
            group,
            None
            if not group.values
            else stratified_headline(
                list(group.values),
                [group.category] * len(group.values),
                seed=config.seed,
                label=group.category,
            ).score,
        )
        for group in groups
    ]
    skipped = len(summary.status.skipped)
    if fmt == "json":
        payload = {
            "run_id": config.run_id,
            "suite": suite_ref.model_dump(mode="json"),
            "seed": config.seed,
            "status": summary.status.status,
            "skipped": skipped,
            "categories": [
                {
                    "category": group.category,
                    "tasks": group.tasks,
                    "scored": len(group.values),
                    "passed": group.passed,
                    "errored": group.errored,
                    "errored_tasks": group.errored_tasks,
                    "not_scored": [
                        {"task_id": task, "reason": why} for task, why in group.not_scored
                    ],
                    "score": None if score is None else score.model_dump(mode="json"),
                }
                for group, score in rows
            ],
            "other_tasks": other,
        }
        click.echo(json.dumps(payload, indent=2, sort_keys=True))
        return
    click.echo(
        f"{config.run_id}   {config.display_name}   suite {config.task_set.suite_label()}   "
        f"{config.repeats} repeat(s)"
    )
    if summary.status.partial_reason or skipped:
        click.echo(
            f"  PARTIAL: {summary.status.partial_reason or 'not every attempt ran'}; "
            f"{skipped} attempt(s) skipped are in no category below"
        )
    click.echo(f"  {'category':<24} {'tasks':>5} {'passed':>6} {'errored':>7}  mean [95% interval]")
    for group, score in rows:
        shown = (
            "not scorable"
            if score is None
            else f"{score.value:.3f} [{score.interval.lo:.3f}, {score.interval.hi:.3f}]"
        )
        left = f" ({len(group.not_scored)} not scorable)" if group.not_scored else ""
        click.echo(
            f"  {group.category:<24} {group.tasks:>5} {group.passed:>6} {group.errored:>7}  "
            f"{shown}{left}"
        )
    unscored = [pair for group, _ in rows for pair in group.not_scored]
    if unscored:
        click.echo(f"  not scorable, left out of their category's mean ({len(unscored)}):")
        for task, why in unscored[:UNSCORED_SHOWN]:
            flat = " ".join(why.split())
            click.echo(f"    {task}  {flat if len(flat) <= 100 else flat[:99] + '…'}")
        if len(unscored) > UNSCORED_SHOWN:
            click.echo(
                f"    … and {len(unscored) - UNSCORED_SHOWN} more: --format json names every "
                f"one (so does bench show {config.run_id})"
            )
    if other:
        click.echo(f"  {len(other)} task(s) of no BFCL category: {', '.join(other[:5])}")
    click.echo("  errored: attempts whose entrant failed, counted as failures in the mean")
    click.echo(
        "  per category, each task once; BFCL's own overall accuracy weights categories "
        "otherwise (docs/SUITES.md)"
    )
