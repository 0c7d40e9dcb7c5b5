"""What a demanding reader of a leaderboard expects, in a real browser (Debian's Chromium through
Playwright, from file://): "is A better than B?" for two rows of a cohort, with their paired
difference, its interval and the ranks' own tie decision (``bench.board.pairs``, at build time);
links to a row, a cohort and a comparison that name them by key, so a rebuild with other rows
keeps them pointing at the same entrant; column headers without the old ``title`` tooltips
beside their explanations; a long name whole on a phone and on the row the keyboard is in.

The boards are built from plain entries (``build_rows``, the build's own statistics) and
rendered with their comparisons as ``bench board build`` renders them."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from test_board_browser import ARGS, Watched, _chromium

REPO = Path(__file__).resolve().parents[2]
LONG = (
    "Entrant with an unusually long display name that goes on and on and on, well past the "
    "two lines a row of the table gives it before cutting it short"
)
SECOND = "b" * 64  # the second cohort's key


def _entry(name: str, values: dict[str, float], families: dict[str, str], **kw: Any) -> Any:
    from bench.board import EntryInput

    base = EntryInput(
        entrant=name, display_name=name.upper(), run_id=f"20260101T000000Z-{name}",
        created_at="2026-01-01T00:00:00+00:00", cohort_key="a" * 64, fingerprint="fp-" + name,
        config={"model": name}, task_set_hash="a" * 64, split="public", repeats=1,
        harness="0.1.0", status="complete", values=values, families=families,
    )  # fmt: skip
    return replace(base, **kw)


def triple() -> list[Any]:
    """test_board_rows' non-transitive triple: A beats C; A and B, B and C are tied."""
    ids = [f"t{i:03d}" for i in range(100)]
    solved = {
        "a": set(range(10)) | set(range(14, 24)) | set(range(28, 64)),
        "b": set(range(10, 14)) | set(range(14, 24)) | set(range(28, 64)),
        "c": set(range(10, 14)) | set(range(24, 28)) | set(range(28, 64)),
    }
    fams = dict.fromkeys(ids, "qa")
    return [_entry(n, {t: float(i in solved[n]) for i, t in enumerate(ids)}, fams) for n in "abc"]


def crowd(n: int, tasks: int = 40, *, seed: int = 3, cohort: str = "a" * 64) -> list[Any]:
    """``n`` entrants of skill spread from 0.2 to 0.9 on ``tasks`` binary tasks, two families;
    entrant e0007's name is long."""
    rng = random.Random(seed)
    ids = [f"t{i:03d}" for i in range(tasks)]
    fams = {t: ("alpha" if i % 2 else "beta") for i, t in enumerate(ids)}
    out = []
    for k in range(n):
        skill = 0.2 + 0.7 * k / max(1, n - 1)
        values = {t: float(rng.random() < skill) for t in ids}
        name = f"e{k:04d}"
        out.append(_entry(name, values, fams, cohort_key=cohort,
                          display_name=LONG if k == 7 else name.upper()))  # fmt: skip
    return out


def quick(entries: Sequence[Any]) -> list[Any]:
    """``entries`` with a stand-in for each run's own headline (its stratified mean, a fixed
    interval around it): the pages below test the comparisons, which never read it, and the
    run's own bootstrap would take seconds per 40 rows."""
    from bench.board.entries import RunHeadline

    out = []
    for e in entries:
        fams = sorted(set(e.families.values()))
        means = [
            sum(v for t, v in e.values.items() if e.families[t] == f)
            / sum(1 for t in e.values if e.families[t] == f)
            for f in fams
        ]
        value = sum(means) / len(means)
        lo, hi = max(0.0, value - 0.1), min(1.0, value + 0.1)
        head = RunHeadline(value=value, lo=lo, hi=hi, method="stand-in", level=0.95,
                           pooled=value, analytic_se=0.05)  # fmt: skip
        out.append(replace(e, headline=head))
    return out


def _render(entries: Sequence[Any], out: Path, *, B: int = 400) -> Path:
    """The page ``bench board build`` writes for ``entries``, with its comparisons."""
    from bench.board import build_rows
    from bench.board.page import page_context, render_page
    from bench.board.pairs import board_pairs

    board = build_rows(entries, inputs_hash="f" * 64, seed=7, B=B)
    methodology = (REPO / "docs" / "METHODOLOGY.md").read_text(encoding="utf-8")
    templates = REPO / "site_templates"
    context = page_context(board, templates, methodology, None, board_pairs(board, entries))
    out.mkdir(parents=True, exist_ok=True)
    (out / "index.html").write_text(render_page(context, templates), encoding="utf-8")
    return out / "index.html"


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("compare")
    # two cohorts: 34 rows (4 past the first 30) and the triple
    board = quick([*crowd(34), *[replace(e, cohort_key=SECOND) for e in triple()]])
    # the same board rebuilt with five better entrants ahead of everyone: positions move
    better = [
        replace(e, entrant=f"z{e.entrant}", fingerprint=f"fp-z{e.entrant}",
                run_id=f"{e.run_id}-z", display_name=f"Z {e.display_name}")
        for e in quick(crowd(34, seed=9)[-5:])
    ]  # fmt: skip
    return {
        "board": _render(board, root / "board"),
        "rebuilt": _render([*board, *better], root / "rebuilt"),
    }


@pytest.fixture(scope="module")
def browser(sites: dict[str, Path]) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=_chromium(), args=ARGS)
        yield launched
        launched.close()


def _open(browser: Any, url: str, width: int = 1280, height: int = 1000, **kw: Any) -> Any:
    context = browser.new_context(viewport={"width": width, "height": height}, **kw)
    context.set_default_timeout(10_000)
    watched = Watched(context.new_page())
    watched.page.goto(url, timeout=60_000)
    watched.page.wait_for_selector("html[data-board-ready]", timeout=60_000)
    return context, watched


def _pairs(site: Path) -> list[Any]:
    m = re.search(r'<script type="application/json" id="board-pairs">(.*?)</script>',
                  site.read_text(encoding="utf-8"), re.S)  # fmt: skip
    assert m, "the page carries no comparisons"
    return list(json.loads(m.group(1)))


# --- the comparisons, as numbers ----------------------------------------------------------


@pytest.mark.parametrize("tasks", [40, 12])  # the bootstrap decides; the sign-flip test does
def test_every_pairs_verdict_is_the_one_its_ranks_count(tasks: int) -> None:
    from bench.board import build_rows
    from bench.board.pairs import board_pairs, cohort_pairs

    entries = crowd(12, tasks)
    board = build_rows(entries, inputs_hash="x", seed=7, B=400)
    (cp,) = board_pairs(board, entries)
    assert cp is not None and cp["test"] == ("bootstrap" if tasks >= 30 else "sign-flip")
    rows = {r.key: r for r in board.cohorts[0].entries}
    n = len(cp["keys"])
    assert len(cp["pairs"]) == n * (n - 1) // 2  # 12 rows: every pair
    beaten = dict.fromkeys(cp["keys"], 0)
    beats = dict.fromkeys(cp["keys"], 0)
    for i, j, d, lo, hi, verdict in cp["pairs"]:
        a, b = cp["keys"][i], cp["keys"][j]
        assert lo <= d <= hi
        # every row scored every task: the difference is that of the printed headlines
        assert d == pytest.approx(rows[a].headline.value - rows[b].headline.value, abs=1e-12)
        if verdict == 1:
            beaten[b] += 1
            beats[a] += 1
        elif verdict == -1:
            beaten[a] += 1
            beats[b] += 1
    assert any(v[5] != 0 for v in cp["pairs"]) and any(v[5] == 0 for v in cp["pairs"])
    for key in cp["keys"]:
        assert rows[key].rank == 1 + beaten[key]
        assert rows[key].rank_hi == n - beats[key]
    # fewer first rows (top 4): the pairs past them are decided and drawn as the same pairs
    # among them were
    few = cohort_pairs(
        [next(e for e in entries if e.key == k) for k in cp["keys"]],
        B=400,
        seed=7,
        level=0.95,
        top=4,
    )
    assert few is not None and 0 < len(few["pairs"]) < len(cp["pairs"])
    every = {(i, j): rest for i, j, *rest in cp["pairs"]}
    assert all(every[i, j] == rest for i, j, *rest in few["pairs"])


def test_a_large_cohort_carries_the_first_rows_pairs_its_neighbours_and_the_leader() -> None:
    from bench.board.pairs import TOP, chosen_pairs, cohort_pairs

    assert len(chosen_pairs(100)) == 575 and len(chosen_pairs(1000)) == 2375
    entries = crowd(100)
    cp = cohort_pairs(entries, B=200, seed=7, level=0.95)
    assert cp is not None
    carried = {(i, j) for i, j, *_ in cp["pairs"]}
    assert all((i, j) in carried for i in range(TOP) for j in range(i + 1, TOP))
    assert all((k - 1, k) in carried and (0, k) in carried for k in range(1, 100))
    assert len(carried) == 575
    # the page's share: under 40 KB for a cohort of 100 (the 1,000-entrant page is 9 MB)
    assert len(json.dumps(cp)) < 40_000
    # the pairs past the first rows are decided as those among them are: by the ranks' rule
    assert {v for *_, v in cp["pairs"]} == {-1, 0, 1}
    assert cp["keys"] == [e.key for e in entries]  # in the order given: the listing's


# --- the comparisons, on the page ----------------------------------------------------------


def test_pick_two_rows_and_read_their_difference_interval_and_tie(
    browser: Any, sites: dict[str, Path]
) -> None:
    data = _pairs(sites["board"])[1]  # the triple's cohort
    keys = data["keys"]
    context, w = _open(browser, sites["board"].as_uri())
    try:
        p = w.page
        section = p.locator("section.compare").nth(1)
        assert section.locator(".compare-form").is_visible()
        a, b = section.locator("select.compare-a"), section.locator("select.compare-b")
        # the first two rows to begin with: A and B, tied
        assert a.input_value() == keys[0] and b.input_value() == keys[1]
        result = section.locator(".compare-result")
        assert result.locator(".compare-verdict").inner_text().startswith("Tie: the data cannot")
        # A against C: A is ahead, with the build's difference and interval
        c = next(k for k in keys if k.startswith("c/"))
        b.select_option(c)
        first = next(row for row in data["pairs"] if keys[row[1]] == c and keys[row[0]] == "a/fp-a")
        assert first[5] == 1
        verdict = result.locator(".compare-verdict").inner_text()
        assert verdict == "A is ahead of C."
        diff = result.locator(".compare-diff").inner_text()
        assert f"+{first[2]:.3f} [+{first[3]:.3f}, +{first[4]:.3f}]" in diff, diff
        assert "over the 100 tasks every ranked row scored" in diff
        how = result.locator(".compare-how").inner_text()
        assert "A is ahead in more than 97.5 % of the 400 shared resamples" in how
        # swapped: the same verdict, the difference's sign turned
        section.locator("button.compare-swap").click()
        assert result.locator(".compare-verdict").inner_text() == "A is ahead of C."
        assert f"−{first[2]:.3f}" in result.locator(".compare-diff").inner_text() or (
            f"-{first[2]:.3f}" in result.locator(".compare-diff").inner_text()
        )
        # a screen reader hears the interval in words
        sr = result.locator(".compare-diff .sr-only").text_content()
        assert sr and "95 % interval" in sr
        assert w.errors == []
    finally:
        context.close()


def test_a_pair_the_page_does_not_carry_says_so_and_how_to_get_it(
    browser: Any, sites: dict[str, Path]
) -> None:
    keys = _pairs(sites["board"])[0]["keys"]
    context, w = _open(browser, sites["board"].as_uri())
    try:
        section = w.page.locator("section.compare").first
        section.locator("select.compare-a").select_option(keys[32])
        section.locator("select.compare-b").select_option(keys[30])  # neither neighbour nor first
        text = section.locator(".compare-verdict").inner_text()
        assert text.startswith("This pair is not on the page") and "bench compare" in text
        section.locator("select.compare-b").select_option(keys[31])  # its neighbour: carried
        assert re.match(
            r"^(Tie|.+ is ahead of .+)", section.locator(".compare-verdict").inner_text()
        )
    finally:
        context.close()


# --- links that survive a rebuild ----------------------------------------------------------


def test_a_row_link_lands_on_its_entrant_before_and_after_a_rebuild(
    browser: Any, sites: dict[str, Path]
) -> None:
    keys = _pairs(sites["board"])[0]["keys"]
    key = keys[32]  # past the first 30 rows: behind "show all"
    fragment = f"#row={quote(key, safe='')}&cohort={'a' * 64}"
    places = []
    for site in ("board", "rebuilt"):
        context, w = _open(browser, sites[site].as_uri() + fragment)
        try:
            p = w.page
            row = p.locator(f'tr.entry[data-key="{key}"]')
            assert row.is_visible()
            assert p.evaluate("document.activeElement.getAttribute('data-key')") == key
            assert "linked" in (row.get_attribute("class") or "")
            box = row.bounding_box()
            assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 1000
            places.append(int(row.get_attribute("data-order") or -1))
            assert w.errors == []
        finally:
            context.close()
    assert places[0] != places[1]  # the row moved; the link followed it


def test_a_row_link_clears_a_search_that_hid_it_and_the_card_links_to_its_row(
    browser: Any, sites: dict[str, Path]
) -> None:
    keys = _pairs(sites["board"])[0]["keys"]
    context, w = _open(browser, sites["board"].as_uri())
    try:
        p = w.page
        p.locator(f'tr.entry[data-key="{keys[3]}"] a.entrant-name').click()
        href = p.get_attribute("#card-row", "href")
        assert href == f"#row={quote(keys[3], safe='')}&cohort={'a' * 64}"
        p.click("#card-row")
        assert not p.locator("#card").is_visible()
        assert p.evaluate("document.activeElement.getAttribute('data-key')") == keys[3]
        # a search that hides the row a link names is cleared
        p.fill("#filter-text", "no such entrant")
        assert not p.locator(f'tr.entry[data-key="{keys[5]}"]').is_visible()
        p.evaluate(
            "h => { location.hash = h; }", f"#row={quote(keys[5], safe='')}&cohort={'a' * 64}"
        )
        p.wait_for_function(
            "k => document.activeElement.getAttribute('data-key') === k", arg=keys[5]
        )
        assert p.locator(f'tr.entry[data-key="{keys[5]}"]').is_visible()
        assert p.input_value("#filter-text") == ""
    finally:
        context.close()


def test_a_cohort_link_shows_that_cohort_and_choosing_one_writes_its_link(
    browser: Any, sites: dict[str, Path]
) -> None:
    context, w = _open(browser, sites["board"].as_uri() + f"#cohort={SECOND}")
    try:
        p = w.page
        assert p.input_value("#filter-cohort") == SECOND
        assert p.locator(f'section.cohort[data-cohort="{SECOND}"]').is_visible()
        assert not p.locator(f'section.cohort[data-cohort="{"a" * 64}"]').is_visible()
        assert p.get_attribute(f'section.cohort[data-cohort="{SECOND}"] a.cohort-link', "href") == (
            f"#cohort={SECOND}"
        )
        p.select_option("#filter-cohort", "a" * 64)
        assert p.evaluate("location.hash") == f"#cohort={'a' * 64}"
        p.select_option("#filter-cohort", "")
        assert p.evaluate("location.hash") == ""
    finally:
        context.close()


def test_a_comparison_link_opens_that_pair(browser: Any, sites: dict[str, Path]) -> None:
    fragment = f"#compare=c%2Ffp-c&with=a%2Ffp-a&cohort={SECOND}"
    context, w = _open(browser, sites["board"].as_uri() + fragment)
    try:
        section = w.page.locator("section.compare").nth(1)
        assert section.locator("select.compare-a").input_value() == "c/fp-c"
        assert section.locator(".compare-verdict").inner_text() == "A is ahead of C."
        assert section.locator("a.compare-link").get_attribute("href") == fragment
    finally:
        context.close()


# --- tooltips and long names ----------------------------------------------------------------


def test_column_headers_explain_themselves_once(sites: dict[str, Path]) -> None:
    html = sites["board"].read_text(encoding="utf-8")
    heads = re.findall(r'<table class="board"[^>]*>\s*<thead>.*?</thead>', html, re.S)
    assert len(heads) == 2
    for head in heads:
        # the explanation under the header says it; a title tooltip said it a second time
        # ("pooled mean over tasks", "dollars per run", "frontier membership", ...)
        assert head.count('class="col-help"') >= 10
        assert " title=" not in head, re.findall(r' title="[^"]*"', head)


def _name_lines(p: Any, key: str) -> tuple[float, float, float]:
    """The name's box height, its content's height and its line height."""
    return tuple(  # type: ignore[return-value]
        p.evaluate(
            """key => {
              const t = document.querySelector(`tr.entry[data-key="${key}"] .title-line`);
              const line = parseFloat(getComputedStyle(t).lineHeight);
              return [t.clientHeight, t.scrollHeight, line]; }""",
            key,
        )
    )


def test_a_long_name_is_whole_on_a_phone_and_where_the_keyboard_is(
    browser: Any, sites: dict[str, Path]
) -> None:
    key = "e0007/fp-e0007"
    context, w = _open(browser, sites["board"].as_uri(), 390, 844, is_mobile=True, has_touch=True)
    try:
        box, content, line = _name_lines(w.page, key)
        assert box >= content and content > 2.5 * line, (box, content, line)  # all its lines
    finally:
        context.close()
    context, w = _open(browser, sites["board"].as_uri())
    try:
        p = w.page
        box, content, line = _name_lines(p, key)
        assert box < 2.5 * line  # two lines while nobody is on the row
        p.focus(f'tr.entry[data-key="{key}"] a.entrant-name')
        box, content, line = _name_lines(p, key)
        assert box >= content and content > 2.5 * line, (box, content, line)
    finally:
        context.close()
