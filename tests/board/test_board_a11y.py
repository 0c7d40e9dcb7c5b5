"""The board and its transcript viewer for a reader who is not us, in a real browser (Debian's
Chromium through Playwright): keyboard only, a screen reader (names and words computed by the
browser's accessibility tree), low vision (WCAG contrast of every visible text), a phone, a
printout, reduced motion and no JavaScript. The boards are the other browser tests' fixtures:
two cohorts with ties, failed tasks and a reference row (``built_site``), tasks not scored
(``unscored_site``), and the shipped bundles served over 127.0.0.1 for transcripts (``served``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_board_browser import ARGS, Watched, _chromium
from test_transcript_browser import TASK, served  # noqa: F401  (a fixture, used by name)

# WCAG 2.x relative luminance and contrast (``ratio``) of colours, and the colour behind an
# element (its own background and its ancestors', alpha-blended over white): the body of a
# function that checks them (CONTRAST here, the marks of test_board_schemes.py).
COLOURS = """
  const parse = c => { const m = /rgba?\\(([^)]+)\\)/.exec(c); if (!m) return null;
    const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const blend = (top, under) =>
    [0, 1, 2].map(i => top[i] * top[3] + under[i] * (1 - top[3])).concat([1]);
  const lum = c => {
    const f = v => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const ratio = (x, y) => { const a = lum(x), b = lum(y);
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); };
  const behind = el => { const layers = [];
    for (let e = el; e; e = e.parentElement) { const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; } }
    let base = [255, 255, 255, 1];
    for (let i = layers.length - 1; i >= 0; i--) base = blend(layers[i], base);
    return base; };
"""

# Every visible text node against the colour behind it.
CONTRAST = (
    """() => {"""
    + COLOURS
    + """
  const bad = []; let checked = 0;
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const el = n.parentElement;
    if (!n.data.trim() || !el) continue;
    if (el.closest("template, script, style, noscript, .sr-only")) continue;
    const range = document.createRange(); range.selectNodeContents(n);
    if (!range.getClientRects().length) continue;
    const s = getComputedStyle(el);
    if (s.visibility !== "visible") continue;
    const svg = el.namespaceURI === "http://www.w3.org/2000/svg";
    const back = behind(el), fore = blend(parse(svg ? s.fill : s.color) || [0, 0, 0, 1], back);
    const got = ratio(fore, back);
    const size = parseFloat(s.fontSize), bold = Number(s.fontWeight) >= 700;
    const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    checked += 1;
    const text = n.data.trim().slice(0, 40);
    if (got < need) bad.push([text, String(el.className), got.toFixed(2)]);
  }
  return { checked: checked, bad: bad };
}"""
)

# Whether the focused element is what a reader sees at its place (nothing sticky over it)
# and where it is.
FOCUSED = """() => {
  const e = document.activeElement;
  if (!e || e === document.body) return null;
  const r = e.getBoundingClientRect();
  const x = Math.min(Math.max(r.left + Math.min(r.width / 2, 12), 0), innerWidth - 1);
  const y = Math.min(Math.max(r.top + r.height / 2, 0), innerHeight - 1);
  const at = document.elementFromPoint(x, y);
  const svg = e.closest("svg");
  return {
    what: e.tagName + " " + (e.getAttribute("data-sort") || e.getAttribute("data-key") || e.id ||
      (e.closest("tr") && e.closest("tr").getAttribute("data-key")) ||
      e.textContent.trim().slice(0, 30)),
    seen: !!at && (e.contains(at) || at.contains(e) || (!!svg && svg.contains(at))),
    box: [r.left, r.top, r.width, r.height]
  };
}"""


IN_CARD = "document.getElementById('card').contains(document.activeElement)"


@pytest.fixture(scope="module")
def browser(built_site: Path, unscored_site: Path, served: Any) -> Iterator[Any]:  # noqa: F811
    # every site is built first: start_run uses asyncio.run, which cannot run inside
    # Playwright's sync event loop
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=_chromium(), args=ARGS)
        yield launched
        launched.close()


def _open(browser: Any, url: str, width: int = 1400, height: int = 1000, **options: Any) -> Any:
    context = browser.new_context(viewport={"width": width, "height": height}, **options)
    context.set_default_timeout(10_000)
    watched = Watched(context.new_page())
    watched.page.goto(url, timeout=60_000)
    if options.get("java_script_enabled", True) and "transcript" not in url:
        watched.page.wait_for_selector("html[data-board-ready]", timeout=60_000)
    return context, watched


def _board(site: Path) -> str:
    return (site / "index.html").as_uri()


def _role_and_name(locator: Any) -> tuple[str, str]:
    """The role and accessible name Chromium's accessibility tree gives ``locator``."""
    first = locator.aria_snapshot().splitlines()[0] if locator.aria_snapshot() else ""
    m = re.match(r'^- ([a-z]+)(?: "((?:[^"\\]|\\.)*)")?', first.strip("'"))
    return (m.group(1), m.group(2) or "") if m else ("", "")


def test_one_h1_headings_in_order_landmarks_and_a_language(browser: Any, built_site: Path) -> None:
    # docs/METHODOLOGY.md's "# Methodology" was a second <h1>, under the cohorts' <h2>s
    context, w = _open(browser, _board(built_site))
    try:
        p = w.page
        assert p.get_attribute("html", "lang") == "en"
        levels = p.eval_on_selector_all(
            "h1, h2, h3, h4, h5, h6",
            "hs => hs.filter(h => !h.closest('dialog, template')).map(h => Number(h.tagName[1]))",
        )
        assert levels.count(1) == 1 and levels[0] == 1, levels
        jumps = [(a, b) for a, b in zip(levels, levels[1:], strict=False) if b > a + 1]
        assert jumps == [], f"a heading skips a level: {jumps}"
        assert p.locator("#methodology h2").first.text_content() == "Methodology"
        assert p.locator("main").count() == 1 and p.locator("header").count() == 1
        assert p.locator("nav[aria-label]").count() >= 2  # the filters and each cohort's links
    finally:
        context.close()


def test_every_control_has_a_name_and_every_column_header_a_scope(
    browser: Any, built_site: Path
) -> None:
    # a chart point Tab stopped at was a bare <g>: no role, no name, nothing to say
    context, w = _open(browser, _board(built_site))
    try:
        p = w.page
        controls = p.locator(
            "a[href]:visible, button:visible, input:visible, select:visible, "
            "[tabindex]:not([tabindex='-1']):visible, figure.chart svg"
        )
        assert controls.count() > 40
        nameless = []
        for i in range(controls.count()):
            role, name = _role_and_name(controls.nth(i))
            if not role or not name.strip():
                nameless.append(controls.nth(i).evaluate("e => e.outerHTML.slice(0, 90)"))
        assert nameless == [], nameless
        summaries = p.locator("summary:visible")  # a disclosure, named by its text
        assert all((summaries.nth(i).text_content() or "").strip()
                   for i in range(summaries.count()))  # fmt: skip
        point = p.locator("figure.chart g.point[tabindex='0']").first
        role, name = _role_and_name(point)
        assert role == "img" and "headline" in name, (role, name)
        # the chart reads as its title, legend and axes, not a run of tick numbers
        chart = p.locator("figure.chart svg").first.aria_snapshot()
        assert "Quality vs" in chart and "0.2 0.4 0.6" not in chart, chart
        headers = p.locator("table.board thead th")
        assert headers.count() > 20
        scopes = {headers.nth(i).get_attribute("scope") for i in range(headers.count())}
        assert scopes == {"col"}, scopes
    finally:
        context.close()


def _synthetic_row(p: Any, prefix: str) -> Any:
    return p.locator(f"tr.entry[data-key^='{prefix}/']")


def test_intervals_ranks_and_ties_read_as_words(browser: Any, built_site: Path) -> None:
    # the headline cell read "0.708 [0.470, 1.000]" and the rank cell "1 1–2" (glyphs); a tie
    # was a repeated number a reader had to notice
    context, w = _open(browser, _board(built_site))
    try:
        p = w.page
        row = _synthetic_row(p, "tied-one")
        rank = row.get_attribute("data-rank")
        section = row.evaluate("r => r.closest('section').id")
        shared = p.locator(f"#{section} tr.entry[data-rank='{rank}']").count()
        assert shared >= 2  # the tied pair (at least) holds this rank
        cells = row.locator("td")
        _, said = _role_and_name(cells.nth(0))
        assert re.fullmatch(
            rf"rank {rank}, tied with {shared - 1} other rows?; the data allow ranks {rank} to \d+",
            said,
        ), said
        assert "tied" in (cells.nth(0).inner_text() or "")  # in text for the eye too
        _, headline = _role_and_name(cells.nth(2))
        words = r"\d\.\d{3} ?, 95 % interval \d\.\d{3} to \d\.\d{3}"
        assert re.fullmatch(words, headline), headline
        _, family = _role_and_name(row.locator("td[data-family]").first)
        assert re.fullmatch(r"\d\.\d{2} ?, 95 % interval \d\.\d{2} to \d\.\d{2}", family), family
        # what the eye sees is unchanged: the bracketed interval, the range under the rank
        assert re.search(r"\[\d\.\d{3}, \d\.\d{3}\]", cells.nth(2).inner_text())
        fragile = _synthetic_row(p, "fragile").locator("td.rank")
        if fragile.count() and _synthetic_row(p, "fragile").get_attribute("data-rank"):
            _, alone = _role_and_name(fragile.first)
            assert alone.startswith("rank ") and "[" not in alone
    finally:
        context.close()


def _visible_change(p: Any, box: list[float]) -> bool:
    """Whether the focused element's neighbourhood looks different unfocused: a focus ring."""
    view = p.viewport_size
    x, y = max(0.0, box[0] - 4), max(0.0, box[1] - 4)
    clip = {"x": x, "y": y, "width": max(1.0, min(box[2] + 8, view["width"] - x)),
            "height": max(1.0, min(box[3] + 8, view["height"] - y))}  # fmt: skip
    focused = p.screenshot(clip=clip)
    handle = p.evaluate_handle("document.activeElement")
    p.evaluate("e => e.blur()", handle)
    blurred = p.screenshot(clip=clip)
    p.evaluate("e => e.focus({ preventScroll: true })", handle)
    return bool(focused != blurred)


@pytest.mark.parametrize("width,height", [(1400, 1000), (1024, 768)])
def test_tab_reaches_every_control_in_order_with_a_visible_ring_never_under_sticky_parts(
    browser: Any, built_site: Path, width: int, height: int
) -> None:
    # at 1024 px a sort button Tab reached sat under the sticky entrant column, and Shift+Tab
    # put the cohort's links under the sticky filters; a row was a focusable <tr> that a
    # screen reader did not announce as opening anything
    context, w = _open(browser, _board(built_site), width, height)
    try:
        p = w.page
        stops: list[str] = []
        hidden: list[str] = []
        no_ring: list[str] = []
        for _ in range(200):
            p.keyboard.press("Tab")
            at = p.evaluate(FOCUSED)
            if at is None or (stops and at["what"] == stops[0]):
                break
            stops.append(at["what"])
            if not at["seen"]:
                hidden.append(at["what"])
            on_screen = at["box"][1] >= 0 and at["box"][1] + at["box"][3] <= height
            if on_screen and not _visible_change(p, at["box"]):
                no_ring.append(at["what"])
        for _ in range(len(stops)):
            p.keyboard.press("Shift+Tab")
            at = p.evaluate(FOCUSED)
            if at is not None and not at["seen"]:
                hidden.append("back to " + at["what"])
        assert hidden == [], f"focused but covered: {hidden}"
        assert no_ring == [], f"no visible focus ring: {no_ring}"
        # the order: filters, then each cohort's links, sort buttons, its rows' names, its
        # charts' points; every row shown has one stop, its entrant's link
        assert stops[: len(stops)] and any(s.startswith("SELECT filter-cohort") for s in stops)
        first = next(i for i, s in enumerate(stops) if s.startswith("A table"))
        assert all(stops.index(f"SELECT {c}") < first for c in ("filter-cohort", "filter-family"))
        keys = p.eval_on_selector_all("tr.entry:not([hidden])", "rs => rs.map(r => r.dataset.key)")
        links = [s.split(" ", 1)[1] for s in stops if s.startswith("A ") and "/" in s]
        assert [k for k in links if k in keys] == keys, (links, keys)
        assert not any(s.startswith("TR ") for s in stops)  # one stop per row, not two
        assert any(s.startswith("g ") for s in stops)  # the labelled chart points
    finally:
        context.close()


def test_the_card_opens_from_the_keyboard_traps_nothing_and_gives_focus_back(
    browser: Any, built_site: Path
) -> None:
    context, w = _open(browser, _board(built_site))
    try:
        p = w.page
        link = _synthetic_row(p, "tied-two").locator("a.card-open")
        assert _role_and_name(link) == ("link", "Tied Two")
        link.focus()
        p.keyboard.press("Enter")
        card = p.locator("#card")
        assert card.is_visible() and p.locator("#card-title").text_content() == "Tied Two"
        # Tab moves among the card's own controls only (a modal), and reaches close
        inside = []
        for _ in range(40):
            p.keyboard.press("Tab")
            inside.append(p.evaluate(IN_CARD))
            if p.evaluate("document.activeElement.id") == "card-close":
                break
        assert p.evaluate("document.activeElement.id") == "card-close" and all(inside)
        p.keyboard.press("Enter")  # close, from the keyboard
        assert card.is_hidden()
        assert p.evaluate("document.activeElement.classList.contains('card-open')")
        assert p.evaluate("document.activeElement.closest('tr').dataset.key").startswith(
            "tied-two/"
        )
        # Space on the link does not scroll the page away, Enter again opens, Escape closes
        p.keyboard.press("Enter")
        assert card.is_visible()
        p.keyboard.press("Escape")
        assert card.is_hidden()
        assert p.evaluate("document.activeElement.classList.contains('card-open')")
        # and Tab goes on past the card's row: no trap after it closed
        p.keyboard.press("Tab")
        assert p.evaluate("document.activeElement.closest('tr')?.dataset.key || ''") != (
            _synthetic_row(p, "tied-two").get_attribute("data-key")
        )
        assert w.errors == []
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_visible_text_has_enough_contrast(
    browser: Any, built_site: Path, unscored_site: Path, scheme: str
) -> None:
    """In both colour schemes (test_board_schemes.py checks that a dark preference gets the
    dark one, its marks and its transcript pages)."""
    for site in (built_site, unscored_site):
        context, w = _open(browser, _board(site), color_scheme=scheme)
        try:
            p = w.page
            page = p.evaluate(CONTRAST)
            assert page["checked"] > 200 and page["bad"] == [], page["bad"]
            p.locator("tr.entry td.name").first.click()  # and an open card
            assert p.locator("#card").is_visible()
            card = p.evaluate(CONTRAST)
            assert card["bad"] == [], card["bad"]
        finally:
            context.close()


def test_the_transcript_viewer_reads_and_tabs_well(browser: Any, served: Any) -> None:  # noqa: F811
    context, w = _open(browser, served["url"] + "/shipped/index.html")
    try:
        p = w.page
        p.locator("tr[data-key^='example-support-bot/'] td.name").first.click()
        p.locator("#card ul.failed li", has=p.locator("code", has_text=TASK)).locator(
            "a.transcript"
        ).click()
        p.wait_for_selector("html[data-transcript='shown']")
        assert p.get_attribute("html", "lang") == "en"
        assert p.locator("h1").count() == 1 and p.locator("main").count() == 1
        assert p.evaluate(CONTRAST)["bad"] == []
        p.keyboard.press("Tab")
        assert p.evaluate("document.activeElement.id") == "back"  # the way back comes first
        for _ in range(30):
            p.keyboard.press("Tab")
            at = p.evaluate(FOCUSED)
            assert at is None or at["seen"], at
        p.locator("#back").focus()
        p.keyboard.press("Enter")
        p.wait_for_selector("html[data-board-ready]")
        assert w.errors == []
    finally:
        context.close()


def test_a_phone_reads_the_page_and_uses_the_card(browser: Any, built_site: Path) -> None:
    context, w = _open(browser, _board(built_site), 360, 740)
    try:
        p = w.page
        overflow = "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        assert p.evaluate(overflow) <= 0  # the table scrolls in its own box, never the page
        # a line of words is never cut by its box (the entrant's two-line clamp keeps the
        # whole name in its title and its card)
        cut = p.eval_on_selector_all(
            "main p, main li, main h2, header p, td, th",
            """es => es.filter(e => getComputedStyle(e).overflowX === 'hidden'
                 && e.scrollWidth > e.clientWidth + 1).map(e => e.textContent.slice(0, 40))""",
        )
        assert cut == []
        link = _synthetic_row(p, "xss").locator("a.card-open")
        link.focus()
        p.keyboard.press("Enter")
        card = p.locator("#card")
        box = card.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360
        close = p.locator("#card-close").bounding_box()
        assert close is not None and close["y"] >= 0 and close["y"] + close["height"] <= 740
        assert p.evaluate(overflow) <= 0
        p.locator("#card-close").click()
        assert card.is_hidden()
    finally:
        context.close()


def test_nothing_moves_under_reduced_motion(browser: Any, built_site: Path) -> None:
    context, w = _open(browser, _board(built_site), reduced_motion="reduce")
    try:
        p = w.page
        p.click("#cohort-1 th button[data-sort='cost']")
        p.locator("tr.entry td.name").first.click()
        assert p.evaluate("document.getAnimations().length") == 0
        assert p.evaluate("getComputedStyle(document.documentElement).scrollBehavior") != "smooth"
    finally:
        context.close()


def test_a_printout_keeps_the_table_and_says_no_screen_reader_text(
    browser: Any, built_site: Path
) -> None:
    context, w = _open(browser, _board(built_site), 794, 1123)
    try:
        p = w.page
        p.emulate_media(media="print")
        row = _synthetic_row(p, "tied-one")
        text = row.inner_text()
        assert re.search(r"\[\d\.\d{3}, \d\.\d{3}\]", text) and "tied" in text
        # the words are for a screen reader, not paper: no room on the page
        boxes = row.locator(".sr-only").evaluate_all(
            "es => es.map(e => [e.getBoundingClientRect().width, e.getBoundingClientRect().height])"
        )
        assert boxes and all(wd <= 1 and ht <= 1 for wd, ht in boxes), boxes
        assert p.evaluate(CONTRAST)["bad"] == []
    finally:
        context.close()


def test_without_javascript_it_shows_the_rows_and_no_dead_controls(
    browser: Any, built_site: Path
) -> None:
    # the filters were shown without the script, and did nothing
    context, w = _open(browser, _board(built_site), java_script_enabled=False)
    try:
        p = w.page
        assert p.locator("nav.controls").is_hidden()
        note = p.locator("main noscript + *, main p.no-script")
        assert note.count() >= 1 and "JavaScript" in (note.first.text_content() or "")
        assert p.locator("tr.entry:visible").count() >= 5
        assert re.search(r"\d\.\d{3}", p.locator("tr.entry td.num").first.inner_text())
    finally:
        context.close()
