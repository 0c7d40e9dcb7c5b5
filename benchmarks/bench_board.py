"""Board build at scale: synthetic results -> rows (statistics) -> page, against a per-pair
``scipy.stats.bootstrap`` baseline; then the page itself in headless Chromium. Prints figures;
never a pass/fail test.

    .venv/bin/python benchmarks/bench_board.py [--entrants 10 100 1000] [--tasks 300]
        [--repeats 5] [--resamples 10000] [--frontier-resamples 1000] [--pairs 5]
        [--no-failures] [--no-browser] [--templates DIR] [--keep DIR] [--views none|pairs|all]

Each entrant's failed tasks carry a failing sentence and a transcript link, as a loaded run's
do (``--no-failures``: none, as this benchmark's first versions had). ``--templates`` measures
another copy of the templates (e.g. an older checkout's, with its ``src`` on PYTHONPATH).
``--views`` adds what ``bench board build`` computes from the runs' task values beside the rows
and carries in the page: ``pairs`` the "is A better than B?" panel (``board.pairs``), ``all``
that and the "rank by" view's ranks per family (``board.standings``), each timed apart; the
default, ``none``, is the page this benchmark has always measured.
"""

from __future__ import annotations

import argparse
import gzip
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.board import EntryInput, FailedInput, build_rows
from bench.board.build import BuildOptions, render_board

REPO = Path(__file__).resolve().parent.parent
FAMILIES = ("grounded-qa", "multi-turn-state", "refusal-and-safety", "structured-extraction",
            "tool-trajectory")  # fmt: skip


REPO_URL = "https://github.com/example/bench-results"


def _failures(e: int, ids: list[str], families: dict[str, str], passes: np.ndarray,
              sentences: dict[str, str]) -> tuple[FailedInput, ...]:  # fmt: skip
    """What a loaded run's summary gives the board for every task not passed on every repeat:
    ``k/n repeats: <the check's sentence>`` (the same sentence for every entrant failing that
    task) and the transcript link ``--repo-url`` makes."""
    repeats = passes.shape[1]
    out = []
    for i, t in enumerate(ids):
        k = int(repeats - passes[i].sum())
        if k:
            out.append(FailedInput(
                task_id=t, family=families[t], value=float(passes[i].mean()),
                lines=(f"{k}/{repeats} repeats: {sentences[t]}",), private=False,
                transcript=f"{REPO_URL}/blob/HEAD/runs/20260101T000000Z-{e:06x}/attempts/"
                f"{t}--r0.json",
            ))  # fmt: skip
    return tuple(out)


def synthetic(
    entrants: int, tasks: int, repeats: int, seed: int = 0, failures: bool = True
) -> list[EntryInput]:
    """Entrants of graded skill on tasks of graded difficulty; binary repeats."""
    rng = np.random.default_rng(seed)
    ids = [f"task-{t:04d}" for t in range(tasks)]
    families = {t: FAMILIES[i % len(FAMILIES)] for i, t in enumerate(ids)}
    difficulty = rng.normal(0, 1.5, tasks)
    sentences = {t: f"the reply to {t} did not state the expected figure from the cited "
                 f"document (check {k % 7 + 1} of 7)" for k, t in enumerate(ids)}  # fmt: skip
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
                failed=_failures(e, ids, families, passes, sentences) if failures else (),
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

# Runs before the page's own scripts (Playwright injects it past the page's CSP): the first
# painted frame after the load event, i.e. after every inline script has run.
FRAME_AFTER_LOAD = """
window.addEventListener("load", function () {
  requestAnimationFrame(function () {
    setTimeout(function () { window.__benchInteractive = performance.now(); }, 0);
  });
});
"""

# The page's own clock around the page's own handlers: from the event until the next frame
# has been painted (a requestAnimationFrame, then a task), after a forced layout.
FRAME = "await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));"
FILTER = """async (text) => {
  const box = document.getElementById("filter-text");
  const t0 = performance.now();
  box.value = text;
  box.dispatchEvent(new Event("input", { bubbles: true }));
  void document.body.offsetHeight;
  FRAME
  const t1 = performance.now();
  box.value = "";
  box.dispatchEvent(new Event("input", { bubbles: true }));
  void document.body.offsetHeight;
  FRAME
  return [t1 - t0, performance.now() - t1];
}""".replace("FRAME", FRAME)
LANGUAGE = """async () => {
  const select = document.getElementById("filter-language");
  const t0 = performance.now();
  select.value = "en";
  select.dispatchEvent(new Event("change", { bubbles: true }));
  void document.body.offsetHeight;
  FRAME
  const t = performance.now() - t0;
  select.value = "";
  select.dispatchEvent(new Event("change", { bubbles: true }));
  return t;
}""".replace("FRAME", FRAME)
CARD = """async () => {
  const row = document.querySelectorAll("tr.entry")[5];
  const target = row.querySelector("button.open-card") || row.querySelector("td.num");
  const card = document.getElementById("card");
  const t0 = performance.now();
  target.click();
  const visible = !card.hidden && card.getBoundingClientRect().height > 0;
  void document.getElementById("card-body").offsetHeight;
  FRAME
  const t = performance.now() - t0;
  document.getElementById("card-close").click();
  return visible ? t : -1;
}""".replace("FRAME", FRAME)
SORT = """async () => {
  const b = document.querySelector('button[data-sort="headline"]');
  const t0 = performance.now();
  b.click(); void document.body.offsetHeight;
  FRAME
  b.click(); void document.body.offsetHeight;
  FRAME
  return (performance.now() - t0) / 2;
}""".replace("FRAME", FRAME)


def browser_timings(page_bytes: bytes, loads: int = 3) -> str:
    """The page in headless Chromium (Debian's, through Playwright) from file://, a fresh
    browser context per load; the median of ``loads`` loads of each figure:

    * interactive: from navigation start until both the first frame after the load event has
      run (every inline script has run: the board's handlers attached, the charts in the
      document; laid out) and the first contentful paint has been presented, whichever is
      later (performance.now(); a requestAnimationFrame then a task, set up before the page's
      own scripts);
    * filter: typing "Entrant 99" into the search box (setting its value and dispatching the
      input event) until the rows are updated, laid out (a forced layout) and the next frame
      painted; then clearing it, the same way; and choosing the language "en" (every row);
    * card: a click on the sixth row until the report card is visible, laid out and painted;
    * sort: one sort of the table by headline, laid out and painted (the mean of two).
    """
    import shutil
    import statistics

    chromium = shutil.which("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return "browser: playwright not installed"
    if chromium is None:
        return "browser: no chromium on PATH (apt-get install chromium)"
    names = ("fcp", "tti", "narrow", "clear", "language", "card", "sort")
    figures: dict[str, list[float]] = {k: [] for k in names}
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
            page.wait_for_function(  # recorded a little after the frame on a fast page
                "() => performance.getEntriesByName('first-contentful-paint').length > 0"
            )
            fcp = page.evaluate(
                "() => performance.getEntriesByName('first-contentful-paint')[0].startTime"
            )
            figures["fcp"].append(fcp)
            figures["tti"].append(max(fcp, page.evaluate("() => window.__benchInteractive")))
            narrow, clear = page.evaluate(FILTER, "Entrant 99")
            figures["narrow"].append(narrow)
            figures["clear"].append(clear)
            figures["language"].append(page.evaluate(LANGUAGE))
            figures["card"].append(page.evaluate(CARD))
            figures["sort"].append(page.evaluate(SORT))
            context.close()
        browser.close()
    m = {k: statistics.median(v) for k, v in figures.items()}
    return (
        f"browser (median of {loads} loads from file://): first contentful paint "
        f"{m['fcp'] / 1e3:.2f} s | interactive {m['tti'] / 1e3:.2f} s | filter: type "
        f"{m['narrow']:.0f} ms, clear {m['clear']:.0f} ms, language {m['language']:.0f} ms | "
        f"open a card {m['card']:.0f} ms | "
        f"sort {m['sort']:.0f} ms"
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
    parser.add_argument("--no-failures", action="store_true", help="no failed-task sentences")
    parser.add_argument("--templates", type=Path, default=REPO / "site_templates")
    parser.add_argument("--keep", type=Path, help="write each page here as index-<E>.html")
    parser.add_argument(
        "--views",
        choices=("none", "pairs", "all"),
        default="none",
        help="the build-time views the page carries (see above)",
    )
    args = parser.parse_args()
    print(f"tasks {args.tasks} x repeats {args.repeats}, B = {args.resamples}, "
          f"frontier B = {args.frontier_resamples}, failed-task sentences "
          f"{'off' if args.no_failures else 'on'}, templates {args.templates}")  # fmt: skip
    for n in args.entrants:
        entries = synthetic(n, args.tasks, args.repeats, failures=not args.no_failures)
        t0 = time.perf_counter()
        board = build_rows(entries, inputs_hash="bench", seed=1, B=args.resamples,
                           frontier_B=args.frontier_resamples)  # fmt: skip
        t_rows = time.perf_counter() - t0
        pair_views, standing_views, t_pairs, t_standings = None, None, 0.0, 0.0
        if args.views != "none":
            from bench.board.pairs import board_pairs

            t0 = time.perf_counter()
            pair_views = board_pairs(board, entries)
            t_pairs = time.perf_counter() - t0
        if args.views == "all":
            from bench.board.standings import board_standings

            t0 = time.perf_counter()
            standing_views = board_standings(board, entries)
            t_standings = time.perf_counter() - t0
        with tempfile.TemporaryDirectory() as tmp:
            options = BuildOptions(out=Path(tmp) / "site", templates=args.templates,
                                   methodology=REPO / "docs" / "METHODOLOGY.md",
                                   repo_url=REPO_URL)  # fmt: skip
            t0 = time.perf_counter()
            page = render_board(board, options, pair_views, standing_views)
            t_page = time.perf_counter() - t0
        per_pair = scipy_pair_seconds(entries, args.pairs, args.resamples)
        pairs = n * (n - 1) // 2
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            (args.keep / f"index-{n}.html").write_bytes(page)
        views = ""
        if args.views != "none":
            views = f"pairs {t_pairs:6.2f} s | "
        if args.views == "all":
            views += f"ranks by family {t_standings:6.2f} s | "
        whole = t_rows + t_pairs + t_standings + t_page
        print(
            f"E={n:5d}: statistics {t_rows:7.2f} s | {views}page {t_page:6.2f} s | "
            f"whole build {whole:6.2f} s | "
            f"{len(page) / 1e6:6.2f} MB raw, {len(gzip.compress(page, 6)) / 1e6:5.2f} MB gzip | "
            f"scipy.stats.bootstrap {per_pair * 1e3:6.1f} ms/pair x {pairs} pairs = "
            f"{per_pair * pairs:9.1f} s (extrapolated), ratio {per_pair * pairs / t_rows:8.1f}x"
        )
        if not args.no_browser:
            print(f"       {browser_timings(page)}", flush=True)


if __name__ == "__main__":
    main()
