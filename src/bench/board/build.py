"""``build``: load -> rows -> render -> write, the function behind ``bench board build``.

One page per suite (docs/SUITES.md, "Suites on runs, verify and the board"): the runs of each
suite are their own board, ``index.html`` (bench-suite's, else the first suite's) and
``suite-<name>.html`` beside it, each with its ``.json``, its methodology note and a switcher.
A board of bench-suite's runs alone is the one page it always was."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.core.rng import DEFAULT_SEED

from .entries import EntryInput
from .errors import BoardBuildError, BoardUsageError
from .load import BundlesLoader, Loader, RunsLoader, load_all
from .model import Board, SuiteInfo, SuitePage
from .registry import (
    attach_registry,
    field_problems,
    label_collisions,
    load_registry,
    name_collisions,
)
from .rows import build_rows

if TYPE_CHECKING:
    from bench.core.seal import SealKey
    from bench.core.suite import SuiteManifest


@dataclass(frozen=True)
class BuildOptions:
    runs: Path | None = Path("runs")
    results: Path | None = Path("results")
    out: Path = Path("site")
    templates: Path | None = None  # None: the packaged templates (bench/board/assets/)
    methodology: Path | None = None  # None: the packaged METHODOLOGY.md
    submissions: Path | None = Path("submissions")  # registry files; None: no registry
    strict: bool = False
    repo_url: str | None = None
    seed: int = DEFAULT_SEED
    resamples: int = 2000
    frontier_resamples: int = 1000
    verify_bundles: bool = True
    allowed_signers: Path | None = None  # default: VerifyOptions' submissions/allowed_signers
    tasks: Path | None = None  # default: VerifyOptions' tasks/
    # Task sets of imported suites (DIR/tasks, suite.json beside it): the methodology note of
    # each suite's page, and the task set its bundles are verified against.
    suite_tasks: tuple[Path, ...] = ()
    # Processes that verify and read the bundles: 1 reads them here; more, a pool of that
    # many. The board is the same bytes either way (load.BundlesLoader).
    jobs: int = 1
    # ``--cache DIR``: entries of bundles verified (or read) by an earlier build, reused when
    # nothing they depend on changed (entrycache.py); None: every bundle verified and read.
    cache: Path | None = None
    # ``--cache-key-env VAR``: the cache's files are sealed with this key, and one that does
    # not carry its tag is a miss (bench.core.seal); None: the directory is trusted as it is.
    cache_key: SealKey | None = field(default=None, repr=False)
    # ``--cache-prune``: remove the cached entries and digests this build's bundles do not use.
    cache_prune: bool = False
    extra_loaders: tuple[Loader, ...] = field(default=())


@dataclass(frozen=True)
class BuildResult:
    index: Path
    board_json: Path
    board: Board
    warnings: tuple[str, ...]
    # The warnings that make the board wrong (the only ones --strict fails on); the others
    # are notes the page already shows (small families, partial runs, no runs at all).
    problems: tuple[str, ...] = ()
    pages: tuple[tuple[Path, Board], ...] = ()
    """Every page written, (path, its board), the index first: one per suite."""
    reused: int | None = None
    """Bundles taken from ``--cache`` (None: built without a cache)."""
    pruned: int | None = None
    """Stale cache files removed (``--cache-prune``; None: not asked)."""


def check_options(options: BuildOptions) -> None:
    url = options.repo_url
    if url is not None and (not url.startswith("https://") or any(c in url for c in "\"'<> ")):
        raise BoardUsageError(
            f"must be an https:// URL, got {url!r}", code="BOARD_REPO_URL", field="--repo-url"
        )
    if options.resamples < 1 or options.frontier_resamples < 1:
        raise BoardUsageError("must be at least 1", field="--resamples")
    if options.seed < 0:
        raise BoardUsageError("must be a non-negative integer", field="--seed")
    _check_out(options.out)
    if options.cache is not None:
        if options.cache_key is not None and options.cache.is_symlink():
            raise BoardUsageError(
                "a sealed cache may come from a store others can write: it must be a "
                "directory, not a symbolic link",
                code="BOARD_CACHE",
                path=options.cache,
                field="--cache",
            )
        _check_writable(options.cache)
    elif options.cache_key is not None or options.cache_prune:
        flag = "--cache-key-env" if options.cache_key is not None else "--cache-prune"
        raise BoardUsageError("needs --cache DIR", code="BOARD_CACHE", field=flag)


def _check_out(out: Path) -> None:
    """``--out`` can hold a site, said before any bundle is verified (minutes, for a large
    board), not after: the same rules the site's writer holds it to (``site.write_site``)."""
    parent = out.resolve().parent
    if not parent.is_dir():
        said = "is not a directory" if parent.exists() else "does not exist"
        raise BoardBuildError(f"the parent directory {said}", code="BOARD_OUT", path=parent)
    if out.exists() and not out.is_dir():
        raise BoardBuildError("exists and is not a directory", code="BOARD_OUT", path=out)


REPOSITORY_RESULTS = "results"  # results/<entrant>/<run_id>/, beside submissions/


def _check_strict_inputs(options: BuildOptions) -> None:
    """Under ``--strict`` a ``--results`` directory that is not there, in a directory that is
    no repository of this project (no ``submissions/`` beside it), is refused: a publish step
    run from the wrong directory would otherwise deploy an empty board over the real one. An
    empty ``results/``, or none yet in a repository (git keeps no empty directory; a
    registration may come before any bundle), still builds the empty page; but only under the
    name a repository keeps its bundles under (``results/``): a missing ``--results reslts``
    beside ``submissions/`` is a mistyped path, not a repository without bundles."""
    results = options.results
    if not options.strict or results is None or results.is_dir():
        return
    parent = results.resolve().parent
    if results.exists():
        said = "is not a directory"
    elif (parent / "submissions").is_dir():
        if results.resolve().name == REPOSITORY_RESULTS:
            return  # a repository of this project with no bundle yet
        said = (
            f"does not exist, and a repository of this project keeps its bundles in "
            f"{REPOSITORY_RESULTS}/ (a mistyped path?)"
        )
    else:
        said = f"does not exist, and {parent} is no repository of this project (no submissions/)"
    raise BoardBuildError(
        f"{said}: --strict never builds an empty board for a results directory it cannot "
        "find; run from the repository root or name it with --results DIR",
        code="BOARD_STRICT",
        path=results,
        field="--results",
    )


def _check_writable(directory: Path) -> None:
    """``--cache`` names a directory this build can write (made if absent)."""
    import tempfile

    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".probe-"):
            pass
    except OSError as exc:
        raise BoardUsageError(
            f"cannot be written: {exc.strerror or exc}",
            code="BOARD_CACHE",
            path=directory,
            field="--cache",
        ) from None


def input_warnings(entries: list[EntryInput], verified: bool) -> list[str]:
    """A bundle that did not verify, and a run made by another harness version than this
    build's (its records may predate the schema this code reads). The harness rule is
    ``bench verify``'s own (``bench.verify.harness``): a bundle that verifies is never stale."""
    from bench.verify.harness import stale_harness

    warnings = []
    for e in sorted(entries, key=lambda entry: entry.source_path):
        if verified and e.source == "bundle" and not e.verified:
            warnings.append(f"unverifiable bundle {e.source_path}: {e.verified_note}")
        stale = stale_harness(e.harness)
        if stale is not None:
            warnings.append(f"stale schema: {e.source_path} was {stale}")
    return warnings


def given_suites(options: BuildOptions) -> dict[str, tuple[Path, SuiteManifest]]:
    """``--suite-tasks``: suite name -> (task set, its suite.json). A task set without a
    suite.json is bench-suite's own (``--tasks``), and one suite may be given once."""
    from bench.core.suite import suites_given

    return suites_given(options.suite_tasks, error=BoardUsageError, code="BOARD_SUITE")


@dataclass(frozen=True)
class PagePlan:
    """One page of the board: the runs of one suite."""

    stem: str  # the file name without .html / .json: index, or suite-<name>
    entries: list[EntryInput]
    suite: SuiteInfo | None  # None: the page names no suite (bench-suite's runs alone)
    notes: list[str]  # warnings of this page only


def suite_pages(
    entries: list[EntryInput], given: Mapping[str, tuple[Path, SuiteManifest]]
) -> list[PagePlan]:
    """One page per suite. bench-suite's page (else the first suite by name) is ``index``;
    the others ``suite-<name>``. A board of bench-suite's runs alone is one page that names
    no suite: the page it was before suites were named."""
    from bench.core.suite import DEFAULT_SUITE, DEFAULT_SUITE_NAME

    by_suite: dict[str, list[EntryInput]] = {}
    for e in entries:
        by_suite.setdefault(e.suite, []).append(e)
    names = sorted(by_suite, key=lambda name: (name != DEFAULT_SUITE_NAME, name))
    if not names or names == [DEFAULT_SUITE_NAME]:
        return [PagePlan("index", entries, None, [])]
    pages = []
    for position, name in enumerate(names):
        members = by_suite[name]
        versions = sorted({e.suite_version for e in members}, key=lambda v: v or "")
        known = given.get(name)
        manifest = DEFAULT_SUITE if name == DEFAULT_SUITE_NAME else known[1] if known else None
        notes = []
        if manifest is None:
            notes.append(
                f"suite {name}: no methodology note (build with --suite-tasks DIR/tasks, the "
                "task set its import wrote, suite.json beside it)"
            )
        elif manifest.version not in versions:
            shown = ", ".join(v or "none" for v in versions)
            notes.append(
                f"suite {name}: the methodology note given is of version {manifest.version}, "
                f"the runs on its page are of version {shown}"
            )
        info = SuiteInfo(
            name=name,
            versions=versions,
            title=manifest.title if manifest else name,
            source=manifest.source if manifest else None,
            licence=manifest.licence if manifest else None,
            methodology=manifest.methodology if manifest else None,
        )
        pages.append(PagePlan("index" if position == 0 else f"suite-{name}", members, info, notes))
    return pages


def render_board(
    board: Board,
    options: BuildOptions,
    pairs: list[dict[str, Any] | None] | None = None,
    standings: list[dict[str, Any] | None] | None = None,
    tasks: list[dict[str, Any] | None] | None = None,
) -> bytes:
    """The page of ``board``; ``pairs``: its cohorts' comparisons (``pairs.board_pairs``),
    ``standings``: their ranks per family and category (``standings.board_standings``), and
    ``tasks``: every row's verdict on every task (``taskview.board_tasks``); None for a board
    made without its runs' task values (no "is A better than B?", "rank by" or task view)."""
    from .page import packaged_asset, page_context, render_page

    if options.methodology is None:
        markdown = packaged_asset("METHODOLOGY.md")
    else:
        try:
            markdown = options.methodology.read_text(encoding="utf-8")
        except OSError as exc:
            raise BoardBuildError(
                f"cannot read: {exc.strerror}", code="BOARD_TEMPLATE", path=options.methodology
            ) from None
    context = page_context(
        board, options.templates, markdown, options.repo_url, pairs, standings, tasks
    )
    return render_page(context, options.templates).encode("utf-8")


def build(options: BuildOptions) -> BuildResult:
    """Build the board; with ``strict``, a warning that makes the board wrong (an unverifiable
    bundle, a stale schema, an unknown entrant) fails the build, never a note the page shows
    (a small family, a partial run, no runs yet). The old site stays untouched unless the
    whole new one was written."""
    from .site import refuse_foreign_out, write_site

    check_options(options)
    _check_strict_inputs(options)
    refuse_foreign_out(options.out)
    suites = given_suites(options)
    loaders: list[Loader] = list(options.extra_loaders)
    if options.runs is not None:
        loaders.append(RunsLoader(options.runs))
    bundles = None
    if options.results is not None:
        bundles = BundlesLoader(
            options.results,
            verify=options.verify_bundles,
            allowed_signers=options.allowed_signers,
            tasks=options.tasks,
            suite_tasks={name: tasks for name, (tasks, _) in suites.items()},
            jobs=options.jobs,
            cache=options.cache,
            cache_key=options.cache_key,
            cache_prune=options.cache_prune,
        )
        loaders.append(bundles)
    loaded, inputs_hash = load_all(loaders, options.repo_url)
    # A cassette replay re-scores answers already recorded: never a row (a second row of the
    # same answers would count one entrant twice); the page says it was left out.
    entries = [e for e in loaded if e.replay_of is None]
    replays = [
        f"{e.source_path} is a replay of {e.replay_of}: a replay is not a row"
        for e in loaded
        if e.replay_of is not None
    ]
    # A reference run is a shipped baseline, not an entrant: no registry record is expected.
    entrants = [e.entrant for e in entries if e.reference is None]
    records, registry_warnings = load_registry(options.submissions, entrants)
    # But when its entrant has one, it names the row as it names any other: a reference row's
    # display name is otherwise the bundle's own word, which nobody reviewed (a signed run of
    # a baseline could call itself another entrant or a famous model).
    referenced = sorted({e.entrant for e in entries if e.reference is not None} - set(entrants))
    records.update(load_registry(options.submissions, referenced)[0])
    # A replay is no row, but an unverifiable one is still a problem: --strict stands for
    # verifying every bundle under results/ (the publish workflow verifies nothing else).
    problems = [*input_warnings(loaded, options.verify_bundles), *registry_warnings]
    # One name per entrant on the page: the registry's, else the run's own (latest run).
    shown = {e.entrant: e.display_name for e in sorted(entries, key=lambda e: e.created_at)}
    shown.update({entrant: record.display_name for entrant, record in records.items()})
    problems += name_collisions(shown)
    # Every run's own name is shown too (a registered entrant's row labels it; a reference row
    # without a record is named by it): none may read as another entrant's.
    labels: dict[str, set[str]] = {}
    for e in entries:
        labels.setdefault(e.entrant, set()).add(e.display_name)
    problems += label_collisions(labels, shown)
    # The names beside them (the card's organisation, model and links; the run's model) may
    # not pass for another's either.
    models: dict[str, list[str]] = {}
    for e in entries:
        target = e.config.get("target")
        model = target.get("model") if isinstance(target, dict) else None
        if isinstance(model, str):
            models.setdefault(e.entrant, []).append(model)
    problems += field_problems(records, models)
    if bundles is not None and options.verify_bundles:
        problems += [f"not a bundle {path}: no manifest.json" for path in bundles.strays()]
    plan = suite_pages(entries, suites)
    switcher = [
        SuitePage(
            name=page.suite.name,
            title=page.suite.title,
            page=f"{page.stem}.html",
            rows=len(page.entries),
        )
        for page in plan
        if page.suite is not None and len(plan) > 1
    ]
    from .pairs import board_pairs
    from .standings import board_standings
    from .taskview import board_tasks, prompt_sources, task_prompts

    boards: list[tuple[str, Board]] = []
    pairs: dict[str, list[dict[str, Any] | None]] = {}
    standings: dict[str, list[dict[str, Any] | None]] = {}
    tasks: dict[str, list[dict[str, Any] | None]] = {}
    warnings: list[str] = []
    # the task view's prompts: the task sets bundles are verified against, where they hash
    # to a cohort's (loaded once, for every page)
    sources = prompt_sources(options.tasks, options.results, options.suite_tasks)
    prompts: dict[str, dict[str, str]] = {}
    for page in plan:
        board = build_rows(
            page.entries,
            inputs_hash=inputs_hash,
            seed=options.seed,
            B=options.resamples,
            frontier_B=options.frontier_resamples,
        )
        pairs[page.stem] = board_pairs(board, page.entries)  # its cohorts' paired differences
        standings[page.stem] = board_standings(board, page.entries)  # ranks per category
        missing = [c for c in board.cohorts if c.task_set_hash not in prompts]
        if sources and missing:
            prompts.update(task_prompts(sources, missing))
        tasks[page.stem] = board_tasks(board, page.entries, prompts)  # the task view
        board = attach_registry(board, records)
        page_warnings = [*board.warnings, *problems, *replays, *page.notes]
        if not entries:
            page_warnings.append("no runs or bundles found")
        if len(plan) == 1:
            warnings = page_warnings
        else:  # the problems are every page's; said once here
            warnings += [w for w in page_warnings if w not in warnings]
        update = {"warnings": page_warnings, "suite": page.suite, "suites": switcher}
        boards.append((page.stem, board.model_copy(update=update)))
    if bundles is not None and bundles.unwritten:
        # the build's own report only, never a page: a board is the same with or without
        # its cache (a new list: the one-page board holds ``warnings`` itself)
        warnings = [
            *warnings,
            f"--cache not written ({bundles.unwritten[0]}): the next build verifies "
            "these bundles again",
        ]
    elif bundles is not None and bundles.digests_unwritten:
        warnings = [  # the entries were kept; a bundle's provenance digest was not
            *warnings,
            f"--cache: a provenance digest not kept ({bundles.digests_unwritten[0]}): the "
            "board is the same, the next build reads those bundles again",
        ]
    if options.strict and problems:
        # Why each bundle failed, as bench verify says it: for this error only, never a page.
        why = [f"{e.source_path}: {e.verify_detail}" for e in loaded if e.verify_detail]
        raise BoardBuildError(
            f"--strict: {len(problems)} problem(s): "
            + "; ".join(problems)
            + ("".join(f"\n  {line}" for line in why)),
            path=options.out,
        )
    from .transcripts import VIEWER, Sources, transcript_files, viewer_page

    # Each failed task opens its attempts in the viewer beside the page (transcripts.py).
    boards, files = transcript_files(boards, Sources(options.runs, options.results))
    if files:
        files[VIEWER] = viewer_page(options.templates)
    for stem, board in boards:
        data = "board" if stem == "index" else stem
        files[f"{stem}.html"] = render_board(
            board, options, pairs.get(stem), standings.get(stem), tasks.get(stem)
        )
        files[f"{data}.json"] = (board.model_dump_json(indent=2) + "\n").encode("utf-8")
    write_site(options.out, files)
    return BuildResult(
        index=options.out / "index.html",
        board_json=options.out / "board.json",
        board=boards[0][1],
        warnings=tuple(warnings),
        problems=tuple(problems),
        pages=tuple((options.out / f"{stem}.html", board) for stem, board in boards),
        reused=sum(bundles.reused) if bundles is not None and options.cache is not None else None,
        pruned=sum(bundles.pruned) if bundles is not None and options.cache_prune else None,
    )


__all__ = [
    "BuildOptions",
    "BuildResult",
    "PagePlan",
    "build",
    "check_options",
    "given_suites",
    "input_warnings",
    "render_board",
    "suite_pages",
]
