"""The page in a real browser (Debian's Chromium through Playwright), opened from file://."""

from __future__ import annotations

import os
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
    # 4.8 MB of inline plotly.js: parsing takes seconds on a busy machine
    watched.page.goto((built_site / "index.html").as_uri(), timeout=60_000)
    watched.page.wait_for_selector("div.chart .main-svg", timeout=60_000)
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
    page.page.click("tr[data-key^='fragile/'] button.open-card")
    card = page.page.locator("#card")
    assert card.is_visible()
    assert page.page.locator("#card-title").text_content() == "Fragile Stack"
    failed = card.locator("ul.failed li")
    assert failed.count() >= 3
    text = card.text_content() or ""
    assert "errored: endpoint returned 500 after retries" in text
    languages = [card.locator("ul.languages li").nth(i).text_content() for i in range(2)]
    assert languages == ["en (10 tasks): 0.700", "tr (2 tasks): 0.250"]
    link = failed.first.locator("a")
    assert link.get_attribute("href", timeout=1000).startswith("https://github.com/example/")
    assert link.get_attribute("rel") == "noopener noreferrer nofollow"
    page.page.click("#card-close")
    assert card.is_hidden()


def test_charts_render_points(page: Watched, built_site: Path) -> None:
    points = page.page.locator("div.chart svg .point").count()
    assert points >= 6  # every entry with a cost or a latency is a point
    assert page.page.locator("div.chart svg.main-svg").count() >= 4


def test_hostile_strings_render_as_text_and_run_nothing(page: Watched) -> None:
    row = page.page.locator("tr[data-key^='xss/']")
    assert "<img src=x onerror=alert(1)>" in (row.locator("td.name").text_content() or "")
    assert row.locator("img").count() == 0
    assert "</script><script>alert(1)</script>" in (row.text_content() or "")
    row.locator("button.open-card").click()
    assert page.page.locator("#card-title").text_content() == "<img src=x onerror=alert(1)>"
    assert page.page.locator("#card img, body > img").count() == 0
    page.page.click("#card-close")
    page.page.locator("div.chart .point").last.hover(force=True)
    page.page.wait_for_timeout(300)
    assert page.dialogs == []
    assert page.errors == []


def test_report_card_shows_the_registry_and_a_safe_description(page: Watched) -> None:
    page.page.click("tr[data-key^='xss/'] button.open-card")
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
    page.page.click("tr[data-key^='fragile/'] button.open-card")
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
    row.locator("button.open-card").click()
    text = page.page.locator("#card").text_content() or ""
    assert "not ranked: reference row (no-model baseline do_nothing)" in text
    page.page.click("#card-close")
    assert page.errors == []
