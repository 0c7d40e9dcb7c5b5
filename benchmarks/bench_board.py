"""Board build at scale: synthetic results -> rows (statistics) -> page, against a per-pair
``scipy.stats.bootstrap`` baseline. Prints figures; never a pass/fail test.

    .venv/bin/python benchmarks/bench_board.py [--entrants 10 100 1000] [--tasks 300]
        [--repeats 5] [--resamples 10000] [--frontier-resamples 1000] [--pairs 5]
"""

from __future__ import annotations

import argparse
import gzip
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.board import EntryInput, build_rows
from bench.board.build import BuildOptions, render_board

REPO = Path(__file__).resolve().parent.parent
FAMILIES = ("grounded-qa", "multi-turn-state", "refusal-and-safety", "structured-extraction",
            "tool-trajectory")  # fmt: skip


def synthetic(entrants: int, tasks: int, repeats: int, seed: int = 0) -> list[EntryInput]:
    """Entrants of graded skill on tasks of graded difficulty; binary repeats."""
    rng = np.random.default_rng(seed)
    ids = [f"task-{t:04d}" for t in range(tasks)]
    families = {t: FAMILIES[i % len(FAMILIES)] for i, t in enumerate(ids)}
    difficulty = rng.normal(0, 1.5, tasks)
    out = []
    for e in range(entrants):
        skill = rng.normal(0, 1)
        p = 1 / (1 + np.exp(-(skill - difficulty)))
        passes = rng.random((tasks, repeats)) < p[:, None]
        values = passes.mean(axis=1)
        pairs = list(zip(ids, values, strict=True))
        out.append(
            EntryInput(
                entrant=f"entrant-{e:04d}", display_name=f"Entrant {e}",
                run_id=f"20260101T000000Z-{e:06x}", created_at="2026-01-01T00:00:00+00:00",
                cohort_key="c", fingerprint=f"{e:016x}", config={"model": f"m{e}"},
                task_set_hash="a" * 64, split="public", repeats=repeats, harness="0.1.0",
                status="complete",
                values={t: float(v) for t, v in zip(ids, values, strict=True)},
                families=families,
                pass_hat={t: float(v == 1.0) for t, v in zip(ids, values, strict=True)},
                flaky={t: float(2 * v * (1 - v) * repeats / (repeats - 1)) for t, v in pairs},
                costs={t: float(rng.uniform(0.001, 0.01)) for t in ids},
                latencies=tuple((t, float(x)) for t in ids for x in rng.exponential(2.0, repeats)),
                counted=tasks * repeats,
            )
        )  # fmt: skip
    return [with_headline(e) for e in out]


def with_headline(e: EntryInput) -> EntryInput:
    """The run's own headline, which a loaded run carries from its summary (``bench.reports.
    summarize`` computes it when the run is read, not the board): computed here, untimed, so
    the statistics figure stays the board's own work."""
    from dataclasses import replace

    from bench.board.entries import run_headline

    return replace(e, headline=run_headline(e))


def scipy_pair_seconds(entries: list[EntryInput], pairs: int, resamples: int) -> float:
    from scipy import stats

    ids = sorted(entries[0].values)
    rng = np.random.default_rng(1)
    start = time.perf_counter()
    for _ in range(pairs):
        i, j = rng.choice(len(entries), 2, replace=False)
        d = np.array([entries[i].values[t] - entries[j].values[t] for t in ids])
        stats.bootstrap((d,), np.mean, n_resamples=resamples, method="percentile", random_state=1)
    return (time.perf_counter() - start) / pairs


BROWSER_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def browser_timings(page_bytes: bytes) -> str:
    """First contentful paint, time to interactive (the charts drawn and the table's handlers
    attached) and the mean of two sorts by headline, in headless Chromium
    opening the page from disk; median of 3 fresh page loads."""
    import shutil
    import statistics

    chromium = shutil.which("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return "browser: playwright not installed"
    if chromium is None:
        return "browser: no chromium on PATH (apt-get install chromium)"
    paint, ready, sort = [], [], []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        index = Path(tmp) / "index.html"
        index.write_bytes(page_bytes)
        browser = p.chromium.launch(executable_path=chromium, args=BROWSER_ARGS)
        for _ in range(3):
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = context.new_page()
            page.goto(index.as_uri(), timeout=180_000, wait_until="commit")
            page.wait_for_selector("div.chart .main-svg", timeout=180_000)
            page.wait_for_function("document.querySelector('tr.entry') !== null")
            ready.append(page.evaluate("performance.now()"))
            paint.append(page.evaluate(
                "performance.getEntriesByName('first-contentful-paint')[0].startTime"
            ))  # fmt: skip
            sort.append(page.evaluate(
                """() => { const b = document.querySelector('button[data-sort="headline"]');
                   const t0 = performance.now(); b.click(); b.click();
                   return (performance.now() - t0) / 2; }"""
            ))  # fmt: skip
            context.close()
        browser.close()
    return (
        f"browser (median of 3 loads from file://): first contentful paint "
        f"{statistics.median(paint) / 1e3:.2f} s, interactive (charts drawn, handlers live) "
        f"{statistics.median(ready) / 1e3:.2f} s, one sort of the table "
        f"{statistics.median(sort):.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entrants", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--tasks", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--frontier-resamples", type=int, default=1000)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--no-browser", action="store_true", help="skip the Chromium timings")
    args = parser.parse_args()
    print(f"tasks {args.tasks} x repeats {args.repeats}, B = {args.resamples}, "
          f"frontier B = {args.frontier_resamples}")  # fmt: skip
    for n in args.entrants:
        entries = synthetic(n, args.tasks, args.repeats)
        t0 = time.perf_counter()
        board = build_rows(entries, inputs_hash="bench", seed=1, B=args.resamples,
                           frontier_B=args.frontier_resamples)  # fmt: skip
        t_rows = time.perf_counter() - t0
        with tempfile.TemporaryDirectory() as tmp:
            options = BuildOptions(out=Path(tmp) / "site", templates=REPO / "site_templates",
                                   methodology=REPO / "docs" / "METHODOLOGY.md")  # fmt: skip
            t0 = time.perf_counter()
            page = render_board(board, options)
            t_page = time.perf_counter() - t0
        per_pair = scipy_pair_seconds(entries, args.pairs, args.resamples)
        pairs = n * (n - 1) // 2
        print(
            f"E={n:5d}: statistics {t_rows:7.2f} s | page {t_page:6.2f} s, "
            f"{len(page) / 1e6:6.2f} MB raw, {len(gzip.compress(page, 6)) / 1e6:5.2f} MB gzip | "
            f"scipy.stats.bootstrap {per_pair * 1e3:6.1f} ms/pair x {pairs} pairs = "
            f"{per_pair * pairs:9.1f} s (extrapolated), ratio {per_pair * pairs / t_rows:8.1f}x"
        )
        if not args.no_browser and n == max(args.entrants):
            print(f"       {browser_timings(page)}")


if __name__ == "__main__":
    main()
