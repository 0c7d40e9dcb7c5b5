"""In a real browser (Debian's Chromium through Playwright, from file://): a row's card names
each task left out of its mean (a private one by its id only) and says how many of its tasks
were scored; the table counts them beside the headline; one entrant's two rows of a cohort
show the engine each run declared. Built from real runs (``unscored_runs``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_board_browser import ARGS, Watched, _chromium
from unscored_runs import PRIVATE_UNSCORED, PUBLIC_UNSCORED, QUANTISATIONS, REASON


@pytest.fixture(scope="module")
def browser(unscored_site: Path) -> Iterator[Any]:
    # the site is built first: start_run uses asyncio.run, which cannot run inside
    # Playwright's sync event loop
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=_chromium(), args=ARGS)
        yield launched
        launched.close()


def _open(browser: Any, site: Path, width: int, height: int) -> tuple[Any, Watched]:
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(10_000)
    watched = Watched(context.new_page())
    watched.page.goto((site / "index.html").as_uri(), timeout=60_000)
    watched.page.wait_for_selector("html[data-board-ready]", timeout=60_000)
    return context, watched


@pytest.mark.parametrize("width", [1400, 390])
def test_the_card_names_the_tasks_left_out_and_the_table_counts_them(
    browser: Any, unscored_site: Path, width: int
) -> None:
    context, w = _open(browser, unscored_site, width, 900)
    try:
        p = w.page
        row = p.locator("tr.entry[data-key^='mini-good/']")
        mark = row.locator("td.num .not-scored")
        assert mark.text_content() == "2 not scored" and mark.is_visible()
        assert (mark.get_attribute("title") or "").startswith("2 of 4 tasks could not be scored")
        row.locator("td.num").first.click()
        card = p.locator("#card")
        assert card.is_visible()
        tasks = card.locator("dt", has_text="tasks").locator("xpath=following-sibling::dd[1]")
        assert tasks.text_content() == (
            "2 of 4 tasks scored (all of the task set; 2 not scored, left out of the mean and "
            "named below)"
        )
        head = card.locator("h3.not-scored-head")
        assert head.text_content() == "Not scored (2): left out of the mean"
        items = card.locator("ul.not-scored li")
        assert items.count() == 2
        public, private = (items.nth(i) for i in range(2))
        assert public.locator("code").text_content() == PUBLIC_UNSCORED
        assert public.locator(".sentence").text_content() == REASON
        assert private.locator("code").text_content() == PRIVATE_UNSCORED
        assert private.text_content() == f"{PRIVATE_UNSCORED} grounded-qa (private split: id only)"
        assert card.locator("dt", has_text="engine").count() == 0  # a scripted target: none
        if os.environ.get("BENCH_SCREENSHOTS"):
            head.scroll_into_view_if_needed()
            p.screenshot(path=f"{os.environ['BENCH_SCREENSHOTS']}/not-scored-card-{width}.png")
        p.click("#card-close")
        assert (
            p.evaluate(
                "document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
            <= 0
        )
        assert w.errors == []
    finally:
        context.close()


def test_the_cards_of_one_entrants_rows_show_the_engine_each_declared(
    browser: Any, unscored_site: Path
) -> None:
    context, w = _open(browser, unscored_site, 1400, 900)
    try:
        p = w.page
        rows = p.locator("tr.entry[data-key^='mock-engine/']")
        assert rows.count() == 2
        seen = []
        for i in range(2):
            rows.nth(i).locator("td.num").first.click()
            engine = p.locator("#card dt", has_text="engine").locator(
                "xpath=following-sibling::dd[1]"
            )
            seen.append(engine.text_content())
            p.click("#card-close")
        assert sorted(seen) == sorted(f"bench-mock 1, quantisation {q}" for q in QUANTISATIONS)
        assert w.errors == []
    finally:
        context.close()
