"""The task view, "which entries failed this task?" (bench.board.taskview and the page, in
Chromium): one task's id, family and prompt in brief, and every row of its cohort with its
verdict (passed, failed, errored, not scored, not run) and a link to its transcript, reached
from a failed task's id on a report card, from the task search box, or by its address.

The page is the board of the shipped examples' runs and the synthetic runs (``board_inputs``),
built with the examples' task set (``--tasks``): the examples' cohort has its prompts, the
synthetic cohort (a task set no build was given) says it has none."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_board_browser import ARGS, Watched, _chromium

from bench.board import EntryInput, FailedInput, build_rows
from bench.board.entries import NotScoredInput
from bench.board.taskview import board_tasks, brief

REPO = Path(__file__).resolve().parents[2]


def _entry(name: str, values: dict[str, float], **kw: Any) -> EntryInput:
    return EntryInput(
        entrant=name,
        display_name=name.title(),
        run_id=f"20260101T000000Z-{name}",
        created_at="2026-01-01T00:00:00+00:00",
        cohort_key="k",
        fingerprint=name * 4,
        config={},
        task_set_hash="h" * 64,
        split="public",
        repeats=2,
        harness="1",
        status="complete",
        values=values,
        families={t: "alpha" for t in ("t1", "t2", "t3", "t4")},
        counted=2 * len(values),
        **kw,
    )


def _failed(task: str, value: float, line: str, private: bool = False) -> FailedInput:
    return FailedInput(task, "alpha", value, (line,) if not private else (), private, None)


def test_each_row_has_one_verdict_per_task_of_its_cohort() -> None:
    a = _entry(
        "aa",
        {"t1": 1.0, "t2": 0.5, "t3": 0.0},
        failed=(
            _failed("t2", 0.5, "1/2 repeats: the answer names the wrong order"),
            _failed("t3", 0.0, "2/2 repeats: errored: HTTP 503 after 3 retries"),
        ),
        not_scored=(NotScoredInput("t4", "alpha", "no expectation could decide", False),),
    )
    b = _entry("bb", {"t1": 0.0}, failed=(_failed("t1", 0.0, "2/2 repeats: over budget: 9 turns"),))
    board = build_rows([a, b], inputs_hash="x", seed=1, B=200)
    [view] = board_tasks(board, [a, b], {"h" * 64: {"t1": "Refund order 1041."}})
    assert view is not None and view["prompts"] is True
    assert [t[0] for t in view["tasks"]] == ["t1", "t2", "t3", "t4"]
    assert view["tasks"][0] == ["t1", "alpha", "Refund order 1041.", 0]
    assert view["tasks"][1][2] is None  # a task the task set did not give: no prompt
    by_key = {row.entrant: v for row, v in zip(board.cohorts[0].entries, view["verdicts"],
                                               strict=True)}  # fmt: skip
    # passed, failed, errored (a repeat errored), not scored; over budget reads as errored,
    # and a task the row never ran is "not run", never "passed"
    assert by_key == {"aa": "pfen", "bb": "e---"}


def test_a_private_task_has_no_prompt_and_a_cohort_without_its_task_set_says_so() -> None:
    a = _entry("aa", {"t1": 0.0}, failed=(_failed("t1", 0.0, "", private=True),))
    board = build_rows([a], inputs_hash="x", seed=1, B=200)
    [view] = board_tasks(board, [a], {"h" * 64: {"t1": "a private prompt"}})
    assert view is not None and view["tasks"] == [["t1", "alpha", None, 1]]
    [none] = board_tasks(board, [a], {})
    assert none is not None and none["prompts"] is False and none["tasks"][0][2] is None
    # a row the board shows but the view was not given: no view, never another run's verdicts
    assert board_tasks(board, [], {}) == [None]


def test_a_prompt_is_one_line_cut_at_a_word() -> None:
    assert brief("Hello,\n  please refund\torder 1041.") == "Hello, please refund order 1041."
    cut = brief("word " * 100, limit=40)
    assert cut.endswith("…") and len(cut) <= 40 and "wor…" not in cut


@pytest.fixture(scope="module")
def site(
    board_inputs: Path, make_options: Callable[..., Any], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    from bench.board import build

    out = tmp_path_factory.mktemp("taskview") / "site"
    build(make_options(board_inputs, out, tasks=REPO / "examples" / "tasks"))
    return out


def _views(site: Path) -> list[Any]:
    import html

    text = (site / "index.html").read_text(encoding="utf-8")
    found = re.search(r"<section class=\"task-view\"[^>]* data-tasks='([^']*)'", text)
    assert found, "the page carries no task view"
    return list(json.loads(html.unescape(found.group(1))))


def test_the_build_takes_prompts_from_the_task_set_of_the_cohorts_hash(site: Path) -> None:
    board = json.loads((site / "board.json").read_text(encoding="utf-8"))
    views = _views(site)
    by_title = {c["title"]: v for c, v in zip(board["cohorts"], views, strict=True)}
    examples = next(v for t, v in by_title.items() if "494b27137232" in t)
    prompts = {t[0]: t[2] for t in examples["tasks"]}
    assert prompts["gqa-0003"] == "What is the wattage of the Aurora kettle?"
    assert examples["prompts"] is True
    synthetic = next(v for t, v in by_title.items() if "aaaaaaaaaaaa" in t)
    assert synthetic["prompts"] is False and all(t[2] is None for t in synthetic["tasks"])
    # board.json's rows are unchanged: the view is the page's own block
    assert "verdicts" not in (site / "board.json").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def browser(site: Path) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=_chromium(), args=ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any, site: Path) -> Iterator[Watched]:
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    context.set_default_timeout(10_000)
    watched = Watched(context.new_page())
    watched.page.goto((site / "index.html").as_uri(), timeout=60_000)
    watched.page.wait_for_selector("html[data-board-ready]", timeout=60_000)
    yield watched
    context.close()


def _verdicts(p: Any) -> dict[str, str]:
    """Entrant id -> the verdict cell's first word, in the task view's one cohort."""
    rows = p.locator("#task-view table.task-rows tbody tr")
    return {
        (rows.nth(i).get_attribute("data-key") or "").split("/")[0]: rows.nth(i)
        .locator("td strong")
        .inner_text()
        for i in range(rows.count())
    }


def test_a_failed_task_on_a_card_opens_every_rows_verdict_on_it(page: Watched) -> None:
    p = page.page
    assert p.locator("#task-view").is_hidden()
    p.locator("tr.entry[data-key^='tied-one/'] a.entrant-name").click()
    link = p.locator("#card ul.failed li a.task-link").first
    task = link.inner_text()
    assert task == "s08", task  # values(8): s08 is its first failed task
    link.click()
    view = p.locator("#task-view")
    assert view.is_visible() and p.locator("#card").is_hidden()
    assert p.get_by_role("heading", name=f"Task {task}", exact=True).is_visible()
    assert p.evaluate("document.activeElement.id") == "task-view-title"
    assert p.evaluate("location.hash").startswith(f"#task={task}&cohort=")
    assert "alpha" not in view.inner_text()  # s08 is a beta task
    assert re.search(r"family\s+beta", view.inner_text())
    assert "not on this page: the build was not given this cohort's task set" in view.inner_text()
    # every row of the cohort, the board's own rows: Tied Two solved 8 too; Fragile Stack 10
    verdicts = _verdicts(p)
    assert verdicts == {"tied-one": "failed", "tied-two": "failed", "fragile": "passed",
                        "xss": "failed"}  # fmt: skip
    assert "3 of 4 rows failed it; 1 passed." in view.inner_text()
    row = p.locator("#task-view tbody tr", has_text="Tied Two")
    transcript = row.locator("a.transcript")
    assert transcript.get_attribute("aria-label") == "transcript of Tied Two"
    assert re.fullmatch(
        r"transcript\.html#[0-9a-f]{24}/s08", transcript.get_attribute("href") or ""
    )
    assert "repeats:" in row.inner_text()  # its failing sentence
    # back: the card again, as it was
    p.go_back()
    p.wait_for_function("document.getElementById('card').open")
    assert p.locator("#task-view").is_hidden()
    assert page.errors == []


def test_the_task_search_finds_a_task_and_says_when_none_has_that_id(page: Watched) -> None:
    p = page.page
    box = p.get_by_role("combobox", name="Task")  # a search box with suggestions
    box.fill("s01")
    box.press("Enter")
    assert p.get_by_role("heading", name="Task s01", exact=True).is_visible()
    verdicts = _verdicts(p)
    # Fragile Stack errored on s00..s02 (both repeats): errored, not just "failed"
    assert verdicts["fragile"] == "errored" and verdicts["tied-two"] == "passed"
    box.fill("gqa-0003")
    box.press("Enter")
    text = p.locator("#task-view").inner_text()
    assert "What is the wattage of the Aurora kettle?" in text  # the examples' prompt
    assert "Example support bot" in text
    box.fill("s0")
    box.press("Enter")
    assert p.get_by_role("heading", name="No task s0", exact=True).is_visible()
    links = p.locator("#task-view ul.task-like a")
    assert links.count() == 10 and links.first.inner_text() == "s00"
    p.get_by_role("button", name="close").first.click()
    assert p.locator("#task-view").is_hidden()
    assert page.errors == []


def test_a_task_address_opens_the_view_on_load(browser: Any, site: Path) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        w = Watched(context.new_page())
        w.page.goto((site / "index.html").as_uri() + "#task=gqa-0003", timeout=60_000)
        w.page.wait_for_selector("html[data-board-ready]", timeout=60_000)
        assert w.page.locator("#task-view").is_visible()
        assert "Example support bot" in w.page.locator("#task-view").inner_text()
        overflow = "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        assert w.page.evaluate(overflow) <= 0  # the view fits a phone
        assert w.errors == []
    finally:
        context.close()
