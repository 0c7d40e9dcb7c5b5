"""The page in a real browser (Debian's Chromium through Playwright), opened from file://."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def _chromium() -> str:
    found = shutil.which("chromium") or (
        "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
    )
    if found:
        return found
    if os.geteuid() != 0:
        pytest.fail("chromium is missing and we are not root: apt-get install -y chromium")
    try:
        subprocess.run(["apt-get", "update"], check=True, capture_output=True, timeout=600)
        subprocess.run(
            ["apt-get", "install", "-y", "chromium"], check=True, capture_output=True, timeout=900
        )
    except (OSError, subprocess.SubprocessError) as exc:  # pragma: no cover - no network
        pytest.skip(f"LOUD SKIP: chromium is not installed and could not be installed: {exc}")
    found = shutil.which("chromium")
    if not found:
        pytest.fail("apt-get install chromium succeeded but no chromium on PATH")
    return found


@pytest.fixture(scope="module")
def browser(built_site: Path) -> Iterator[Any]:
    # the site is built first: start_run uses asyncio.run, which cannot run inside
    # Playwright's sync event loop
    from playwright.sync_api import sync_playwright

    executable = _chromium()
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=executable, args=ARGS)
        yield launched
        launched.close()


class Watched:
    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("request", lambda r: self.requests.append(r.url))
        page.on("dialog", self._dialog)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()


@pytest.fixture
def page(browser: Any, built_site: Path) -> Iterator[Watched]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(10_000)
    watched = Watched(context.new_page())
    watched.page.goto((built_site / "index.html").as_uri(), timeout=60_000)
    watched.page.wait_for_selector("html[data-board-ready]", timeout=60_000)
    yield watched
    context.close()


def _keys(page: Any, cohort: int) -> list[str]:
    rows = page.locator(f"#cohort-{cohort} tbody tr.entry:not([hidden])")
    return [rows.nth(i).get_attribute("data-key") for i in range(rows.count())]


def _synthetic(page: Any) -> int:
    for i in range(page.locator("section.cohort").count()):
        if page.locator(f"#cohort-{i} tr[data-key^='xss/']").count():
            return i
    raise AssertionError("no synthetic cohort on the page")


def test_opens_offline_without_errors_or_requests(page: Watched) -> None:
    page.page.wait_for_timeout(300)
    assert page.errors == []
    assert all(u.startswith(("file:", "data:")) for u in page.requests), page.requests
    assert page.dialogs == []


def test_sorting_reorders_rows_and_keeps_ties_together(page: Watched) -> None:
    c = _synthetic(page.page)
    before = _keys(page.page, c)
    page.page.click(f"#cohort-{c} th button[data-sort='cost']")
    ascending = _keys(page.page, c)
    assert ascending != before and ascending[0].startswith("fragile/")
    assert ascending[-1].startswith("xss/")  # not measured sorts last, never as $0
    page.page.click(f"#cohort-{c} th button[data-sort='rank']")
    page.page.click(f"#cohort-{c} th button[data-sort='rank']")  # descending
    by_rank = _keys(page.page, c)
    tied = [i for i, k in enumerate(by_rank) if k.startswith("tied-")]
    assert len(tied) == 2 and tied[1] == tied[0] + 1


def test_filters_hide_rows_and_cohorts(page: Watched) -> None:
    c = _synthetic(page.page)
    total = len(_keys(page.page, c))
    page.page.fill("#filter-text", "tied")
    assert [k.split("/")[0] for k in _keys(page.page, c)] == ["tied-one", "tied-two"]
    page.page.fill("#filter-text", "")
    assert len(_keys(page.page, c)) == total
    page.page.check("#filter-verified")  # local runs are not verified
    assert _keys(page.page, c) == []
    page.page.uncheck("#filter-verified")
    other = next(i for i in range(page.page.locator("section.cohort").count()) if i != c)
    english = _keys(page.page, other)
    assert english
    page.page.select_option("#filter-language", "tr")  # only the synthetic runs have Turkish
    assert len(_keys(page.page, c)) == total and _keys(page.page, other) == []
    page.page.select_option("#filter-language", "en")
    assert len(_keys(page.page, c)) == total and _keys(page.page, other) == english
    page.page.select_option("#filter-language", "tr")
    page.page.fill("#filter-text", "tied")  # filters combine
    assert [k.split("/")[0] for k in _keys(page.page, c)] == ["tied-one", "tied-two"]
    page.page.fill("#filter-text", "")
    page.page.select_option("#filter-language", "")
    assert _keys(page.page, other) == english
    key = page.page.locator(f"#cohort-{c}").get_attribute("data-cohort")
    page.page.select_option("#filter-cohort", key)
    assert page.page.locator("section.cohort:not([hidden])").count() == 1
    page.page.select_option("#filter-family", "beta")
    assert page.page.locator(f"#cohort-{c} td[data-family='alpha']").first.is_hidden()
    assert page.page.locator(f"#cohort-{c} td[data-family='beta']").first.is_visible()


def test_report_card_lists_failed_tasks(page: Watched) -> None:
    page.page.click("tr[data-key^='fragile/'] td.num >> nth=0")
    card = page.page.locator("#card")
    assert card.is_visible()
    assert page.page.locator("#card-title").text_content() == "Fragile Stack"
    failed = card.locator("ul.failed li")
    assert failed.count() >= 3
    text = card.text_content() or ""
    assert "errored: endpoint returned 500 after retries" in text
    languages = [card.locator("ul.languages li").nth(i).text_content() for i in range(2)]
    assert languages == ["en (10 tasks): 0.700", "tr (2 tasks): 0.250"]
    viewer = failed.first.locator("a.transcript")
    assert re.fullmatch(r"transcript\.html#[0-9a-f]{24}/s00", viewer.get_attribute("href") or "")
    link = failed.first.locator("a", has_text="source")
    assert link.get_attribute("href", timeout=1000).startswith("https://github.com/example/")
    assert link.get_attribute("rel") == "noopener noreferrer nofollow"
    page.page.click("#card-close")
    assert card.is_hidden()


def test_charts_render_points(page: Watched, built_site: Path) -> None:
    points = page.page.locator("figure.chart svg .point").count()
    assert points >= 6  # every entry with a cost or a latency is a point
    assert page.page.locator("figure.chart svg.chart-svg").count() == 4  # 2 cohorts x 2 views


def test_hostile_strings_render_as_text_and_run_nothing(page: Watched) -> None:
    row = page.page.locator("tr[data-key^='xss/']")
    assert "<img src=x onerror=alert(1)>" in (row.locator("td.name").text_content() or "")
    assert row.locator("img").count() == 0
    # A run's target carries the hostile note, which no verifying bundle can: the board reads
    # none (tests/verify/test_forgery_round17.py), so its words never reach the row.
    assert "</script><script>alert(1)</script>" not in (row.text_content() or "")
    row.locator("td.rank").click()
    assert page.page.locator("#card-title").text_content() == "<img src=x onerror=alert(1)>"
    assert page.page.locator("#card img, body > img").count() == 0
    page.page.click("#card-close")
    page.page.locator("figure.chart .point").last.hover(force=True)
    page.page.wait_for_timeout(300)
    assert page.dialogs == []
    assert page.errors == []


def test_report_card_shows_the_registry_and_a_safe_description(page: Watched) -> None:
    page.page.click("tr[data-key^='xss/'] td.rank")
    card = page.page.locator("#card")
    text = card.text_content() or ""
    assert "About the entrant" in text and "Example Lab" in text and "Apache-2.0" in text
    description = card.locator("div.description")
    assert description.locator("strong").text_content() == "hostile"
    assert "<script>alert(1)</script>" in (description.text_content() or "")
    assert description.locator("script, img").count() == 0
    hrefs = [
        description.locator("a").nth(i).get_attribute("href")
        for i in range(description.locator("a").count())
    ]
    assert hrefs == ["https://example.com/about", "https://example.com/pixel.png"]
    assert card.locator("ul.links a").get_attribute("href") == "https://example.com/xss"
    page.page.click("#card-close")
    # an unregistered entrant's card has no registry section
    page.page.click("tr[data-key^='fragile/'] td.rank")
    assert "About the entrant" not in (card.text_content() or "")
    assert (
        page.dialogs == []
        and page.errors == []
        and all(r.startswith(("file:", "data:")) for r in page.requests)
    )


def test_a_reference_row_is_marked_unranked_and_last(page: Watched) -> None:
    row = page.page.locator("tr.entry.reference")
    assert row.count() == 1 and row.get_attribute("data-key").startswith("baseline-do-nothing/")
    assert (row.locator("td.rank").text_content() or "").strip() == "ref"
    assert "reference: no-model baseline do_nothing, not ranked" in (
        row.locator("td.name").text_content() or ""
    )
    section = row.locator("xpath=ancestor::section[1]")
    keys = [k for k in (section.locator("tbody tr.entry").nth(i).get_attribute("data-key")
                        for i in range(section.locator("tbody tr.entry").count()))]  # fmt: skip
    assert keys[-1].startswith("baseline-do-nothing/")
    row.locator("td.rank").click()
    text = page.page.locator("#card").text_content() or ""
    assert "not ranked: reference row (no-model baseline do_nothing)" in text
    page.page.click("#card-close")
    assert page.errors == []


# Issue 16: the row is the way into the report card, which has its own URL.


def _card_hash(key: str) -> str:
    from urllib.parse import quote

    return "#card=" + quote(key, safe="")


def _hash_becomes(p: Any, value: str) -> str:
    """``location.hash`` once it is ``value`` (going back or forward is asynchronous, and so is
    closing a pushed card, which goes back), or whatever it is after two seconds."""
    for _ in range(100):
        if p.evaluate("location.hash") == value:
            break
        p.wait_for_timeout(20)
    return str(p.evaluate("location.hash"))


def test_a_row_click_opens_its_card_as_a_dialog_with_its_own_url(page: Watched) -> None:
    p = page.page
    card = p.locator("#card")
    row = p.locator("tr[data-key^='fragile/']")
    key = row.get_attribute("data-key")
    # focusable by a click and by script; Tab stops at its entrant's link (test_board_a11y)
    assert row.get_attribute("tabindex") == "-1"
    assert card.is_hidden()
    row.locator("td.name").click()
    assert card.is_visible()
    assert p.locator("#card-title").text_content() == "Fragile Stack"
    assert (card.get_attribute("role"), card.get_attribute("aria-modal")) == ("dialog", "true")
    assert card.get_attribute("aria-labelledby") == "card-title"
    assert p.evaluate("document.getElementById('card').contains(document.activeElement)")
    assert p.evaluate("location.hash") == _card_hash(key)
    p.go_back()
    p.locator("#card").wait_for(state="hidden")
    assert _hash_becomes(p, "") == ""
    # The fragment coming back (by hand, a link, or forward: Chromium drops a forward
    # traversal issued straight after a back one now and then under load) reopens the card.
    p.evaluate(f"location.hash = {_card_hash(key)!r}")
    assert _hash_becomes(p, _card_hash(key)) == _card_hash(key)
    p.locator("#card").wait_for(state="visible")
    assert p.locator("#card-title").text_content() == "Fragile Stack"
    p.keyboard.press("Escape")
    assert card.is_hidden()
    assert p.evaluate("document.activeElement.getAttribute('data-key')") == key
    assert _hash_becomes(p, "") == ""
    # Enter on a focused row opens it too
    tied = p.locator("tr[data-key^='tied-two/']")
    tied.focus()
    p.keyboard.press("Enter")
    assert card.is_visible() and p.locator("#card-title").text_content() == "Tied Two"
    p.click("#card-close")
    assert card.is_hidden() and _hash_becomes(p, "") == ""
    assert p.evaluate("document.activeElement.getAttribute('data-key')").startswith("tied-two/")
    assert page.errors == []


def test_a_link_or_button_inside_a_row_does_not_open_the_card(page: Watched) -> None:
    p = page.page
    p.evaluate(
        """() => { const cell = document.querySelector("tr[data-key^='fragile/'] td.name");
        const a = document.createElement('a'); a.id = 'inner-link'; a.href = '#elsewhere';
        a.textContent = 'a link'; cell.appendChild(a);
        const b = document.createElement('button'); b.id = 'inner-button'; b.type = 'button';
        b.textContent = 'a button'; cell.appendChild(b); }"""
    )
    p.click("#inner-button")
    p.click("#inner-link")
    assert p.locator("#card").is_hidden()
    assert p.evaluate("location.hash") == "#elsewhere"


def test_loading_the_card_url_opens_the_card(browser: Any, built_site: Path) -> None:
    import json

    board = json.loads((built_site / "board.json").read_text())
    [key] = [e["key"] for c in board["cohorts"] for e in c["entries"] if e["entrant"] == "tied-one"]
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        p = context.new_page()  # a fresh load with the fragment, not a same-page navigation
        p.goto((built_site / "index.html").as_uri() + _card_hash(key))
        p.wait_for_selector("html[data-board-ready]")
        p.locator("#card").wait_for(state="visible")
        assert p.locator("#card-title").text_content() == "Tied One (registered) (Tied One)"
        assert p.locator("#card-link").get_attribute("href") == _card_hash(key)
        p.click("#card-close")
        assert p.locator("#card").is_hidden() and _hash_becomes(p, "") == ""
        # a fragment typed or linked while the page is open (hashchange)
        p.evaluate(f"location.hash = {_card_hash(key)!r}")
        p.locator("#card").wait_for(state="visible")
        p.evaluate("location.hash = ''")
        p.locator("#card").wait_for(state="hidden")
    finally:
        context.close()


def test_the_introduction_links_methodology_guide_and_repository(page: Watched) -> None:
    intro = page.page.locator("#intro")
    text = " ".join((intro.text_content() or "").split())
    assert "interval" in text and "tie-aware" in text and "re-checked" in text
    links = {
        intro.locator("a").nth(i).text_content(): intro.locator("a").nth(i).get_attribute("href")
        for i in range(intro.locator("a").count())
    }
    assert links == {
        "how the numbers are made": "#methodology",
        "the submission guide": "https://github.com/example/bench-results/blob/HEAD/docs/SUBMISSIONS.md",
        "the repository": "https://github.com/example/bench-results",
    }
    assert page.page.locator("#methodology h1, #methodology h2").count() > 0
    box = intro.bounding_box()
    assert box is not None and box["y"] < 300  # at the top, before any table


def test_charts_are_svg_with_labelled_points_and_no_plotly(page: Watched) -> None:
    p = page.page
    assert p.evaluate("typeof window.Plotly") == "undefined"
    c = _synthetic(p)
    cost = p.locator(f"#cohort-{c} figure[data-chart='cost'] svg")
    keys = [cost.locator(".point").nth(i).get_attribute("data-key")
            for i in range(cost.locator(".point").count())]  # fmt: skip
    assert keys and not any(k.startswith("xss/") for k in keys)  # cost not measured: apart
    latency = p.locator(f"#cohort-{c} figure[data-chart='latency'] svg")
    assert any(
        (latency.locator(".point").nth(i).get_attribute("data-key") or "").startswith("xss/")
        for i in range(latency.locator(".point").count())
    )
    tied = cost.locator(".point[data-key^='tied-one/'] title").text_content() or ""
    assert tied.startswith("Tied One (registered) (Tied One)\nrun ")  # entrant and version
    front = cost.locator(".point.front")
    assert front.count() >= 1
    labels = [cost.locator(".labels text.front").nth(i).text_content()
              for i in range(cost.locator(".labels text.front").count())]  # fmt: skip
    assert len(labels) == front.count()
    assert "linear scale" in (cost.locator(".axis-title").first.text_content() or "")
    # focus shows the point's tooltip (textContent, never markup)
    front.first.focus()
    tip = p.locator("#chart-tip")
    assert tip.is_visible() and "run " in (tip.text_content() or "")


# Issue 16: a 1,000-entrant board with long names and a long cohort title (made directly).


@pytest.fixture(scope="module")
def big_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from board_synth import synthetic_board

    from bench.board.build import BuildOptions, render_board

    repo = Path(__file__).resolve().parents[2]
    out = tmp_path_factory.mktemp("big") / "index.html"
    options = BuildOptions(
        out=out.parent, templates=repo / "site_templates",
        methodology=repo / "docs" / "METHODOLOGY.md",
    )  # fmt: skip
    out.write_bytes(render_board(synthetic_board(1000), options))
    return out


def _open(browser: Any, site: Path, width: int, height: int) -> tuple[Any, Watched]:
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(20_000)
    watched = Watched(context.new_page())
    watched.page.goto(site.as_uri(), timeout=60_000)
    watched.page.wait_for_selector("html[data-board-ready]", timeout=60_000)
    return context, watched


OVERFLOW = "document.documentElement.scrollWidth - document.documentElement.clientWidth"


@pytest.mark.parametrize("width", [1400, 390])
def test_the_page_never_overflows_sideways(browser: Any, big_site: Path, width: int) -> None:
    context, w = _open(browser, big_site, width, 900)
    try:
        p = w.page
        assert p.locator("section.cohort h2").text_content().startswith("Cohort: public split")
        assert p.evaluate(OVERFLOW) <= 0
        headers = [p.locator("table.board thead th").nth(i).text_content()
                   for i in range(p.locator("table.board thead th").count())]  # fmt: skip
        assert len(headers) == 4 + 6 + 6  # rank, entrant, headline, pooled, 6 families, ...
        assert "Verified" not in headers and "verified" in headers[1]  # folded, not hidden
        if width == 1400:  # the whole table fits: no scrolling inside its wrapper either
            assert p.evaluate("(w => w.scrollWidth - w.clientWidth)"
                              "(document.querySelector('.table-wrap'))") <= 0  # fmt: skip
        p.click("button.rows-toggle")  # every row shown, still nothing sideways
        assert p.locator("tr.entry:not([hidden])").count() == 1000
        assert p.evaluate(OVERFLOW) <= 0
        p.locator("tr.entry").first.click()  # and the open card
        assert p.locator("#card").is_visible() and p.evaluate(OVERFLOW) <= 0
        card = p.locator("#card").bounding_box()
        assert card is not None and card["x"] >= 0 and card["x"] + card["width"] <= width
        assert w.errors == []
    finally:
        context.close()


def test_charts_are_near_the_top_of_a_thousand_entrant_board(browser: Any, big_site: Path) -> None:
    context, w = _open(browser, big_site, 1400, 1000)
    try:
        p = w.page
        assert p.locator("tr.entry").count() == 1000
        assert p.locator("tr.entry:not([hidden])").count() == 30
        top = p.evaluate("document.getElementById('charts-0').getBoundingClientRect().top")
        assert top <= 3 * 1000
        link = p.locator("section.cohort nav.cohort-nav a[href='#charts-0']")
        assert link.is_visible()
        link.click()
        assert p.evaluate("document.getElementById('charts-0').getBoundingClientRect().top") < 200
        # search, filters and sorting act on every row, not the 30 shown
        p.fill("#filter-text", "entrant-0999")
        assert [k.split("/")[0] for k in _keys(p, 0)] == ["entrant-0999"]
        p.fill("#filter-text", "")
        p.check("#filter-verified")
        assert p.locator("tr.entry:not([hidden])").count() == 30
        assert "of 334 matching rows" in (p.locator(".rows-status").text_content() or "")
        p.uncheck("#filter-verified")
        p.click("th button[data-sort='cost']")
        costs = [float(c) for c in p.eval_on_selector_all(
            "tr.entry:not([hidden])", "rows => rows.map(r => r.dataset.cost)")]  # fmt: skip
        assert costs == sorted(costs) and len(costs) == 30
        assert costs[0] == min(float(r) for r in p.eval_on_selector_all(
            "tr.entry", "rows => rows.map(r => r.dataset.cost)"))  # fmt: skip
        # a thousand points, and readable: the frontier and at most 10 others labelled
        cost = p.locator("figure[data-chart='cost'] svg")
        assert cost.locator(".point").count() == 1000
        assert cost.locator(".labels text.top").count() <= 10
        assert cost.locator(".labels text.front").count() == cost.locator(".point.front").count()
        assert "log scale" in (cost.locator(".axis-title").first.text_content() or "")
        assert w.errors == []
    finally:
        context.close()


# The board audited as a reader (2026-12-06): sorting, the chart's tooltip, phones, print.


def test_a_first_click_sorts_best_first_and_marks_the_column_header(page: Watched) -> None:
    p = page.page
    c = _synthetic(p)
    header = p.locator(f"#cohort-{c} th:has(button[data-sort='headline'])")
    p.click(f"#cohort-{c} th button[data-sort='headline']")
    shown = [float(v) for v in p.eval_on_selector_all(
        f"#cohort-{c} tr.entry[data-headline]:not([data-headline=''])",
        "rows => rows.map(r => r.dataset.headline)")]  # fmt: skip
    assert shown == sorted(shown, reverse=True)  # a score: the best (highest) first
    assert header.get_attribute("aria-sort") == "descending"  # on the header, not the button
    assert p.locator(f"#cohort-{c} th button[aria-sort]").count() == 0
    p.click(f"#cohort-{c} th button[data-sort='cost']")  # a cost: the cheapest first
    assert _keys(p, c)[0].startswith("fragile/")
    assert header.get_attribute("aria-sort") is None
    assert p.locator(f"#cohort-{c} th:has(button[data-sort='cost'])").get_attribute(
        "aria-sort") == "ascending"  # fmt: skip


def test_names_sort_by_collation_in_any_script(page: Watched) -> None:
    p = page.page
    c = _synthetic(p)
    names = ["Zeynep", "Çağrı", "agent 10", "Agent 2"]  # the cohort's four rows
    p.evaluate(
        """([c, names]) => document.querySelectorAll(`#cohort-${c} tr.entry`).forEach(
        (tr, i) => tr.setAttribute('data-name', names[i]))""",
        [c, names],
    )
    p.click(f"#cohort-{c} th button[data-sort='name']")
    order = p.eval_on_selector_all(f"#cohort-{c} tr.entry", "rows => rows.map(r => r.dataset.name)")
    assert order == ["Agent 2", "agent 10", "Çağrı", "Zeynep"]  # not Ç after Z, 10 after 2


def test_a_chart_tooltip_stays_whole_on_a_phone(browser: Any, built_site: Path) -> None:
    context, w = _open(browser, built_site / "index.html", 390, 844)
    try:
        p = w.page
        points = p.locator("figure.chart .point[tabindex='0']")
        assert points.count() >= 2
        for i in range(points.count()):
            points.nth(i).focus()
            box = p.locator("#chart-tip").bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
            assert box["width"] >= 150, box  # its natural width, never squeezed at the edge
        assert p.evaluate(OVERFLOW) <= 0 and w.errors == []
    finally:
        context.close()


def test_a_phone_chart_keeps_readable_text(browser: Any, built_site: Path) -> None:
    context, w = _open(browser, built_site / "index.html", 390, 844)
    try:
        p = w.page
        svg = p.locator("figure.chart svg.chart-svg").first
        box = svg.bounding_box()
        assert box is not None and box["width"] / 640 * 11 >= 9  # 11 px text in a 640 viewBox
        assert p.evaluate(OVERFLOW) <= 0  # the chart scrolls inside its figure, not the page
    finally:
        context.close()


def test_a_table_wider_than_the_window_shows_a_scroll_cue(browser: Any, built_site: Path) -> None:
    context, w = _open(browser, built_site / "index.html", 1024, 768)
    try:
        p = w.page
        wrap = "document.querySelector('.table-wrap')"
        assert p.evaluate(f"{wrap}.scrollWidth - {wrap}.clientWidth") > 0
        assert "radial-gradient" in p.evaluate(f"getComputedStyle({wrap}).backgroundImage")
    finally:
        context.close()


def test_the_table_link_lands_below_the_sticky_filters(browser: Any, built_site: Path) -> None:
    context, w = _open(browser, built_site / "index.html", 1024, 768)
    try:
        p = w.page
        p.click("#cohort-1 nav.cohort-nav a[href='#table-1']")
        p.wait_for_timeout(100)
        controls = p.locator("nav.controls").bounding_box()  # stuck at the top
        assert controls is not None and controls["height"] > 60  # two lines at this width
        header = p.locator("#table-1 thead").bounding_box()
        assert header is not None and header["y"] >= controls["y"] + controls["height"]
    finally:
        context.close()


def test_print_shows_every_column_and_no_controls(browser: Any, built_site: Path) -> None:
    context, w = _open(browser, built_site / "index.html", 794, 1123)  # A4 at 96 dpi
    try:
        p = w.page
        p.emulate_media(media="print")
        overflow = p.eval_on_selector_all(
            ".table-wrap", "ws => ws.map(w => w.scrollWidth - w.clientWidth)")  # fmt: skip
        assert overflow and max(overflow) <= 0
        assert p.locator("nav.controls").is_hidden()
        assert p.evaluate(OVERFLOW) <= 0
    finally:
        context.close()


@pytest.fixture(scope="module")
def edge_site(
    tmp_path_factory: pytest.TempPathFactory, make_options: Any
) -> Path:  # a partial run (no family scores) and a language of one task
    from board_synth import SynthRun, write_runs

    from bench.board import build

    root = tmp_path_factory.mktemp("edge")
    families = {f"s{i:02d}": "alpha" for i in range(4)}
    values: dict[str, list[float | None]] = {t: [1.0, 0.0] for t in families}
    write_runs(root / "runs", [
        SynthRun("whole", "Whole Run", values, families, languages={"s00": "tr"}),
        SynthRun("cut", "Cut Run", values, families, status="partial"),
    ])  # fmt: skip
    build(make_options(root, root / "site", submissions=None))
    return root / "site" / "index.html"


def test_a_card_says_none_for_no_family_scores_and_counts_one_task(
    browser: Any, edge_site: Path
) -> None:
    context, w = _open(browser, edge_site, 1400, 1000)
    try:
        p = w.page
        p.click("tr[data-key^='cut/'] td.rank")
        families = p.locator("#card h3:text('Family scores') + ul li")
        assert [families.nth(i).text_content() for i in range(families.count())] == ["—"]
        p.click("#card-close")
        p.click("tr[data-key^='whole/'] td.rank")
        languages = p.locator("#card ul.languages li")
        texts = [languages.nth(i).text_content() or "" for i in range(languages.count())]
        assert texts[0].startswith("en (3 tasks)") and texts[1].startswith("tr (1 task):")
        assert w.errors == []
    finally:
        context.close()


def test_a_table_the_filters_empty_says_so(page: Watched) -> None:
    p = page.page
    c = _synthetic(p)
    status = p.locator(f"#cohort-{c} p.rows-more")
    assert status.is_hidden()
    p.check("#filter-verified")  # local runs are not verified: every row goes
    assert _keys(p, c) == []
    assert status.is_visible()
    assert status.locator(".rows-status").text_content() == (
        "No entry of this cohort matches the filters."
    )
    assert p.locator(f"#cohort-{c} button.rows-toggle").is_hidden()
    p.uncheck("#filter-verified")
    assert status.is_hidden() and _keys(p, c)
