"""The board says what its numbers rest on, as ``bench show`` does (tests/reports/
test_honest_surfaces.py audited every surface): an error rate with no attempt counted is "—"
(null in board.json, sorted last), never "0.0 %"; a p95 over fewer than 20 attempts is "the
slowest of N attempt(s)", in the cell, the card and under the latency chart; a headline whose
every family is constant says its interval is a single point; a cohort of one repeat says why
pass^k and flakiness are "—"; a family of fewer than 10 tasks says so where its scores are.

The boards: real runs of the mini task set (``unscored_runs.judged_only_tasks``: a run of its
one judged-only public task counts no attempt; a run of the public split has 3 attempts) and
synthetic runs (``board_synth``): families constant at 1 and 0 (headline 0.500, a point), and
a varied run beside it, 12 tasks x 2 repeats (24 attempts: a true p95)."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import board_synth
import pytest
from board_synth import SynthRun, write_run, write_runs
from test_board_browser import ARGS, Watched, _chromium
from unscored_runs import PUBLIC_UNSCORED, judged_only_tasks

from bench.reports.terminal import P95_FEW

POINT = "every family is constant: the interval is a single point"
TASKS = [f"n{i:02d}" for i in range(12)]
FAMILIES = {t: ("alpha" if i < 6 else "beta") for i, t in enumerate(TASKS)}


def synthetic() -> list[SynthRun]:
    constant = {t: [1.0, 1.0] if FAMILIES[t] == "alpha" else [0.0, 0.0] for t in TASKS}
    varied: dict[str, list[float | None]] = {
        t: [1.0, 0.0] if i % 3 else [1.0, 1.0] for i, t in enumerate(TASKS)
    }
    varied[TASKS[0]] = [None, 1.0]  # one errored attempt of 24: an error rate above 0
    return [
        SynthRun("constant", "Constant Families", constant, FAMILIES, task_set="c" * 64),
        SynthRun("varied", "Varied", varied, FAMILIES, task_set="c" * 64, latency=2.0),
    ]


def write_note_runs(root: Path) -> Path:
    from bench.runner import RunRequest, start_run

    mini = judged_only_tasks(root)
    runs = root / "runs"
    good = mini / "targets" / "good.yaml"
    for task_ids in ((PUBLIC_UNSCORED,), None):
        _, status = start_run(
            RunRequest(tasks=mini / "tasks", target_file=good, split="public", runs_dir=runs,
                       task_ids=task_ids)
        )  # fmt: skip
        assert status.status == "complete"
    write_runs(runs, synthetic())
    # beside them, a run of the same cohort whose every attempt could not be scored
    nothing = SynthRun("nothing-counted", "Nothing Counted", {t: [None, None] for t in TASKS},
                       FAMILIES, task_set="c" * 64)  # fmt: skip
    real = board_synth._attempt

    def not_scorable(*args: Any) -> Any:
        return real(*args).model_copy(
            update={
                "outcome": "not_scorable",
                "reason": "not scorable: no expectation could "
                "decide: no judge configured for this run",
            }  # fmt: skip
        )

    board_synth._attempt = not_scorable
    try:
        write_run(runs, nothing, 9)
    finally:
        board_synth._attempt = real
    return runs


@pytest.fixture(scope="module")
def notes_site(tmp_path_factory: pytest.TempPathFactory, make_options: Any) -> Path:
    from bench.board import build

    root = tmp_path_factory.mktemp("notes")
    write_note_runs(root)
    build(make_options(root, root / "site", submissions=None))
    return root / "site"


def _board(site: Path) -> dict[str, Any]:
    board: dict[str, Any] = json.loads((site / "board.json").read_text(encoding="utf-8"))
    return board


def _entry(site: Path, entrant: str, *, subset: bool | None = None) -> dict[str, Any]:
    found = [
        e
        for c in _board(site)["cohorts"]
        for e in c["entries"]
        if e["entrant"] == entrant and (subset is None or bool(e["subset"]) == subset)
    ]
    assert len(found) == 1, found
    return found[0]


def _row_html(site: Path, key: str) -> str:
    page = (site / "index.html").read_text(encoding="utf-8")
    start = page.index(f'data-key="{html.escape(key)}"')
    return page[start : page.index("</tr>", start)]


def _cells(row: str) -> list[str]:
    return re.findall(r"<td[^>]*>.*?</td>", row, re.S)


def _text(fragment: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", fragment))).strip()


# ---- board.json and the table as built -----------------------------------------------------


def test_no_attempt_counted_is_no_error_rate(notes_site: Path) -> None:
    """A run whose every attempt could not be scored counts none: its error rate is null and
    the cell says "—" (a "0.0 %" would claim it never errored), sorting last."""
    entry = _entry(notes_site, "mini-good", subset=True)
    assert entry["attempts"] == 0 and entry["error_rate"] is None
    row = _row_html(notes_site, entry["key"])
    assert 'data-errors=""' in row
    cell = _cells(row)[-4]
    assert "%" not in _text(cell) and _text(cell).startswith("—")
    assert "no attempt counted" in cell


def test_a_counted_error_rate_is_unchanged(notes_site: Path) -> None:
    entry = _entry(notes_site, "varied")
    assert entry["attempts"] == 24 and entry["error_rate"] == 1 / 24
    assert "4.2 %" in _text(_cells(_row_html(notes_site, entry["key"]))[-4])
    assert "0.0 %" in _text(
        _cells(_row_html(notes_site, _entry(notes_site, "constant")["key"]))[-4]
    )


def test_p95_over_few_attempts_says_it_is_the_slowest(notes_site: Path) -> None:
    entry = _entry(notes_site, "mini-good", subset=False)
    n = entry["attempts"]
    assert 0 < n < P95_FEW
    said = f"the slowest of {n} attempt(s): fewer than {P95_FEW}"
    assert entry["p95_note"] == said
    cell = _cells(_row_html(notes_site, entry["key"]))[-2]
    assert f'title="{said}"' in cell and f'<span class="sr-only">, {said}</span>' in cell
    for many in ("varied", "constant"):  # 24 attempts: a p95, no note
        other = _entry(notes_site, many)
        assert other["p95_note"] is None
        assert "slowest" not in _cells(_row_html(notes_site, other["key"]))[-2]


def test_latency_chart_says_when_a_point_is_the_slowest_attempt(notes_site: Path) -> None:
    page = (notes_site / "index.html").read_text(encoding="utf-8")
    sections = re.findall(r'<section class="cohort".*?</section>', page, re.S)
    mini = [s for s in sections if "mini-good/" in s and 'class="badge subset"' not in s]
    synth = [s for s in sections if "varied/" in s]
    assert len(mini) == 1 and len(synth) == 1
    assert 'class="chart-note"' in mini[0]
    note = _text(re.search(r'<p class="chart-note".*?</p>', mini[0], re.S).group(0))  # type: ignore[union-attr]
    assert f"fewer than {P95_FEW} attempts" in note and "slowest" in note
    assert 'class="chart-note"' not in synth[0]
    # the point's own tooltip says it too
    assert re.search(r"s p95 \(the slowest of \d+ attempt\(s\), fewer than 20\)", mini[0])


def test_a_single_point_interval_says_so(notes_site: Path) -> None:
    entry = _entry(notes_site, "constant")
    head = entry["headline"]
    assert head["lo"] == head["value"] == head["hi"] == 0.5
    assert entry["headline_note"] == POINT
    cell = _cells(_row_html(notes_site, entry["key"]))[2]
    assert f'title="{POINT}"' in cell and "single point" in _text(cell)
    assert _entry(notes_site, "varied")["headline_note"] is None
    assert "single point" not in _row_html(notes_site, _entry(notes_site, "varied")["key"])


def test_one_repeat_says_why_pass_k_and_flakiness_are_blank(notes_site: Path) -> None:
    page = (notes_site / "index.html").read_text(encoding="utf-8")
    sections = re.findall(r'<section class="cohort".*?</section>', page, re.S)
    (one,) = [s for s in sections if "mini-good/" in s and 'class="badge subset"' not in s]
    assert "passes its one repeat" not in one  # said of a column that shows nothing
    assert one.count("needs two or more repeats") >= 2  # pass^1 and flakiness headers
    (two,) = [s for s in sections if "varied/" in s]
    assert "needs two or more repeats" not in two


def test_small_families_are_marked_in_the_header(notes_site: Path) -> None:
    page = (notes_site / "index.html").read_text(encoding="utf-8")
    (synth,) = re.findall(
        r'<section class="cohort"(?:(?!</section>).)*varied/.*?</section>', page, re.S
    )
    head = re.search(r"<thead>.*?</thead>", synth, re.S).group(0)  # type: ignore[union-attr]
    assert _text(head).count("< 10 tasks") == 2
    # said once, in the column's explanation (no title tooltip saying it again)
    assert "; family alpha has 6 tasks (&lt; 10): too few to trust its interval" in head
    assert ' title="' not in head


# ---- the page in a browser: the card, sorting, contrast ------------------------------------


@pytest.fixture(scope="module")
def notes_page(notes_site: Path) -> Iterator[Watched]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=_chromium(), args=ARGS)
        context = launched.new_context(viewport={"width": 1400, "height": 1000})
        context.set_default_timeout(10_000)
        watched = Watched(context.new_page())
        watched.page.goto((notes_site / "index.html").as_uri(), timeout=60_000)
        watched.page.wait_for_selector("html[data-board-ready]", timeout=60_000)
        yield watched
        launched.close()


def _card(page: Any, key: str) -> dict[str, str]:
    page.evaluate("k => { location.hash = '#card=' + encodeURIComponent(k); }", key)
    page.wait_for_selector("#card[open]")
    pairs: dict[str, str] = page.evaluate(
        """() => { const out = {}; const dl = document.querySelector('#card-body dl');
        dl.querySelectorAll('dt').forEach(dt => { out[dt.textContent] =
          dt.nextElementSibling.textContent; }); return out; }"""
    )
    pairs["_body"] = page.inner_text("#card-body")
    page.click("#card-close")
    return pairs


def test_the_card_says_what_each_number_rests_on(notes_site: Path, notes_page: Watched) -> None:
    page = notes_page.page
    nothing = _entry(notes_site, "mini-good", subset=True)
    none = _card(page, nothing["key"])
    assert none["error rate"].startswith("—") and "no attempt counted" in none["error rate"]
    # why the cost is not measured, as bench show says it (the card said only "not measured")
    assert nothing["cost_usd"] is None
    assert none["cost per run"] == nothing["cost_note"]
    assert none["cost per run"].startswith("not measured (its one attempt does not count")
    mini = _entry(notes_site, "mini-good", subset=False)
    few = _card(page, mini["key"])
    assert few["p95 latency"].endswith(
        f"(the slowest of {mini['attempts']} attempt(s): fewer than 20)"
    )
    assert "needs two or more repeats" in few["pass^k"]
    assert "needs two or more repeats" in few["flakiness"]
    point = _card(page, _entry(notes_site, "constant")["key"])
    assert "0.500 [0.500, 0.500]" in point["headline"] and POINT in point["headline"]
    assert "too few to trust its interval" in point["_body"]  # families of 6 tasks
    varied = _card(page, _entry(notes_site, "varied")["key"])
    assert "single point" not in varied["headline"] and "slowest" not in varied["p95 latency"]
    assert "needs two or more" not in varied["pass^k"]
    assert notes_page.errors == []


def test_no_error_rate_sorts_last(notes_site: Path, notes_page: Watched) -> None:
    """Either way the column is sorted, the row with no counted attempt comes last."""
    page = notes_page.page
    nothing = _entry(notes_site, "nothing-counted")
    section = page.locator("section.cohort:has(tr[data-key^='varied/'])")
    button = section.locator("th button[data-sort='errors']")
    for _ in ("ascending", "descending"):
        button.click()
        keys = section.locator("tbody tr.entry").evaluate_all(
            "rows => rows.map(r => r.getAttribute('data-key'))"
        )
        assert len(keys) == 3 and keys[-1] == nothing["key"], keys
    assert nothing["error_rate"] is None and nothing["attempts"] == 0
    assert section.locator(f"tr[data-key='{nothing['key']}'] td").nth(-4).inner_text()[0] == "—"
