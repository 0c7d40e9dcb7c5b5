"""The board for readers who are not at a light screen, in a real browser (Debian's Chromium
through Playwright): a dark preference gets a dark page, board and transcript, every text and
every mark that carries meaning still readable; the report card and the column headers read
as words to a screen reader; a printout is light, whatever the screen's scheme, and has every
row. The boards are test_board_a11y.py's (``built_site``, ``unscored_site``, ``served``) and
the 34-row cohorts of test_board_browser_scale.py (``scale_site``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_board_a11y import COLOURS, CONTRAST, _board, _open, _role_and_name
from test_board_browser import ARGS, _chromium
from test_board_browser_scale import scale_site  # noqa: F401  (a fixture, used by name)
from test_transcript_browser import TASK, served  # noqa: F401  (a fixture, used by name)

# The page's own background (the canvas) and its text colour, and each mark a chart or the
# table draws to carry meaning (a frontier point, the frontier line, a dominated cross, the
# legend's frontier mark, an entrant's focus ring) against the colour behind it: WCAG's 3:1
# for graphics (1.4.11).
SCHEME = (
    """() => {"""
    + COLOURS
    + """
  const page = behind(document.body), text = parse(getComputedStyle(document.body).color);
  const marks = [
    [".chart-svg .point.front .mark", "fill"], [".chart-svg .legend .mark.front", "fill"],
    [".chart-svg .frontier", "stroke"], [".chart-svg .mark.cross", "stroke"],
    ["td.name:has(a.entrant-name:focus-visible)", "outline"],
  ];
  const bad = [], seen = {};
  for (const [selector, paint] of marks) {
    for (const el of document.querySelectorAll(selector)) {
      const s = getComputedStyle(el);
      const c = parse(paint === "outline" ? s.outlineColor : s[paint]);
      if (!c) { bad.push([selector, "no colour"]); continue; }
      const own = paint === "fill" ? s.fillOpacity : paint === "stroke" ? s.strokeOpacity : "1";
      c[3] *= Number(own) * Number(s.opacity);
      const back = behind(el), got = ratio(blend(c, back), back);
      seen[selector] = (seen[selector] || 0) + 1;
      if (got < 3) bad.push([selector, got.toFixed(2)]);
    }
  }
  return { page: lum(page), text: lum(text), bad: bad, seen: seen };
}"""
)

# An element's text as the eye sees it: without the words only a screen reader gets.
SEEN = """e => { const c = e.cloneNode(true);
  c.querySelectorAll(".sr-only").forEach(x => x.remove()); return c.textContent; }"""


@pytest.fixture(scope="module")
def browser(built_site: Path, unscored_site: Path, served: Any, scale_site: Path) -> Iterator[Any]:  # noqa: F811
    # every site is built first: start_run uses asyncio.run, which cannot run inside
    # Playwright's sync event loop
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=_chromium(), args=ARGS)
        yield launched
        launched.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_dark_preference_gets_a_dark_page_whose_texts_and_marks_all_read(
    browser: Any, built_site: Path, unscored_site: Path, scheme: str
) -> None:
    # a reader whose system prefers dark got the light page, glaring in a dark room
    for site in (built_site, unscored_site):
        context, w = _open(browser, _board(site), color_scheme=scheme)
        try:
            p = w.page
            p.locator("tr.entry a.entrant-name").first.focus()  # a focus ring to measure
            got = p.evaluate(SCHEME)
            if scheme == "dark":
                assert got["page"] < 0.05 and got["text"] > 0.6, got  # light on dark
            else:
                assert got["page"] > 0.9 and got["text"] < 0.05, got
            assert got["bad"] == [], got["bad"]
            if site == built_site:  # a frontier, a staircase and a focused name to measure
                assert set(got["seen"]) >= {
                    ".chart-svg .point.front .mark", ".chart-svg .frontier",
                    ".chart-svg .legend .mark.front",
                    "td.name:has(a.entrant-name:focus-visible)",
                }, got["seen"]  # fmt: skip
            page = p.evaluate(CONTRAST)
            assert page["checked"] > 200 and page["bad"] == [], page["bad"]
            if site == built_site:  # a tie is said in words, in any scheme
                assert "tied" in p.locator("td.rank .tie").first.inner_text()
            p.locator("tr.entry td.name").first.click()  # and an open card
            assert p.locator("#card").is_visible()
            card = p.evaluate(SCHEME)
            assert card["bad"] == [], card["bad"]
            assert p.evaluate(CONTRAST)["bad"] == []
            back = p.locator("#card").evaluate("e => getComputedStyle(e).backgroundColor")
            assert (back == "rgb(255, 255, 255)") == (scheme == "light"), back
        finally:
            context.close()


def test_a_transcript_in_the_dark_scheme_reads(browser: Any, served: Any) -> None:  # noqa: F811
    context, w = _open(browser, served["url"] + "/shipped/index.html", color_scheme="dark")
    try:
        p = w.page
        p.locator("tr[data-key^='example-support-bot/'] td.name").first.click()
        p.locator("#card ul.failed li", has=p.locator("code", has_text=TASK)).locator(
            "a.transcript"
        ).click()
        p.wait_for_selector("html[data-transcript='shown']")
        got = p.evaluate(SCHEME)
        assert got["page"] < 0.05 and got["text"] > 0.6, got
        page = p.evaluate(CONTRAST)
        assert page["checked"] > 50 and page["bad"] == [], page["bad"]
        # the boxes a transcript is made of are dark too: no white slab in a dark page
        boxes = p.eval_on_selector_all(
            "pre", "es => es.map(e => getComputedStyle(e).backgroundColor)"
        )
        assert boxes and "rgb(255, 255, 255)" not in boxes, boxes
        assert w.errors == []
    finally:
        context.close()


def test_the_card_reads_its_intervals_as_words(browser: Any, built_site: Path) -> None:
    # the card read "0.708 [0.470, 1.000]" aloud as glyphs, where the table says words
    context, w = _open(browser, _board(built_site))
    try:
        p = w.page
        p.locator("tr.entry[data-key^='tied-one/'] a.card-open").click()
        words = r"\d\.\d{3} ?, 95 % interval \d\.\d{3} to \d\.\d{3}"
        for label in ("headline", "pass^k", "flakiness"):
            dd = p.locator("#card dt", has_text=re.compile("^" + re.escape(label) + "$")).locator(
                "xpath=following-sibling::dd[1]"
            )
            said = dd.aria_snapshot()  # what the accessibility tree holds: "- definition: …"
            assert re.fullmatch("- definition: " + words, said), (label, said)
            # what the eye sees is unchanged
            assert re.fullmatch(r"\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]", dd.evaluate(SEEN)), label
        family = p.locator("#card h3:text('Family scores') + ul li").first
        said = family.aria_snapshot()
        assert re.search(r"alpha \(6 tasks\): " + words, said), said
        assert "[" not in said, said
        # the eye sees the figure and interval, then the row's rank on the family alone
        assert re.fullmatch(
            r"alpha \(6 tasks\): \d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]"
            r"( rank \d+( \(range \d+–\d+\))? on this family alone)?",
            family.evaluate(SEEN),
        )
        assert w.errors == []
    finally:
        context.close()


def test_column_headers_read_as_words_and_keep_what_the_eye_sees(
    browser: Any, built_site: Path
) -> None:
    # "pass^2", "$ / run" and "p95 s" were read letter by letter, sign by sign
    context, w = _open(browser, _board(built_site))
    try:
        p = w.page
        head = p.locator("#cohort-0 table.board thead th")
        names = [_role_and_name(head.nth(i)) for i in range(head.count())]
        assert all(role == "columnheader" for role, _ in names), names
        said = [name for _, name in names]
        for words in ("passes all 2 repeats", "dollars per run",
                      "95th percentile latency, seconds", "frontier membership"):  # fmt: skip
            assert words in said, said
        assert not [n for n in said if re.search(r"[\^$]|\bp95\b|\bs$", n)], said
        seen = [head.nth(i).inner_text() for i in range(head.count())]
        assert {"pass^2", "$ / run", "p95 s"} <= set(seen), seen
        # a pointer gets them in the header's explanation, shown under it (test_board_reader.py),
        # not a second time in a title tooltip (test_board_compare.py)
        p.locator("button[data-sort='cost']").first.hover()
        assert (
            p.locator("#cohort-0 .col-help[id$='-cost']").inner_text().startswith("Dollars per run")
        )
    finally:
        context.close()


def test_a_printout_is_light_has_every_row_and_nothing_over_them(
    browser: Any,
    scale_site: Path,  # noqa: F811
) -> None:
    # paper got the first 30 rows of a 34-row cohort and no button to show the rest; and a
    # dark screen must not print white on black
    context, w = _open(browser, scale_site.as_uri(), 794, 1123, color_scheme="dark")
    try:
        p = w.page
        visible = "#cohort-0 tr.entry:not([hidden])"
        before = p.locator(visible).count()
        assert before == 30  # the screen shows the first 30 of 34
        # what the page looks like while the browser prints it: taken in a beforeprint
        # listener added after the page's own, as page.pdf() (and Ctrl+P) fire it
        p.evaluate(
            """shown => addEventListener("beforeprint", () => {
              window.__printed = {
                rows: document.querySelectorAll(shown).length,
                sticky: [...document.querySelectorAll("th, td, .controls, .card-head")]
                  .filter(e => e.getClientRects().length
                    && getComputedStyle(e).position === "sticky").length,
                page: getComputedStyle(document.documentElement).backgroundColor,
                text: getComputedStyle(document.body).color,
                controls: [...document.querySelectorAll("nav.controls, .rows-toggle")]
                  .filter(e => getComputedStyle(e).display !== "none").length,
              };
            })""",
            visible,
        )
        p.emulate_media(media="print")
        assert p.pdf(format="A4")[:5] == b"%PDF-"
        printed = p.evaluate("window.__printed")
        assert printed["rows"] == 34, printed
        assert printed["sticky"] == 0 and printed["controls"] == 0, printed
        assert printed["page"] == "rgb(255, 255, 255)", printed
        assert printed["text"] == "rgb(27, 31, 36)", printed
        assert p.evaluate(CONTRAST)["bad"] == []
        # intervals stay on paper
        assert re.search(
            r"\[\d\.\d{3}, \d\.\d{3}\]", p.locator("tr.entry td.num").first.inner_text()
        )
        p.emulate_media(media="screen")
        assert p.locator(visible).count() == before  # the screen is as it was
        assert w.errors == []
    finally:
        context.close()
