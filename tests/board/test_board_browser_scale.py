"""A board of about 100 rows in three cohorts, read in a real browser (Debian's Chromium through
Playwright, from file://): what a reader of a published board meets. The rows are made
directly (``board_synth.synthetic_board``, no statistics), with long names, version labels and
hundreds of failed tasks per row; the page is built once for the module."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from board_synth import FAMILIES6, synthetic_board
from test_board_browser import ARGS, Watched, _chromium

REPO = Path(__file__).resolve().parents[2]
COHORTS = 3
FAILED = 300
LABEL = "temperature-0.7-max-tokens-4096-tools-v2"


def scale_board() -> Any:
    """Three cohorts of 34 rows; cohort k's entrants are ``cohortk-entrant-NNNN`` (a search
    for one matches one cohort); every row failed ``FAILED`` tasks; the three best rows of each
    cohort share one long version label (the chart labels them all)."""
    from bench.board.model import Board, FailedTask

    failed = [
        FailedTask(
            task_id=f"task-{t:04d}", family=FAMILIES6[t % 6], value=0.0,
            lines=[f"2/5 repeats: the reply to task-{t:04d} did not state the expected figure"],
            private=False, transcript=None,
        )
        for t in range(FAILED)
    ]  # fmt: skip
    cohorts = []
    for k in range(COHORTS):
        cohort = synthetic_board(34, seed=k).cohorts[0]

        def renamed(key: str, k: int = k) -> str:
            return f"cohort{k}-{key}"

        rows = [
            r.model_copy(update={
                "key": renamed(r.key), "entrant": renamed(r.entrant), "failed": failed,
                "config_label": LABEL if i < 3 else r.config_label,
            })
            for i, r in enumerate(cohort.entries)
        ]  # fmt: skip
        cohorts.append(
            cohort.model_copy(update={
                "cohort_key": str(k) * 64, "title": f"cohort {k}: " + cohort.title,
                "entries": rows, "cost_view": [renamed(x) for x in cohort.cost_view],
                "latency_view": [renamed(x) for x in cohort.latency_view],
            })
        )  # fmt: skip
    return Board(inputs_hash="f" * 64, seed=1, resamples=100, frontier_resamples=100,
                 cohorts=cohorts, warnings=[])  # fmt: skip


@pytest.fixture(scope="module")
def scale_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from bench.board.build import BuildOptions, render_board

    out = tmp_path_factory.mktemp("scale") / "index.html"
    options = BuildOptions(out=out.parent, templates=REPO / "site_templates",
                           methodology=REPO / "docs" / "METHODOLOGY.md")  # fmt: skip
    out.write_bytes(render_board(scale_board(), options))
    return out


@pytest.fixture(scope="module")
def browser(scale_site: Path) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=_chromium(), args=ARGS)
        yield launched
        launched.close()


def _open(browser: Any, site: Path, width: int, height: int) -> tuple[Any, Watched]:
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(20_000)
    watched = Watched(context.new_page())
    watched.page.goto(site.as_uri(), timeout=60_000)
    watched.page.wait_for_selector("html[data-board-ready]", timeout=60_000)
    return context, watched


@pytest.fixture
def wide(browser: Any, scale_site: Path) -> Iterator[Watched]:
    context, watched = _open(browser, scale_site, 1400, 1000)
    yield watched
    assert watched.errors == []
    context.close()


ROWS = """rows => rows.map(r => [r.dataset.key, r.querySelector("td.rank").textContent])"""


def test_sorting_by_any_column_keeps_every_row_with_its_rank(wide: Watched) -> None:
    p = wide.page
    p.click("#cohort-0 button.rows-toggle")  # all 34 rows shown
    before = dict(p.eval_on_selector_all("#cohort-0 tr.entry", ROWS))
    assert len(before) == 34
    buttons = p.locator("#cohort-0 th button[data-sort]")
    for i in range(buttons.count()):
        buttons.nth(i).click()
        after = p.eval_on_selector_all("#cohort-0 tr.entry:not([hidden])", ROWS)
        assert len(after) == 34 and dict(after) == before  # no row lost, each keeps its rank
        # keyboard focus stays on the header button just used
        assert p.evaluate("document.activeElement.getAttribute('data-sort')") == (
            buttons.nth(i).get_attribute("data-sort")
        )
    p.click("#cohort-0 th button[data-sort='rank']")
    if p.locator("#cohort-0 th:has(button[data-sort='rank'])").get_attribute("aria-sort") != (
        "ascending"
    ):
        p.click("#cohort-0 th button[data-sort='rank']")
    ranks = [int(r) for r in p.eval_on_selector_all(
        "#cohort-0 tr.entry", "rows => rows.map(r => r.dataset.rank)")]  # fmt: skip
    assert ranks == sorted(ranks) and ranks[0] == 1


def test_a_filter_folds_the_cohorts_it_empties(wide: Watched) -> None:
    p = wide.page
    p.fill("#filter-text", "cohort1-entrant-0003")
    assert p.locator("#cohort-1 tr.entry:not([hidden])").count() == 1
    assert p.locator("#cohort-1 thead").is_visible()
    for c in (0, 2):
        section = p.locator(f"#cohort-{c}")
        assert section.locator("h2").is_visible()
        assert section.locator(".rows-status").text_content() == (
            "No entry of this cohort matches the filters."
        )
        # no column headers over nothing, no charts of rows the filter hid
        assert section.locator("thead").is_hidden() and section.locator(".charts").is_hidden()
        box = section.bounding_box()
        assert box is not None and box["height"] < 200, box
    p.fill("#filter-text", "")
    for c in range(COHORTS):
        assert p.locator(f"#cohort-{c} thead").is_visible()
        assert p.locator(f"#cohort-{c} .charts").is_visible()


LABEL_BOXES = """svg => [...svg.querySelectorAll(".labels text")].map(t => {
  const b = t.getBoundingClientRect();
  return [t.textContent, b.left, b.top, b.right, b.bottom];
})"""


@pytest.mark.parametrize("width", [1400, 390])
def test_chart_labels_name_distinct_rows_and_never_overlap(
    browser: Any, scale_site: Path, width: int
) -> None:
    context, w = _open(browser, scale_site, width, 900)
    try:
        p = w.page
        charts = p.locator("figure.chart svg.chart-svg")
        assert charts.count() == 2 * COHORTS
        for i in range(charts.count()):
            svg = charts.nth(i)
            frame = svg.bounding_box()
            assert frame is not None
            labels = svg.evaluate(LABEL_BOXES)
            texts = [t[0] for t in labels]
            assert sum(LABEL[-12:] in t for t in texts) >= 2  # rows sharing the long label
            assert len(set(texts)) == len(texts), texts  # different rows, different labels
            for k, (_, left, top, right, bottom) in enumerate(labels):
                assert frame["x"] - 0.5 <= left and right <= frame["x"] + frame["width"] + 0.5
                for other in labels[k + 1 :]:
                    apart = (right <= other[1] + 0.5 or other[3] <= left + 0.5
                             or bottom <= other[2] + 0.5 or other[4] <= top + 0.5)  # fmt: skip
                    assert apart, (labels[k], other)
        assert w.errors == []
    finally:
        context.close()


def test_long_names_wrap_inside_their_cell(wide: Watched) -> None:
    p = wide.page
    boxes = p.eval_on_selector_all(
        "#cohort-0 tr.entry:not([hidden])",
        """rows => rows.map(r => {
          const name = r.querySelector("td.name .title-line").getBoundingClientRect();
          const cell = r.querySelector("td.name").getBoundingClientRect();
          const next = r.querySelector("td.name + td").getBoundingClientRect();
          return [name.right, cell.right, next.left, name.height];
        })""",
    )
    assert len(boxes) == 30
    for name_right, cell_right, next_left, height in boxes:
        assert name_right <= cell_right + 0.5 and cell_right <= next_left + 0.5
        assert height < 45  # two lines at most, then an ellipsis


@pytest.mark.parametrize("width,height", [(1400, 1000), (390, 844)])
def test_a_cards_failed_tasks_are_one_click_from_its_top(
    browser: Any, scale_site: Path, width: int, height: int
) -> None:
    context, w = _open(browser, scale_site, width, height)
    try:
        p = w.page
        p.locator("#cohort-0 tr.entry").nth(3).locator("td.rank").click()
        card = p.locator("#card")
        heading = p.locator("#card h3", has_text="Failed tasks")
        assert heading.text_content() == f"Failed tasks ({FAILED})"
        frame = card.bounding_box()
        assert frame is not None
        start = heading.bounding_box()
        # at the foot of the card's first screen, or below it
        assert start is not None and start["y"] > frame["y"] + 0.8 * frame["height"]
        jump = p.locator("#card-to-failed")
        assert jump.is_visible() and jump.text_content() == f"failed tasks ({FAILED}) ↓"
        jump.click()
        head = p.locator("#card .card-head").bounding_box()
        landed = heading.bounding_box()
        assert head is not None and landed is not None
        # just below the card's own head, which stays in place, and focused
        assert head["y"] + head["height"] <= landed["y"] <= head["y"] + head["height"] + 40
        assert p.evaluate("document.activeElement.id") == "card-failed"
        assert p.locator("#card ul.failed li").count() == FAILED
        assert p.evaluate("location.hash").startswith("#card=")  # still this card's address
        assert w.errors == []
    finally:
        context.close()


SIDEWAYS = "(w => w.scrollWidth > w.clientWidth)(document.getElementById('table-0'))"


def test_a_long_tables_headers_and_sideways_scroll_bar_stay_on_screen(
    browser: Any, scale_site: Path
) -> None:
    context, w = _open(browser, scale_site, 1024, 768)  # the table is wider than the window
    try:
        p = w.page
        p.click("#cohort-0 button.rows-toggle")
        p.click("#cohort-0 nav.cohort-nav a[href='#table-0']")
        p.wait_for_timeout(100)
        wrap = p.locator("#table-0").bounding_box()
        assert wrap is not None
        assert p.evaluate(SIDEWAYS)
        # the box's sideways scroll bar is on screen, not under the 34th row
        assert wrap["y"] + wrap["height"] <= 768
        row = p.locator("#cohort-0 tr.entry").nth(30)
        row.scroll_into_view_if_needed()
        controls = p.locator("nav.controls").bounding_box()
        header = p.locator("#cohort-0 thead th").nth(2).bounding_box()
        shown = row.bounding_box()
        assert controls is not None and header is not None and shown is not None
        # the column headers are still over the columns, below the filters, above the row
        assert controls["y"] + controls["height"] - 1 <= header["y"]
        assert header["y"] + header["height"] <= shown["y"] + 1
        on_top = p.evaluate(
            "([x, y]) => !!document.elementFromPoint(x, y).closest('#cohort-0 thead')",
            [header["x"] + header["width"] / 2, header["y"] + header["height"] / 2],
        )
        assert on_top
        # scrolled sideways, the row's rank and name stay at the box's left edge, on top
        p.evaluate("document.getElementById('table-0').scrollLeft = 400")
        for cell in ("td.rank", "td.name"):
            box = row.locator(cell).bounding_box()
            assert box is not None and box["x"] < wrap["x"] + 100, (cell, box)
            assert p.evaluate(
                "([x, y, css]) => document.elementFromPoint(x, y).closest(css) !== null",
                [box["x"] + 10, box["y"] + 10, cell],
            ), cell
        assert w.errors == []
    finally:
        context.close()
