"""``build``: load -> rows -> render -> write, the function behind ``bench board build``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bench.core.rng import DEFAULT_SEED

from .entries import EntryInput
from .errors import BoardBuildError, BoardUsageError
from .load import BundlesLoader, Loader, RunsLoader, load_all
from .model import Board
from .registry import attach_registry, load_registry
from .rows import build_rows


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


def input_warnings(entries: list[EntryInput], verified: bool) -> list[str]:
    """A bundle that did not verify, and a run made by another harness version than this
    build's (its records may predate the schema this code reads)."""
    from bench import HARNESS_VERSION

    warnings = []
    for e in sorted(entries, key=lambda entry: entry.source_path):
        if verified and e.source == "bundle" and not e.verified:
            warnings.append(f"unverifiable bundle {e.source_path}: {e.verified_note}")
        if e.harness != HARNESS_VERSION:
            warnings.append(
                f"stale schema: {e.source_path} was made by harness {e.harness}, this build "
                f"is harness {HARNESS_VERSION} (re-run, or build with that version)"
            )
    return warnings


def render_board(board: Board, options: BuildOptions) -> bytes:
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
    context = page_context(board, options.templates, markdown, options.repo_url)
    return render_page(context, options.templates).encode("utf-8")


def build(options: BuildOptions) -> BuildResult:
    """Build the board; with ``strict``, a warning that makes the board wrong (an unverifiable
    bundle, a stale schema, an unknown entrant) fails the build, never a note the page shows
    (a small family, a partial run, no runs yet). The old site stays untouched unless the
    whole new one was written."""
    from .site import write_site

    check_options(options)
    loaders: list[Loader] = list(options.extra_loaders)
    if options.runs is not None:
        loaders.append(RunsLoader(options.runs))
    if options.results is not None:
        loaders.append(
            BundlesLoader(
                options.results,
                verify=options.verify_bundles,
                allowed_signers=options.allowed_signers,
                tasks=options.tasks,
            )
        )
    loaded, inputs_hash = load_all(loaders, options.repo_url)
    # A cassette replay re-scores answers already recorded: never a row (a second row of the
    # same answers would count one entrant twice); the page says it was left out.
    entries = [e for e in loaded if e.replay_of is None]
    replays = [
        f"{e.source_path} is a replay of {e.replay_of}: a replay is not a row"
        for e in loaded
        if e.replay_of is not None
    ]
    board = build_rows(
        entries,
        inputs_hash=inputs_hash,
        seed=options.seed,
        B=options.resamples,
        frontier_B=options.frontier_resamples,
    )
    # A reference run is a shipped baseline, not an entrant: no registry record is expected.
    entrants = [e.entrant for e in entries if e.reference is None]
    records, registry_warnings = load_registry(options.submissions, entrants)
    problems = [*input_warnings(entries, options.verify_bundles), *registry_warnings]
    board = attach_registry(board, records)
    warnings = [*board.warnings, *problems, *replays]
    if not entries:
        warnings.append("no runs or bundles found")
    board = board.model_copy(update={"warnings": list(warnings)})
    if options.strict and problems:
        raise BoardBuildError(
            f"--strict: {len(problems)} problem(s): " + "; ".join(problems),
            path=options.out,
        )
    index = render_board(board, options)
    board_json = (board.model_dump_json(indent=2) + "\n").encode("utf-8")
    write_site(options.out, {"index.html": index, "board.json": board_json})
    return BuildResult(
        index=options.out / "index.html",
        board_json=options.out / "board.json",
        board=board,
        warnings=tuple(warnings),
        problems=tuple(problems),
    )


__all__ = [
    "BuildOptions",
    "BuildResult",
    "build",
    "check_options",
    "input_warnings",
    "render_board",
]
