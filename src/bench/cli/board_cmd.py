"""``bench board build``: runs and bundles -> one self-contained ``index.html`` + ``board.json``."""

from __future__ import annotations

from pathlib import Path

import click

from .common import CONTEXT


@click.group(context_settings=CONTEXT)
def board() -> None:
    """Build the leaderboard page."""


@board.command(context_settings=CONTEXT)
@click.option(
    "--runs",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("runs"),
    show_default=True,
    help="Run directories to include (every run under it); see --no-runs.",
)
@click.option(
    "--no-runs",
    is_flag=True,
    help="Include no local run directories, only the signed bundles under --results (the "
    "publish workflow builds the public board this way; --runs is then ignored).",
)
@click.option(
    "--results",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("results"),
    show_default=True,
    help="Signed bundles, results/<entrant>/<run_id>/.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("site"),
    show_default=True,
    help="Site directory; replaced only when the whole build succeeded.",
)
@click.option(
    "--templates",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="A directory of Jinja2 templates, CSS and JS to use instead of the packaged ones "
    "(site_templates/ in the repository is their source).",
)
@click.option(
    "--methodology",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Markdown rendered as the page's methodology section, instead of the packaged "
    "docs/METHODOLOGY.md.",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Fail the build on a warning that makes the board wrong: an unverifiable bundle, an "
    "unknown entrant, a stale schema (another harness version). Notes the page shows (a small "
    "family, a partial run, no runs yet) never fail it.",
)
@click.option("--repo-url", default=None, help="https:// URL of the repository (transcript links).")
@click.option(
    "--seed",
    type=int,
    default=None,
    help="Seed of the shared resamples (ranks, family intervals, frontier); a row's headline "
    "interval uses its run's recorded seed.",
)
@click.option(
    "--resamples", type=int, default=2000, show_default=True, help="Bootstrap resamples (B)."
)
@click.option("--no-verify", is_flag=True, help="Read bundles without verifying them.")
@click.option(
    "--allowed-signers",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Keys bundles are verified against (default: submissions/allowed_signers).",
)
@click.option(
    "--tasks",
    type=click.Path(path_type=Path),
    default=None,
    help="The pinned task set bundles are verified against (default: tasks/).",
)
@click.option(
    "--suite-tasks",
    "suite_tasks",
    type=click.Path(path_type=Path),
    multiple=True,
    help="The task set of an imported suite (DIR/tasks of bench suite import, its suite.json "
    "beside it); repeatable. Its bundles are verified against it and its page carries its "
    "methodology note. The board shows one suite per page.",
)
@click.option(
    "--submissions",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("submissions"),
    show_default=True,
    help="Entrant registry files (<entrant>.yaml): names, links and descriptions on the cards.",
)
def build(
    runs: Path,
    no_runs: bool,
    results: Path,
    out: Path,
    templates: Path | None,
    methodology: Path | None,
    strict: bool,
    repo_url: str | None,
    seed: int | None,
    resamples: int,
    no_verify: bool,
    allowed_signers: Path | None,
    tasks: Path | None,
    suite_tasks: tuple[Path, ...],
    submissions: Path,
) -> None:
    """Build the board from run directories and bundles into OUT/index.html.

    Without --no-runs every run under --runs (default runs/) is on the board next to the
    bundles; a public board is built with --no-runs, from results/ only.
    """
    from bench.board import BuildOptions
    from bench.board import build as build_board
    from bench.core.rng import DEFAULT_SEED

    result = build_board(
        BuildOptions(
            runs=None if no_runs else runs,
            results=results,
            out=out,
            templates=templates,
            methodology=methodology,
            strict=strict,
            repo_url=repo_url,
            seed=DEFAULT_SEED if seed is None else seed,
            resamples=resamples,
            verify_bundles=not no_verify,
            allowed_signers=allowed_signers,
            tasks=tasks,
            suite_tasks=suite_tasks,
            submissions=submissions,
        )
    )
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    boards = [board for _, board in result.pages] or [result.board]
    cohorts = sum(len(board.cohorts) for board in boards)
    entries = sum(len(c.entries) for board in boards for c in board.cohorts)
    suites = f", {len(boards)} suites (one page each)" if len(boards) > 1 else ""
    click.echo(
        f"board: {cohorts} cohort(s), {entries} row(s){suites}"
        f"; inputs {result.board.inputs_hash[:16]}, seed {result.board.seed}"
    )
    click.echo(f"wrote {result.index}")
    click.echo(f"wrote {result.board_json}")
    for page, _ in result.pages[1:]:
        click.echo(f"wrote {page}")
        click.echo(f"wrote {page.with_suffix('.json')}")
