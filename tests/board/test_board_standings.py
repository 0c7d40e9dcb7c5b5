"""The "rank by" view: every ranked row's tie-aware rank on one family or suite category,
computed at build time (bench.board.standings), and the page that re-sorts by it (Chromium).

The BFCL world is made of plain entries (no import, no runs): four ranked entrants and a
reference row on three categories, so that each category orders them otherwise than the
headline does, with a tie in each:

* ``parallel`` (40 tasks): A 40, B 39, C 10, D 0 -> A 1, B 1 (tied), C 3, D 4
* ``irrelevance`` (40 tasks): C 40, B 12, A 10, D 0 -> C 1, B 2, A 2 (tied), D 4
* ``live_relevance`` (16 tasks: the exact sign-flip test decides): C 16, A 8, B 8, D 0 ->
  C 1, A 2, B 2, D 4
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_board_browser import ARGS, Watched, _chromium

from bench.board import EntryInput, build_rows
from bench.board.build import BuildOptions, render_board
from bench.board.pairs import board_pairs
from bench.board.standings import board_standings

REPO = Path(__file__).resolve().parents[2]
SOLVED = {  # entrant -> category -> the first k of its tasks solved
    "a": {"parallel": 40, "irrelevance": 10, "live-relevance": 8},
    "b": {"parallel": 39, "irrelevance": 12, "live-relevance": 8},
    "c": {"parallel": 10, "irrelevance": 40, "live-relevance": 16},
    "d": {"parallel": 0, "irrelevance": 0, "live-relevance": 0},
    "ref": {"parallel": 20, "irrelevance": 20, "live-relevance": 8},
}
SIZES = {"parallel": 40, "irrelevance": 40, "live-relevance": 16}
EXPECTED = {
    "parallel": {"a": (1, 2), "b": (1, 2), "c": (3, 3), "d": (4, 4)},
    "irrelevance": {"c": (1, 1), "b": (2, 3), "a": (2, 3), "d": (4, 4)},
    "live_relevance": {"c": (1, 1), "a": (2, 3), "b": (2, 3), "d": (4, 4)},
}


def _entry(name: str, suite: str = "bfcl-v4", family_of: Any = None) -> EntryInput:
    values = {
        f"{category}-{i}": 1.0 if i < SOLVED[name][category] else 0.0
        for category, n in SIZES.items()
        for i in range(n)
    }
    return EntryInput(
        entrant=name,
        display_name=f"Entrant {name.upper()}",
        run_id=f"20260101T000000Z-{name}",
        created_at="2026-01-01T00:00:00+00:00",
        cohort_key="k",
        fingerprint=hashlib.sha256(name.encode()).hexdigest()[:16],
        config={},
        task_set_hash="h" * 64,
        split="public",
        repeats=1,
        harness="1",
        status="complete",
        values=values,
        families={t: family_of(t) if family_of else "tool-trajectory" for t in values},
        counted=len(values),
        suite=suite,
        reference="do-nothing" if name == "ref" else None,
    )


def _ranks(standing: dict[str, Any], name: str) -> dict[str, tuple[int, int]]:
    [view] = [v for v in standing["by"] if v["name"] == name]
    return {
        key.split("/")[0]: (lo, hi)
        for key, lo, hi in zip(standing["keys"], view["lo"], view["hi"], strict=True)
    }


ENTRIES = [_entry(n) for n in SOLVED]


def test_each_category_ranks_the_rows_on_its_own_tasks() -> None:
    board = build_rows(ENTRIES, inputs_hash="x", seed=3, B=2000)
    [standing] = board_standings(board, ENTRIES)
    assert standing is not None
    assert [(v["kind"], v["name"], v["tasks"], v["test"]) for v in standing["by"]] == [
        ("category", "parallel", 40, "bootstrap"),
        ("category", "irrelevance", 40, "bootstrap"),
        ("category", "live_relevance", 16, "sign-flip"),
    ]  # BFCL's order; a category no ranked row ran (simple_python) has no rank
    for name, expected in EXPECTED.items():
        assert _ranks(standing, name) == expected, name
    # the reference row is in no rank, as for the headline
    assert all(not k.startswith("ref/") for k in standing["keys"])
    # the headline orders them otherwise: the view is not the headline's ranks again
    ranked = [r.entrant for r in board.cohorts[0].entries if r.ranked]
    assert ranked[0] == "c" and ranked.index("a") > ranked.index("b")


def test_a_familys_ranks_rest_on_the_cohorts_own_resamples() -> None:
    """On bench-suite's own task set each family is a stratum of the cohort's W: the ranks
    are those of that W's columns, the ones the family cells' intervals come from."""
    import numpy as np

    from bench.stats import resample_matrix, tie_ranks

    def family_of(task: str) -> str:
        return "alpha" if task.startswith("parallel") else "beta"

    entries = [_entry(n, suite="bench-suite", family_of=family_of) for n in "abcd"]
    board = build_rows(entries, inputs_hash="x", seed=9, B=1000)
    [standing] = board_standings(board, entries)
    assert standing is not None
    assert [(v["kind"], v["name"], v["tasks"]) for v in standing["by"]] == [
        ("family", "alpha", 40),
        ("family", "beta", 56),
    ]
    tasks = sorted(entries[0].values)
    fams = [family_of(t) for t in tasks]
    W = resample_matrix(fams, 1000, 9)
    X = np.array([[e.values[t] for t in tasks] for e in entries])
    keys = [e.key for e in entries]
    for view in standing["by"]:
        cols = [k for k, f in enumerate(fams) if f == view["name"]]
        M = (W[:, cols] * (1.0 / len(cols))) @ X[:, cols].T
        expected = tie_ranks(M)
        order = [keys.index(k) for k in standing["keys"]]
        assert view["lo"] == [expected.rank_lo[i] for i in order]
        assert view["hi"] == [expected.rank_hi[i] for i in order]
    # one family: nothing to rank by but the headline
    one = [_entry(n, suite="bench-suite") for n in "ab"]
    assert board_standings(build_rows(one, inputs_hash="x", seed=9, B=500), one) == [None]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    board = build_rows(ENTRIES, inputs_hash="x", seed=3, B=2000)
    out = tmp_path_factory.mktemp("standings")
    options = BuildOptions(
        out=out, templates=REPO / "site_templates", methodology=REPO / "docs" / "METHODOLOGY.md"
    )
    page = render_board(
        board, options, board_pairs(board, ENTRIES), board_standings(board, ENTRIES)
    )
    (out / "index.html").write_bytes(page)
    return out / "index.html"


@pytest.fixture(scope="module")
def browser(site: Path) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=_chromium(), args=ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any, site: Path) -> Iterator[Watched]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(10_000)
    watched = Watched(context.new_page())
    watched.page.goto(site.as_uri(), timeout=60_000)
    watched.page.wait_for_selector("html[data-board-ready]", timeout=60_000)
    yield watched
    context.close()


def _rows(page: Any) -> list[tuple[str, str]]:
    """(entrant, rank cell's visible text) of the shown rows, in order."""
    rows = page.locator("#cohort-0 tbody tr.entry:not([hidden])")
    out = []
    for i in range(rows.count()):
        row = rows.nth(i)
        key = row.get_attribute("data-key") or ""
        shown = row.locator("td.rank").evaluate(
            "td => (td.querySelector(':scope > span[aria-hidden]') || td).innerText"
        )
        out.append((key.split("/")[0], shown))
    return out


def test_choosing_a_category_re_sorts_the_table_by_its_ranks(page: Watched) -> None:
    p = page.page
    box = p.locator("#cohort-0 .rank-by")
    assert box.is_visible()
    before = _rows(p)
    cells = p.locator("#cohort-0 tbody td.rank").evaluate_all("ns => ns.map(n => n.innerHTML)")
    select = box.locator("select")
    assert select.locator("option").all_inner_texts() == [
        "the headline (96 tasks)",
        "category parallel (40 tasks)",
        "category irrelevance (40 tasks)",
        "category live_relevance (16 tasks)",
    ]
    select.select_option("category:irrelevance")
    shown = _rows(p)
    # rank, then the category's figure as shown (B 0.300 before A 0.250), then the reference row
    assert [k for k, _ in shown] == ["c", "b", "a", "d", "ref"]
    assert [t.split("\n")[0][:1] for _, t in shown[:4]] == ["1", "2", "2", "4"]
    assert "tied" in shown[1][1] and "tied" in shown[2][1] and "tied" not in shown[0][1]
    assert "2–3" in shown[1][1]
    assert shown[4][1] == "ref"  # never ranked
    words = p.locator("#cohort-0 tr[data-key^='a/'] td.rank .sr-only").inner_text()
    assert (
        words
        == "rank 2 on category irrelevance, tied with 1 other row; the data allow ranks 2 to 3"
    )
    note = box.locator(".rank-by-note").inner_text()
    assert "category irrelevance" in note and "40 tasks" in note and "97.5 %" in note
    marked = p.locator("#cohort-0 .ranked-by")
    assert marked.count() == 1 + 5  # the header and each row's cell
    assert marked.first.get_attribute("data-category") == "irrelevance"
    select.select_option("category:live_relevance")
    # A and B: one rank, one figure (0.500): the board's order (B's headline is higher)
    assert [k for k, _ in _rows(p)] == ["c", "b", "a", "d", "ref"]
    assert "sign-flip" in box.locator(".rank-by-note").inner_text()
    select.select_option("category:parallel")
    assert [k for k, _ in _rows(p)] == ["a", "b", "c", "d", "ref"]
    # the Rank column's sort button sorts by the ranks it shows
    p.locator("#cohort-0 th button[data-sort='rank']").click()
    assert [k for k, _ in _rows(p)] == ["a", "b", "c", "d", "ref"]
    select.select_option("")
    assert _rows(p) == before
    after = p.locator("#cohort-0 tbody td.rank").evaluate_all("ns => ns.map(n => n.innerHTML)")
    assert after == cells
    assert p.locator("#cohort-0 .ranked-by").count() == 0
    assert box.locator(".rank-by-note").inner_text() == ""
    assert page.errors == []


def test_the_card_lists_each_category_with_its_rank(page: Watched) -> None:
    p = page.page
    p.locator("#cohort-0 tr[data-key^='b/'] a.entrant-name").click()
    items = p.locator("#card ul.categories li").all_inner_texts()
    parallel = next(t for t in items if t.startswith("parallel (40 tasks)"))
    assert "0.975" in parallel and "rank 1 (range 1–2) on this category alone" in parallel
    assert next(t for t in items if t.startswith("simple_python")).endswith("not run")
    assert page.errors == []


def test_without_the_view_the_page_has_no_control(browser: Any, tmp_path: Path) -> None:
    """A page made without the runs' task values (a synthetic board) offers no control."""
    board = build_rows(ENTRIES, inputs_hash="x", seed=3, B=200)
    options = BuildOptions(
        out=tmp_path,
        templates=REPO / "site_templates",
        methodology=REPO / "docs" / "METHODOLOGY.md",
    )
    (tmp_path / "index.html").write_bytes(render_board(board, options))
    context = browser.new_context()
    try:
        page = Watched(context.new_page())
        page.page.goto((tmp_path / "index.html").as_uri())
        page.page.wait_for_selector("html[data-board-ready]", timeout=60_000)
        assert page.page.locator(".rank-by").count() == 0
        assert page.errors == []
    finally:
        context.close()


def test_bench_board_build_carries_the_view(built_site: Path) -> None:
    """``build`` (runs on disk, two families) gives the synthetic cohort its family ranks:
    an option per family, and every ranked row its own ranks, nothing on the other rows."""
    import re

    page = (built_site / "index.html").read_text(encoding="utf-8")
    section = page.split('<tr class="entry', 1)[0].rsplit('<section class="cohort"', 1)[1]
    assert re.findall(r'<option value="family:([\w-]+)"', page) == ["alpha", "beta"] + [
        "grounded-qa", "multi-turn-state", "structured-extraction", "tool-trajectory",
    ]  # fmt: skip
    assert 'class="rank-by"' in section
    rows = re.findall(r'<tr class="entry[^>]*>', page)
    ranked = [r for r in rows if 'data-rank=""' not in r]
    assert ranked and all(re.search(r'data-ranks="\d+-\d+( \d+-\d+)*"', r) for r in ranked)
    assert not any("data-ranks" in r for r in rows if 'data-rank=""' in r)
