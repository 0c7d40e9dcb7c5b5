"""A board at the size people publish, read in headless Chromium: page size, first paint,
interactive, every sort, every filter, a card, memory; each figure also as a ratio against a
baseline board of 7 rows measured in the same run. Prints figures; never a pass/fail test.

    .venv/bin/python benchmarks/bench_board_browser.py [--sizes 100 200] [--cohorts 3]
        [--tasks 300] [--bfcl] [--loads 3] [--templates DIR] [--keep DIR] [--no-browser]

The rows are ``bench_board.synthetic``'s (graded skill on graded difficulty, a failing
sentence and a transcript link for every task not passed on every repeat), given what a
published board has: several cohorts, long display names and version labels, rows with
errors, partial (unranked) runs, unverified rows and reference rows. ``--bfcl`` adds a board of
100 rows on 3,628 tasks (BFCL's size; two repeats, as the synthetic flakiness needs: about
half the tasks failed per row; the failed-task lists are what make the page big).
``--templates`` measures another copy of the templates (an older checkout's, with its ``src``
on PYTHONPATH); ``--keep`` writes the pages; ``--no-browser`` only builds and sizes them.

Timings are the page's own clock (``performance.now()``), from the event until the next frame
has been painted after a forced layout, median of ``--loads`` fresh browser contexts:
interactive as ``bench_board.browser_timings`` defines it; sort: one click on each column
header of the first cohort; filters: a family, a cohort, the verified box, a search typed
("entrant 1"), each then undone; card: a click on the sixth row until its card is laid out.
Memory: the JS heap and DOM node count (CDP ``Performance.getMetrics``) after load.
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_board import BROWSER_ARGS, FRAME, FRAME_AFTER_LOAD, REPO_URL, synthetic  # noqa: E402

from bench.board import EntryInput, build_rows  # noqa: E402
from bench.board.build import BuildOptions, render_board  # noqa: E402
from bench.board.model import Board  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
LONG = ("an Unusually Long Display Name of a Research Lab's Agent Stack with Retrieval, "
        "Planning and a Verifier")  # fmt: skip
LABEL = "temperature-0.7-max-tokens-4096-tools-v2-retrieval-k8"


def varied(n: int, tasks: int, repeats: int, cohorts: int, seed: int = 0) -> list[EntryInput]:
    """``n`` synthetic entries as a published board has them (see the module docstring)."""
    out = []
    for i, e in enumerate(synthetic(n, tasks, repeats, seed=seed)):
        changes: dict[str, Any] = {
            "cohort_key": f"cohort-{i % cohorts}",
            "verified": i % 4 != 1,
            "verified_note": "bundle verified" if i % 4 != 1 else "local run, not verified",
        }
        if i % 9 == 3:
            changes["display_name"] = f"Entrant {i}: {LONG}"
        if i % 6 == 2:
            changes["errored"] = e.counted // 20
        if i % 17 == 5:
            changes["status"] = "partial"
        if i % 29 == 7:
            changes["reference"] = "do-nothing"
        out.append(replace(e, **changes))
    return out


def board_of(entries: list[EntryInput], resamples: int) -> Board:
    board = build_rows(entries, inputs_hash="bench", seed=1, B=resamples,
                       frontier_B=min(resamples, 1000))  # fmt: skip
    cohorts = []
    for c in board.cohorts:  # a version label on every fifth row, as the registry gives it
        rows = [r.model_copy(update={"config_label": LABEL}) if k % 5 == 0 else r
                for k, r in enumerate(c.entries)]  # fmt: skip
        cohorts.append(c.model_copy(update={"entries": rows}))
    return board.model_copy(update={"cohorts": cohorts})


# One click on each sort button of the first cohort, each timed to the painted frame.
SORTS = """async () => {
  const out = {};
  const buttons = document.querySelectorAll("#cohort-0 th button[data-sort]");
  for (const b of buttons) {
    const t0 = performance.now();
    b.click(); void document.body.offsetHeight;
    FRAME
    out[b.getAttribute("data-sort")] = performance.now() - t0;
  }
  return out;
}""".replace("FRAME", FRAME)
# A control set and undone: [set, undo] in ms, each to the painted frame.
CONTROL = """async ([id, value]) => {
  const c = document.getElementById(id);
  const kind = c.type === "checkbox" ? "change" : c.tagName === "SELECT" ? "change" : "input";
  const old = c.type === "checkbox" ? c.checked : c.value;
  if (value === null) {
    value = c.tagName === "SELECT" ? c.options[Math.min(2, c.options.length - 1)].value : value;
  }
  const times = [];
  for (const v of [value, old]) {
    const t0 = performance.now();
    if (c.type === "checkbox") c.checked = v; else c.value = v;
    c.dispatchEvent(new Event(kind, { bubbles: true })); void document.body.offsetHeight;
    FRAME
    times.push(performance.now() - t0);
  }
  return times;
}""".replace("FRAME", FRAME)
CARD = """async () => {
  const rows = document.querySelectorAll("#cohort-0 tr.entry");
  const row = rows[Math.min(5, rows.length - 1)];
  const card = document.getElementById("card");
  const t0 = performance.now();
  row.querySelector("td.num").click();
  void document.getElementById("card-body").offsetHeight;
  FRAME
  const t = performance.now() - t0;
  const failed = card.querySelectorAll("ul.failed li").length;
  document.getElementById("card-close").click();
  return [t, failed];
}""".replace("FRAME", FRAME)


def measure(page_bytes: bytes, loads: int) -> dict[str, float]:
    """The medians of ``loads`` fresh loads (ms; heap in MB; nodes)."""
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("no chromium on PATH (apt-get install chromium)")
    figures: dict[str, list[float]] = {}

    def add(name: str, value: float) -> None:
        figures.setdefault(name, []).append(value)

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        index = Path(tmp) / "index.html"
        index.write_bytes(page_bytes)
        browser = p.chromium.launch(executable_path=chromium, args=BROWSER_ARGS)
        for _ in range(loads):
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            context.add_init_script(FRAME_AFTER_LOAD)
            page = context.new_page()
            page.goto(index.as_uri(), timeout=180_000, wait_until="load")
            page.wait_for_function("() => window.__benchInteractive !== undefined",
                                   timeout=180_000)  # fmt: skip
            page.wait_for_function(
                "() => performance.getEntriesByName('first-contentful-paint').length > 0"
            )
            fcp = page.evaluate(
                "() => performance.getEntriesByName('first-contentful-paint')[0].startTime"
            )
            add("first paint", fcp)
            add("interactive", max(fcp, page.evaluate("() => window.__benchInteractive")))
            cdp = context.new_cdp_session(page)
            cdp.send("Performance.enable")
            metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
            add("heap MB", metrics["JSHeapUsedSize"] / 1e6)
            add("DOM nodes", metrics["Nodes"])
            for key, ms in page.evaluate(SORTS).items():
                add(f"sort {key}", ms)
            for name, control, value in (
                ("family", "filter-family", None), ("cohort", "filter-cohort", None),
                ("verified", "filter-verified", True), ("search", "filter-text", "entrant 1"),
            ):  # fmt: skip
                on, off = page.evaluate(CONTROL, [control, value])
                add(f"filter {name}", on)
                add(f"filter {name} undone", off)
            ms, failed = page.evaluate(CARD)
            add("card", ms)
            add("card failed tasks", failed)
            context.close()
        browser.close()
    return {k: statistics.median(v) for k, v in figures.items()}


def render(board: Board, templates: Path) -> tuple[bytes, float]:
    with tempfile.TemporaryDirectory() as tmp:
        options = BuildOptions(out=Path(tmp) / "site", templates=templates,
                               methodology=REPO / "docs" / "METHODOLOGY.md",
                               repo_url=REPO_URL)  # fmt: skip
        t0 = time.perf_counter()
        page = render_board(board, options)
        return page, time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="*", default=[100, 200])
    parser.add_argument("--cohorts", type=int, default=3)
    parser.add_argument("--tasks", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--bfcl", action="store_true", help="add 100 rows x 3,628 tasks")
    parser.add_argument("--loads", type=int, default=3)
    parser.add_argument("--templates", type=Path, default=REPO / "site_templates")
    parser.add_argument("--keep", type=Path, help="write each page here as index-<E>-<T>.html")
    parser.add_argument("--no-browser", action="store_true", help="sizes only (with --keep)")
    args = parser.parse_args()
    boards = [("7 rows (baseline)", 7, args.tasks, args.repeats, 1)]
    boards += [(f"{n} rows, {args.cohorts} cohorts", n, args.tasks, args.repeats, args.cohorts)
               for n in args.sizes]  # fmt: skip
    if args.bfcl:
        boards.append(("100 rows x 3,628 tasks x 2 repeats (BFCL)", 100, 3628, 2, 1))
    print(f"templates {args.templates}; B = {args.resamples}; median of {args.loads} loads "
          "(file://, 1400 x 1000, fresh context each)")  # fmt: skip
    base: dict[str, float] | None = None
    for name, n, tasks, repeats, cohorts in boards:
        board = board_of(varied(n, tasks, repeats, cohorts), args.resamples)
        page, t_render = render(board, args.templates)
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            (args.keep / f"index-{n}-{tasks}.html").write_bytes(page)
        m = {} if args.no_browser else measure(page, args.loads)
        m["page MB"] = len(page) / 1e6
        m["gzip MB"] = len(gzip.compress(page, 6)) / 1e6
        m["render s"] = t_render
        if base is None:
            base = m
        failed = sum(len(e.failed) for c in board.cohorts for e in c.entries)
        print(f"\n{name}: {failed:,} failed tasks in all")
        for key in sorted(m):
            ratio = m[key] / base[key] if base.get(key) else float("nan")
            unit = "" if key.endswith(("MB", " s", "nodes", "tasks")) else " ms"
            print(f"  {key:36s} {m[key]:10.2f}{unit}   x{ratio:6.2f} vs 7 rows")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
