"""One number per run (issue 15, point 5): every surface prints the same headline interval for
the same run, drawn with the run's own recorded seed, and orders entries by one rule."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

from bench.reports.order import order_key, shown

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
Invoke = Callable[..., tuple[int, str, str]]

SCORE = re.compile(r"score (\d\.\d{3}) \[(\d\.\d{3}), (\d\.\d{3})\]")


def _printed(text: str) -> tuple[str, str, str]:
    found = SCORE.search(text)
    assert found is not None, text
    return found.group(1), found.group(2), found.group(3)


def test_every_surface_prints_the_runs_own_interval(tmp_path: Path, invoke: Invoke) -> None:
    runs = tmp_path / "runs"
    code, out, err = invoke(
        "run", "--tasks", EXAMPLES / "tasks", "--split", "public", "--seed", "7",
        "--target", EXAMPLES / "targets" / "support-bot-v2.yaml", "--runs-dir", runs,
    )  # fmt: skip
    assert code == 0, err
    printed = _printed(out)  # bench run's own summary
    run_id = next(p.name for p in runs.iterdir() if (p / "config.json").is_file())

    code, out, _ = invoke("show", run_id, "--runs-dir", runs)
    assert code == 0 and _printed(out) == printed
    code, out, _ = invoke("show", run_id, "--runs-dir", runs, "--format", "json")
    interval = json.loads(out)["score"]["interval"]
    exact = (json.loads(out)["score"]["value"], interval["lo"], interval["hi"])
    assert "seed=7" in interval["method"]  # the run's recorded seed, not the default
    assert tuple(shown(x) for x in exact) == printed
    assert exact[1] != exact[2]  # a real interval, not a degenerate point

    code, out, _ = invoke("report", run_id, "--runs-dir", runs, "--format", "json")
    head = json.loads(out)["headline"]
    assert (head["value"], head["interval"]["lo"], head["interval"]["hi"]) == exact

    code, out, _ = invoke("leaderboard", "--runs-dir", runs, "--format", "json")
    (entry,) = json.loads(out)[0]["entries"]
    assert (entry["run"]["headline"], entry["run"]["headline_lo"], entry["run"]["headline_hi"]) == (
        exact
    )
    code, out, _ = invoke("leaderboard", "--runs-dir", runs)
    assert f"{printed[0]} [{printed[1]}, {printed[2]}]" in out

    code, out, _ = invoke("compare", run_id, run_id, "--runs-dir", runs, "--format", "json")
    first = json.loads(out)["first"]
    assert (first["headline"], first["lo"], first["hi"]) == exact
    code, out, _ = invoke("compare", run_id, run_id, "--runs-dir", runs)
    assert f"{printed[0]}  [{printed[1]}, {printed[2]}]" in out

    site = tmp_path / "site"
    code, out, err = invoke(
        "board", "build", "--runs", runs, "--no-verify", "--results", tmp_path / "none",
        "--out", site, "--seed", "11", "--resamples", "300",  # the board's own seed: ranks only
        "--templates", REPO / "site_templates", "--methodology", REPO / "docs" / "METHODOLOGY.md",
        "--submissions", tmp_path / "no-submissions",
    )  # fmt: skip
    assert code == 0, err
    board = json.loads((site / "board.json").read_text(encoding="utf-8"))
    (row,) = board["cohorts"][0]["entries"]
    assert (row["headline"]["value"], row["headline"]["lo"], row["headline"]["hi"]) == exact
    page = (site / "index.html").read_text(encoding="utf-8")
    ci_span = f'<span class="ci" aria-hidden="true">[{printed[1]}, {printed[2]}]</span>'
    assert f"{printed[0]} {ci_span}" in page
    assert f"interval {printed[1]} to {printed[2]}</span>" in page  # as a screen reader reads it


def test_equal_shown_headlines_sort_by_id_not_by_noise() -> None:
    # 0.1 + 0.2 and 0.3 print the same (0.300): the id decides, never the 4e-17 between them.
    a = order_key(1, 0.1 + 0.2, "zeta", "20260101T000000Z-000001")
    b = order_key(1, 0.3, "alpha", "20260101T000000Z-000002")
    assert 0.1 + 0.2 > 0.3 and sorted([a, b]) == [b, a]
    # below the shown precision: 0.5624 and 0.5621 both print 0.562
    c = order_key(1, 0.5624, "m", "r2")
    d = order_key(1, 0.5621, "m", "r1")
    assert sorted([c, d]) == [d, c]  # same entrant: the run id decides
    # the rank comes first, then the shown headline (higher first)
    assert sorted([order_key(2, 0.9, "a", "r"), order_key(1, 0.1, "z", "r")])[0][2] == 1
    assert order_key(1, 0.563, "z", "r") < order_key(1, 0.562, "a", "r")
    assert order_key(1, 0.5625, "a", "r")[3] == -Decimal(shown(0.5625))
    # groups: ranked, then reference rows, then unranked; no headline sorts last in a group
    assert order_key(9, 0.0, "z", "r") < order_key(None, 1.0, "a", "r", group=1)
    assert order_key(None, 0.0, "z", "r", group=1) < order_key(None, None, "a", "r", group=1)
