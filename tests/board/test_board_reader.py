"""What a demanding reader of the board missed, in a real browser (Debian's Chromium through
Playwright, from file://): a column header that explains itself where it is, to the eye, the
keyboard and a screen reader; charts that show the rows the filters match and say so; a
colour-scheme switch that is remembered and set before the first paint, within the page's
Content-Security-Policy. The boards are test_board_a11y.py's (``built_site``) and the 34-row
cohorts of test_board_browser_scale.py (``scale_site``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_board_a11y import _board, _open, _role_and_name
from test_board_browser import ARGS, _chromium
from test_board_browser_scale import scale_site  # noqa: F401  (a fixture, used by name)

# The accessible description Chromium gives each element of a selector (CDP: the one
# Accessibility API a screen reader reads, not the markup).
DESCRIPTION_OF = """sel => {
  window.__described = [...document.querySelectorAll(sel)];
  return window.__described.length;
}"""

# The page's scheme as the eye sees it: the luminance of the canvas behind the body.
BACKGROUND = """() => { const m = getComputedStyle(document.documentElement).backgroundColor
  .match(/[\\d.]+/g).map(Number); return (m[0] + m[1] + m[2]) / 3; }"""

# Run before the page's own script: the scheme the document has when its first content arrives
# (the first paint cannot come earlier), and every CSP violation.
WATCH = """(() => {
  window.__violations = [];
  document.addEventListener("securitypolicyviolation",
    e => window.__violations.push(e.violatedDirective + " " + e.blockedURI));
  new MutationObserver((records, observer) => {
    if (document.querySelector("header")) {
      window.__schemeAtFirstContent = document.documentElement.getAttribute("data-scheme");
      observer.disconnect();
    }
  }).observe(document, { childList: true, subtree: true });
})()"""


@pytest.fixture(scope="module")
def browser(built_site: Path, scale_site: Path) -> Iterator[Any]:  # noqa: F811
    # every site is built first: start_run uses asyncio.run, which cannot run inside
    # Playwright's sync event loop
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=_chromium(), args=ARGS)
        yield launched
        launched.close()


def _descriptions(p: Any, selector: str) -> list[str]:
    count = p.evaluate(DESCRIPTION_OF, selector)
    cdp = p.context.new_cdp_session(p)
    out = []
    for i in range(count):
        handle = cdp.send("Runtime.evaluate", {"expression": f"window.__described[{i}]"})
        tree = cdp.send(
            "Accessibility.getPartialAXTree",
            {"objectId": handle["result"]["objectId"], "fetchRelatives": False},
        )
        node = next(n for n in tree["nodes"] if not n.get("ignored"))
        out.append(str(node.get("description", {}).get("value", "")))
    cdp.detach()
    return out


def _uncovered(p: Any, selector: str) -> bool:
    """Whether the element is on screen and nothing (a sticky part, a row) lies over its middle."""
    return bool(
        p.evaluate(
            """sel => { const e = document.querySelector(sel), r = e.getBoundingClientRect();
              if (!r.width || r.bottom > innerHeight || r.right > innerWidth || r.left < 0)
                return false;
              const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
              return !!at && e.contains(at); }""",
            selector,
        )
    )


def test_every_column_header_explains_itself_to_the_keyboard_and_a_screen_reader(
    browser: Any, built_site: Path
) -> None:
    # the columns were explained in the Methodology section only, and five headers by a title a
    # pointer shows after a wait: a keyboard or a screen reader got nothing, a phone nothing
    context, w = _open(browser, _board(built_site), 1280, 1000)
    try:
        p = w.page
        head = "#cohort-0 table.board thead"
        buttons = f"{head} th button[data-sort]"
        said = _descriptions(p, buttons)
        names = [_role_and_name(p.locator(buttons).nth(i))[1] for i in range(len(said))]
        assert len(said) == p.locator(f"{head} th").count() + 1  # the entrant's date too
        short = [(n, d) for n, d in zip(names, said, strict=True) if len(d) < 40]
        assert short == [], f"a header without an explanation: {short}"
        by_key = dict(
            zip(p.eval_on_selector_all(buttons, "bs => bs.map(b => b.dataset.sort)"), said,
                strict=True)
        )  # fmt: skip
        assert "mean of the family means" in by_key["headline"].lower()
        assert "95\u00a0% interval" in by_key["headline"]
        assert "repeats" in by_key["passk"] and "resamples" in by_key["frontier"]
        # a family of fewer than 10 tasks says so in its own words, not only in a title
        described = _descriptions(p, f"{head} th.fam:has(.few) button")[0]
        assert "too few to trust its interval" in described, described
        # the header's own name is unchanged: a screen reader moving along a row hears
        # "Headline with its 95 % interval", not the explanation again at every cell
        role, name = _role_and_name(p.locator(f"{head} th").nth(2))
        assert (role, name) == ("columnheader", "Headline with its 95 % interval"), name

        # the eye gets the same words where the header is: Tab to it, and they show under it
        cost = f"{head} th:has(button[data-sort='cost'])"
        p.focus(f"{head} th button[data-sort='latency']")
        p.keyboard.press("Shift+Tab")  # from the keyboard: focus-visible
        assert p.evaluate("document.activeElement.dataset.sort") == "cost"
        tip = p.locator(f"{cost} .col-help")
        assert tip.is_visible() and (tip.text_content() or "") == by_key["cost"]
        assert _uncovered(p, f"{cost} .col-help"), "the explanation is covered or off screen"
        p.keyboard.press("Escape")  # dismissible without moving the focus (WCAG 1.4.13)
        assert tip.is_hidden()
        assert p.evaluate("document.activeElement.dataset.sort") == "cost"
        p.keyboard.press("Shift+Tab")
        shown = p.locator(f"{head} .col-help:visible")
        assert shown.count() == 1 and (shown.text_content() or "") == by_key["errors"]
        # and a pointer, without the wait of a title
        p.evaluate("document.activeElement.blur()")
        p.hover(f"{head} th button[data-sort='pooled']")
        assert p.locator(f"{head} .col-help:visible").count() == 1
        assert p.locator(f"{head} th:has(button[data-sort='pooled']) .col-help").is_visible()
        assert w.errors == []
    finally:
        context.close()


def test_a_phone_reads_a_column_explanation_on_a_tap(browser: Any, built_site: Path) -> None:
    context, w = _open(browser, _board(built_site), 390, 844, has_touch=True, is_mobile=True)
    try:
        p = w.page
        header = "#cohort-0 table.board thead th:has(button[data-sort='latency'])"
        p.locator(f"{header} button").scroll_into_view_if_needed()
        p.tap(f"{header} button")
        tip = p.locator(f"{header} .col-help")
        assert tip.is_visible() and "95th percentile" in (tip.text_content() or "")
        box, view = tip.bounding_box(), p.viewport_size
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= view["width"]
    finally:
        context.close()


VISIBLE_MARKS = """(sel) => [...document.querySelectorAll(sel)]
  .filter(e => e.getClientRects().length).map(e => e.dataset.key)"""


def test_the_charts_show_the_rows_the_filters_match_and_say_so(
    browser: Any,
    scale_site: Path,  # noqa: F811
) -> None:
    # the charts drew every row of the cohort whatever the search or the "verified only" box
    # left in the table: a reader looking for one entrant's point among 34 found all 34
    context, w = _open(browser, scale_site.as_uri(), 1280, 1000)
    try:
        p = w.page
        cost = "#cohort-0 figure.chart[data-chart='cost']"
        points = f"{cost} g.point"
        labels = "#cohort-0 figure.chart g.labels text"
        note = p.locator("#cohort-0 p.chart-filtered")
        everything = p.evaluate(VISIBLE_MARKS, points)
        assert len(everything) > 20 and note.is_hidden()
        rows = p.eval_on_selector_all(
            "#cohort-0 tr.entry",
            "rs => rs.map(r => [r.dataset.key, (r.dataset.name + ' ' + r.dataset.key)"
            ".toLowerCase(), r.dataset.verified === 'true'])",
        )
        for action, keep in (
            (lambda: p.fill("#filter-text", "entrant-001"), lambda k, t, v: "entrant-001" in t),
            (lambda: (p.fill("#filter-text", ""), p.check("#filter-verified")),
             lambda k, text, v: v),
        ):  # fmt: skip
            action()
            matching = {k for k, text, v in rows if keep(k, text, v)}
            expected = sorted(k for k in everything if k in matching)
            assert 0 < len(expected) < len(everything)
            assert sorted(p.evaluate(VISIBLE_MARKS, points)) == expected
            assert set(p.evaluate(VISIBLE_MARKS, labels)) <= matching  # no label of a hidden row
            if len(expected) <= 10:  # a few points left: each is named, as the labelled ones
                named = p.evaluate(VISIBLE_MARKS, f"{cost} g.labels text")
                assert sorted(named) == expected
            plotted = len(
                set(p.eval_on_selector_all("#cohort-0 figure.chart g.point",
                                           "ps => ps.map(g => g.dataset.key)"))
            )  # fmt: skip
            shown = len(set(p.evaluate(VISIBLE_MARKS, "#cohort-0 figure.chart g.point")))
            assert note.is_visible()
            assert (note.text_content() or "").startswith(
                f"The charts below show {shown} of the {plotted} plotted rows"
            ), note.text_content()
            # beside the charts, before them
            assert note.evaluate("n => n.nextElementSibling.id") == "charts-0"
        p.uncheck("#filter-verified")
        assert sorted(p.evaluate(VISIBLE_MARKS, points)) == sorted(everything)
        assert note.is_hidden()
        # a search that no row of the cohort matches folds it, charts and note with it
        p.fill("#filter-text", "cohort1-")
        assert p.locator("#cohort-0 figure.chart").first.is_hidden()
        assert w.errors == []
    finally:
        context.close()


def test_the_scheme_switch_is_remembered_and_set_before_the_first_paint(
    browser: Any, built_site: Path
) -> None:
    # the dark scheme followed the system's preference only: a reader at a light system who
    # wants dark (or the reverse) had no way to it
    context = browser.new_context(viewport={"width": 1280, "height": 1000}, color_scheme="light")
    context.set_default_timeout(10_000)
    context.add_init_script(WATCH)
    try:
        p = context.new_page()
        errors: list[str] = []
        p.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        p.on("pageerror", lambda e: errors.append(str(e)))
        p.goto(_board(built_site))
        p.wait_for_selector("html[data-board-ready]")
        switch = p.locator("#scheme")
        assert switch.is_visible() and _role_and_name(switch)[1].startswith("Colours")
        assert switch.input_value() == "" and p.evaluate(BACKGROUND) > 200  # as the system: light
        switch.select_option("dark")
        assert p.get_attribute("html", "data-scheme") == "dark" and p.evaluate(BACKGROUND) < 40
        # remembered: a new page of the board opens dark from its first content, not after
        again = context.new_page()
        again.goto(_board(built_site))
        again.wait_for_selector("html[data-board-ready]")
        assert again.evaluate("window.__schemeAtFirstContent") == "dark"
        assert again.locator("#scheme").input_value() == "dark"
        assert again.evaluate(BACKGROUND) < 40
        # and so does the transcript viewer beside it, which has no switch of its own
        viewer = context.new_page()
        viewer.goto((built_site / "transcript.html").as_uri())
        assert viewer.evaluate(BACKGROUND) < 40
        viewer.close()
        # "as the system" forgets the choice
        again.locator("#scheme").select_option("")
        assert again.get_attribute("html", "data-scheme") is None
        assert again.evaluate(BACKGROUND) > 200
        for page in (p, again):
            assert page.evaluate("window.__violations") == []
        assert errors == []
    finally:
        context.close()
    # a dark system, light chosen: light
    context, w = _open(browser, _board(built_site), 1280, 1000, color_scheme="dark")
    try:
        p = w.page
        assert p.evaluate(BACKGROUND) < 40
        p.locator("#scheme").select_option("light")
        assert p.evaluate(BACKGROUND) > 200
        p.reload()
        p.wait_for_selector("html[data-board-ready]")
        assert p.evaluate(BACKGROUND) > 200 and p.locator("#scheme").input_value() == "light"
        assert w.errors == []
    finally:
        context.close()
