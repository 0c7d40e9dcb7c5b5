"""Stage 3: rows -> one self-contained ``index.html``.

Jinja2 with autoescape; the board's data goes into ``<script type="application/json">`` via
``|tojson`` and the page's script reads it with ``JSON.parse`` and writes with
``textContent``. The charts are inline SVG drawn here at build time (``charts.py``), every
string in them escaped. The only inline code is ours (``board.js``, ``board.css``); the
Content-Security-Policy carries their SHA-256 hashes and nothing else. ``board.js`` sits in
``<head>``: it sets the colour scheme the reader chose (kept in ``localStorage``) before the
first paint, and does the rest once the document is parsed.

The templates are package data (``bench/board/assets/``, read through ``importlib.resources``,
so an installed package builds a board from any directory); a ``templates`` directory given
instead overrides them (``--templates``). See docs/DECISIONS.md on the layout.
"""

from __future__ import annotations

import base64
import hashlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .charts import cohort_charts
from .errors import BoardBuildError
from .model import Board, SuiteInfo
from .pairs import TOP

TEMPLATE = "index.html.j2"
ROW_LIMIT = 30
"""Rows a cohort shows before "show all": the charts stay a short scroll away."""


def csp_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def content_security_policy(scripts: list[str], styles: list[str], connect: str = "'none'") -> str:
    """Hashes of our inline scripts and styles, and nothing else: no ``'unsafe-inline'``, no
    ``'unsafe-eval'``, no network source (``connect``: the transcript viewer's ``'self'``,
    which fetches its data files from beside it)."""
    return "; ".join(
        [
            "default-src 'none'",
            "script-src " + " ".join(csp_hash(s) for s in scripts),
            "style-src " + " ".join(csp_hash(s) for s in styles),
            "img-src data:",
            "font-src data:",
            f"connect-src {connect}",
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )


@dataclass(frozen=True)
class PageContext:
    """Everything the template reads."""

    board: Board
    data: dict[str, Any]
    css: str
    board_js: str
    charts: list[dict[str, str | None]]
    """Per cohort, the ``cost`` and ``latency`` charts as SVG (None: nothing to plot)."""
    methodology_html: str
    csp: str
    languages: list[str]
    """Every language some entry has tasks in (the language filter's options)."""
    descriptions: dict[str, str]
    """Entrant id -> its registry description rendered (raw HTML off, https: links only)."""
    submissions_url: str | None = None
    """docs/SUBMISSIONS.md in the repository (``--repo-url``), linked from the introduction."""
    repo_url: str | None = None
    """The repository (``--repo-url``, https: only), linked from the introduction."""
    suite_html: dict[str, str] | None = None
    """The page's suite (``board.suite``): its ``source`` and ``methodology`` Markdown rendered
    as a contributor's is (raw HTML off, https: links only, no images); None: no suite named."""
    pairs: list[dict[str, Any] | None] | None = None
    """Per cohort, its rows' paired differences (``pairs.board_pairs``) for the "is A better
    than B?" view; None (for the page or a cohort): no such view (rows made without their
    runs' task values, as a synthetic board's are)."""
    standings: list[dict[str, Any] | None] | None = None
    """Per cohort, its ranked rows' ranks per family and per suite category
    (``standings.board_standings``) for the "rank by" view: its options name them, and each
    ranked row carries its own (``data-ranks``, :func:`row_ranks`); None: no such view."""
    tasks: list[dict[str, Any] | None] | None = None
    """Per cohort, every row's verdict on every task it has (``taskview.board_tasks``) for the
    task view ("which entries failed this task?"); None: no such view."""


def page_data(board: Board) -> dict[str, Any]:
    """The board as the page's script reads it: ``board.json``'s rows, except each failed task,
    which is a row ``[task, family, value, [line, ...], private, folder, file]`` of indices into
    one table of strings (``strings``), the transcript link cut at its last ``/`` (folder -1:
    no link; -2: the folder of the entry's previous failed task). The same check's sentence,
    the same task id and the same file name recur for every entrant that failed the task; said
    once, they leave the page for 1,000 entrants under 2 MB gzipped (docs/PERFORMANCE.md), and
    nothing the report card shows is lost."""
    strings: list[str] = []
    index: dict[str, int] = {}

    def ref(text: str) -> int:
        k = index.get(text)
        if k is None:
            k = index[text] = len(strings)
            strings.append(text)
        return k

    dumped = board.model_dump(mode="json")
    for cohort in dumped["cohorts"]:
        for entry in cohort["entries"]:
            compact = []
            previous = None
            for f in entry["failed"]:
                link = f["transcript"]
                folder, file = link.rsplit("/", 1) if link is not None else (None, None)
                same = folder is not None and folder == previous
                previous = folder
                compact.append(
                    [
                        ref(f["task_id"]),
                        ref(f["family"]),
                        f["value"],
                        [ref(line) for line in f["lines"]],
                        1 if f["private"] else 0,
                        -1 if folder is None else -2 if same else ref(folder),
                        -1 if file is None else ref(file),
                    ]
                )
            entry["failed"] = compact
    return {"board": dumped, "strings": strings}


def row_ranks(standing: dict[str, Any] | None) -> dict[str, str]:
    """A cohort's standings as its rows carry them: row key -> ``"lo-hi lo-hi ..."``, one
    range per family or category in the order of the "rank by" options; {} without them."""
    if not standing:
        return {}
    return {
        key: " ".join(f"{v['lo'][k]}-{v['hi'][k]}" for v in standing["by"])
        for k, key in enumerate(standing["keys"])
    }


def _shift_headings(md: Any, levels: int) -> None:
    """Render every Markdown heading ``levels`` lower (``#`` as ``<h2>`` for 1; never below
    ``<h6>``): the page has one ``<h1>``, and a note keeps the heading order of where it sits."""
    if not levels:
        return

    def heading(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        token.tag = f"h{min(6, int(token.tag[1:]) + levels)}"
        rendered: str = self.renderToken(tokens, idx, options, env)
        return rendered

    md.add_render_rule("heading_open", heading)
    md.add_render_rule("heading_close", heading)


def methodology_html(markdown: str) -> str:
    """docs/METHODOLOGY.md as the page's last section: its ``#`` title is an ``<h2>``, under the
    page's one ``<h1>``."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("js-default")
    _shift_headings(md, 1)
    rendered: str = md.render(markdown)
    return rendered


def _https_only(url: str) -> bool:
    return url.strip().lower().startswith("https:")


def description_html(markdown: str, heading_shift: int = 0) -> str:
    """A contributor's Markdown: raw HTML is escaped, a link that is not https: stays text,
    images are off (the page makes no network request), links get ``rel=nofollow``; its
    headings ``heading_shift`` levels lower (a note under an ``<h3>`` starts at ``<h4>``)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("js-default").disable("image")
    md.validateLink = _https_only  # type: ignore[method-assign]
    _shift_headings(md, heading_shift)

    def link_open(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        tokens[idx].attrSet("rel", "nofollow noopener noreferrer")
        rendered: str = self.renderToken(tokens, idx, options, env)
        return rendered

    md.add_render_rule("link_open", link_open)
    rendered: str = md.render(markdown)
    return rendered


def packaged_asset(name: str) -> str:
    """A file shipped in ``bench/board/assets/`` (templates, ``METHODOLOGY.md``)."""
    from importlib.resources import files

    resource = files("bench.board").joinpath("assets", name)
    try:
        return resource.read_text(encoding="utf-8")
    except OSError as exc:
        raise BoardBuildError(
            f"cannot read the packaged asset: {exc.strerror}",
            code="BOARD_TEMPLATE",
            path=f"bench/board/assets/{name}",
        ) from None


def read_asset(templates: Path | None, name: str) -> str:
    """``name`` from ``templates`` (None: the packaged assets)."""
    if templates is None:
        return packaged_asset(name)
    try:
        return (templates / name).read_text(encoding="utf-8")
    except OSError as exc:
        raise BoardBuildError(
            f"cannot read template: {exc.strerror}", code="BOARD_TEMPLATE", path=templates / name
        ) from None


def page_context(
    board: Board,
    templates: Path | None,
    methodology_md: str,
    repo_url: str | None = None,
    pairs: list[dict[str, Any] | None] | None = None,
    standings: list[dict[str, Any] | None] | None = None,
    tasks: list[dict[str, Any] | None] | None = None,
) -> PageContext:
    css = read_asset(templates, "board.css")
    board_js = read_asset(templates, "board.js")
    data = page_data(board)
    return PageContext(
        board=board,
        data=data,
        css=css,
        board_js=board_js,
        charts=[cohort_charts(c, i) for i, c in enumerate(board.cohorts)],
        methodology_html=methodology_html(methodology_md),
        csp=content_security_policy([board_js], [css]),
        languages=sorted(
            {s.language for c in board.cohorts for e in c.entries for s in e.languages}
        ),
        descriptions={
            # shown in the card under its <h3> "About the entrant"
            e.entrant: description_html(e.entrant_info.description, heading_shift=3)
            for c in board.cohorts
            for e in sorted(c.entries, key=lambda row: row.entrant)
            if e.entrant_info is not None and e.entrant_info.description
        },
        submissions_url=f"{repo_url}/blob/HEAD/docs/SUBMISSIONS.md" if repo_url else None,
        repo_url=repo_url if repo_url and _https_only(repo_url) else None,
        suite_html=None if board.suite is None else suite_html(board.suite),
        pairs=pairs if pairs is not None and len(pairs) == len(board.cohorts) else None,
        standings=(
            standings if standings is not None and len(standings) == len(board.cohorts) else None
        ),
        tasks=tasks if tasks is not None and len(tasks) == len(board.cohorts) else None,
    )


def suite_html(suite: SuiteInfo) -> dict[str, str]:
    """A suite's attribution and methodology note as HTML. suite.json comes from a task set
    the build was given, still rendered as untrusted text: it is a third party's words."""
    return {
        name: description_html(text, heading_shift=2)  # under the note's <h2>
        for name, text in (("source", suite.source), ("methodology", suite.methodology))
        if text
    }


def _template(name: str, templates: Path | None) -> Any:
    import jinja2

    loader: jinja2.BaseLoader = (
        jinja2.FunctionLoader(packaged_asset)
        if templates is None
        else jinja2.FileSystemLoader(str(templates))
    )
    where = f"bench/board/assets/{name}" if templates is None else templates / name
    env = jinja2.Environment(
        loader=loader,
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    try:
        return env.get_template(name)
    except jinja2.TemplateError as exc:
        raise BoardBuildError(str(exc), code="BOARD_TEMPLATE", path=where) from None


def render_template(
    name: str, templates: Path | None, *, css: str, script: str, **values: Any
) -> str:
    """A page of ours other than the board (the transcript viewer): its own ``css`` and
    ``script`` inline, trusted; every other value escaped."""
    from markupsafe import Markup

    rendered: str = _template(name, templates).render(
        css=Markup(css), script=Markup(script), **values
    )
    return rendered


def render_page(context: PageContext, templates: Path | None = None) -> str:
    """Render ``index.html.j2`` from ``templates`` (None: the packaged templates)."""
    from markupsafe import Markup

    template = _template(TEMPLATE, templates)
    # Our own code and our own Markdown (raw HTML off) are trusted; contributor data never is.
    return template.render(  # type: ignore[no-any-return]
        ctx=context,
        css=Markup(context.css),
        board_js=Markup(context.board_js),
        row_limit=ROW_LIMIT,
        top_pairs=TOP,
        # per cohort, how many ranked rows hold each rank: a rank two rows share is a tie
        rank_holders=[
            Counter(e.rank for e in c.entries if e.ranked) for c in context.board.cohorts
        ],
        charts=[
            {view: Markup(svg) if svg else None for view, svg in c.items()} for c in context.charts
        ],
        methodology=Markup(context.methodology_html),
        descriptions={k: Markup(v) for k, v in sorted(context.descriptions.items())},
        suite_html={k: Markup(v) for k, v in (context.suite_html or {}).items()},
        # per cohort, each ranked row's ranks on every family or category ("rank by")
        row_ranks=[row_ranks(s) for s in context.standings or [None] * len(context.board.cohorts)],
    )


__all__ = [
    "PageContext",
    "content_security_policy",
    "csp_hash",
    "description_html",
    "packaged_asset",
    "page_context",
    "page_data",
    "read_asset",
    "render_page",
    "render_template",
    "row_ranks",
    "suite_html",
]
