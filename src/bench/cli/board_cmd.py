"""``bench board build``: runs and bundles -> one self-contained ``index.html`` + ``board.json``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from .common import CONTEXT

if TYPE_CHECKING:
    from bench.core.seal import SealKey


NO_ENTRIES = "no runs or bundles found"
"""The board's warning when it has nothing to show (``bench.board.build``); an empty board is
built all the same, --strict too: the publish workflow's first page, before any bundle landed,
is one that links the submission guide. (--strict refuses a --results directory that is not
there outside a repository of this project, or inside one under another name than results/:
BOARD_STRICT.)"""


def _looked_in(runs: Path | None, results: Path) -> str:
    def where(path: Path) -> str:
        return f"{path}" if path.is_dir() else f"{path} (no such directory)"

    bundles = f"bundles (<entrant>/<run_id>/) in {where(results)}"
    if runs is None:
        return f"looked for {bundles}; local runs are left out by --no-runs"
    return f"looked for run directories in {where(runs)} and for {bundles}"


def _cores() -> int:
    import os

    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


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
    help="Site directory, replaced whole, and only when the whole build succeeded; an "
    "existing one holding anything a build did not write is refused (BOARD_OUT).",
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
    "unknown entrant, a stale schema (another harness version); and a --results directory "
    "that is not there, outside a repository of this project (no submissions/ beside it: the "
    "wrong directory) or, inside one, named other than results/ (a mistyped path). Notes the "
    "page shows (a small family, a partial run, no runs or bundles yet) never fail it.",
)
@click.option(
    "--repo-url",
    default=None,
    help="https:// URL of the repository: each failed task also links its attempts file there "
    '("source"), beside the page\'s own transcript viewer.',
)
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
    help="Keys bundles are verified against (default: submissions/allowed_signers beside the "
    "--results directory, in the repository that holds it).",
)
@click.option(
    "--tasks",
    type=click.Path(path_type=Path),
    default=None,
    help="The pinned task set bundles are verified against, and the one the task view's "
    "prompts come from (default: tasks/ beside the --results directory); a cohort run on "
    "another task set shows its tasks without prompts.",
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
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="Processes that verify and read the bundles (default: one per CPU core). The board "
    "is the same bytes for any number.",
)
@click.option(
    "--cache",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Keep each verified bundle's entry in this directory and reuse it on the next build "
    "while nothing it depends on changed (the bundle's bytes, the keys, the task set, earlier "
    "bundles, this code). Unsealed it is trusted like the code: never restore it from a "
    "source others can write unless it is sealed (--cache-key-env).",
)
@click.option(
    "--cache-key-env",
    "cache_key_env",
    metavar="VAR",
    default=None,
    help="Seal the cache with the key in environment variable VAR (at least 32 bytes): each "
    "file carries an HMAC tag, and one without this key's tag is ignored, so the cache may "
    "come from a store others can write (the publish workflow's). Needs --cache.",
)
@click.option(
    "--cache-prune",
    is_flag=True,
    help="After the build, remove the cached entries and digests that no bundle of this "
    "build uses (files of the cache's own layout only). Needs --cache.",
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
    jobs: int | None,
    cache: Path | None,
    cache_key_env: str | None,
    cache_prune: bool,
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
            jobs=jobs or _cores(),
            cache=cache,
            cache_key=None if cache_key_env is None else _seal_key(cache_key_env),
            cache_prune=cache_prune,
            submissions=submissions,
        )
    )
    for warning in result.warnings:
        if warning == NO_ENTRIES:  # the page says it; here, where it looked (a wrong cwd?)
            warning = f"{warning}: {_looked_in(None if no_runs else runs, results)}"
        click.echo(f"warning: {warning}", err=True)
    boards = [board for _, board in result.pages] or [result.board]
    cohorts = sum(len(board.cohorts) for board in boards)
    entries = sum(len(c.entries) for board in boards for c in board.cohorts)
    suites = f", {len(boards)} suites (one page each)" if len(boards) > 1 else ""
    click.echo(
        f"board: {cohorts} cohort(s), {entries} row(s){suites}"
        f"; inputs {result.board.inputs_hash[:16]}, seed {result.board.seed}"
    )
    if result.reused is not None:
        sealed = ", sealed" if cache_key_env is not None else ""
        stale = "" if result.pruned is None else f"; {result.pruned} stale file(s) removed"
        click.echo(f"cache: {result.reused} bundle(s) reused from {cache}{sealed}{stale}")
    click.echo(f"wrote {result.index}")
    click.echo(f"wrote {result.board_json}")
    for page, _ in result.pages[1:]:
        click.echo(f"wrote {page}")
        click.echo(f"wrote {page.with_suffix('.json')}")


def _seal_key(variable: str) -> SealKey:
    """The cache's seal key from environment variable ``variable``; its value is never
    printed."""
    import os

    from bench.board.errors import BoardUsageError
    from bench.core.seal import MIN_KEY_BYTES, SealKey

    value = os.environ.get(variable, "").encode("utf-8", "surrogateescape")
    if not value:
        raise BoardUsageError(
            f"environment variable {variable} is unset or empty",
            code="BOARD_CACHE_KEY",
            field="--cache-key-env",
        )
    if len(value) < MIN_KEY_BYTES:
        raise BoardUsageError(
            f"environment variable {variable} holds {len(value)} bytes; a seal key needs "
            f"at least {MIN_KEY_BYTES} (e.g. python -c 'import secrets; "
            "print(secrets.token_hex(32))')",
            code="BOARD_CACHE_KEY",
            field="--cache-key-env",
        )
    return SealKey(value)


@board.command("suite-tasks", context_settings=CONTEXT)
@click.option(
    "--results",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("results"),
    show_default=True,
    help="Signed bundles, results/<entrant>/<run_id>/.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    required=True,
    help="Where to write each suite's task set (OUT/<suite>/tasks, suite.json beside it).",
)
@click.option(
    "--bfcl-source",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="A bfcl_eval package directory (default: the installed bfcl-eval, found by import).",
)
def suite_tasks(results: Path, out: Path, bfcl_source: Path | None) -> None:
    """Rebuild the task set of every imported suite the bundles under --results name.

    Prints, one per line, the options that give them to bench verify and bench board build
    (--suite-tasks, then the path), and nothing when every bundle is bench-suite's: the
    publish and verify-pr workflows read them into an array. Each suite is rebuilt with its
    importer (bfcl-v4: bench suite import bfcl, from the pinned bfcl-eval, which must be
    installed); a version other than the bundles' is written as is (verify then refuses those
    bundles, SUITE_MISMATCH) and said on stderr. A suite no importer rebuilds is BOARD_SUITE.
    """
    from bench.board.errors import BoardUsageError
    from bench.board.load import suites_named
    from bench.suites.bfcl import import_bfcl
    from bench.suites.bfcl_suite import SUITE_NAME

    for name, versions in sorted(suites_named(results).items()):
        if name != SUITE_NAME:
            raise BoardUsageError(
                f"bundles name suite {name}, which no importer rebuilds (known: {SUITE_NAME})",
                code="BOARD_SUITE",
                path=results,
            )
        done = import_bfcl(out / name, bfcl_source)
        other = sorted(str(v) for v in versions if v != done.source.version)
        if other:
            click.echo(
                f"warning: bundles name {name} {', '.join(other)}; rebuilt from "
                f"bfcl-eval {done.source.version}",
                err=True,
            )
        click.echo("--suite-tasks")
        click.echo(str(out / name / "tasks"))
