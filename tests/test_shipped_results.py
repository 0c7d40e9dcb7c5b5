"""The rows this repository publishes (results/): the publish workflow's steps, run on them
here — every bundle re-verified with the repository's own keys and tasks, then the board
built with --strict — give a board with real intervals, ranks and a Pareto frontier."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BUNDLES = sorted(p.parent for p in (REPO / "results").glob("*/*/manifest.json"))


def _bench(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bench.cli", *args], cwd=cwd,
                          capture_output=True, text=True)  # fmt: skip


def test_results_hold_the_maintainer_rows() -> None:
    entrants = {bundle.parent.name for bundle in BUNDLES}
    assert {"smollm2-135m-llamacpp", "example-support-bot", "baseline-do-nothing",
            "baseline-echo", "baseline-quote-top-passage",
            "baseline-refuse-everything"} <= entrants  # fmt: skip


@pytest.mark.parametrize("bundle", BUNDLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_published_bundle_verifies(bundle: Path) -> None:
    done = _bench("verify", str(bundle.relative_to(REPO)), "--allowed-signers",
                  "submissions/allowed_signers")  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_published_board_has_intervals_ranks_and_a_frontier(tmp_path: Path) -> None:
    import json

    site = tmp_path / "site"
    done = _bench("board", "build", "--no-runs", "--results", "results", "--out", str(site),
                  "--strict", "--repo-url", "https://github.com/example/bench-suite")  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    board = json.loads((site / "board.json").read_text(encoding="utf-8"))
    [cohort] = [c for c in board["cohorts"]
                if any(e["entrant"] == "example-support-bot" for e in c["entries"])]  # fmt: skip
    ranked = [e for e in cohort["entries"] if e.get("reference") is None]
    assert len(ranked) >= 2 and all(e["rank"] is not None and e["verified"] for e in ranked)
    for entry in cohort["entries"]:
        head = entry["headline"]
        assert head["lo"] <= head["value"] <= head["hi"] and head["lo"] < head["hi"]
    assert any(e["on_frontier"] for e in ranked)
    [smol] = [e for e in ranked if e["entrant"] == "smollm2-135m-llamacpp"]
    assert smol["cost_usd"] is None and smol["cost_note"].startswith("not measured")
    # a measured cost names the prices it was computed at: the submitter's own declaration
    bots = [e for e in ranked if e["entrant"] == "example-support-bot"]
    assert bots and all(
        e["cost_note"].endswith(
            "at the prices its target declares: $0.15 prompt, $0.6 completion per million tokens"
        )
        for e in bots
    )
    baselines = [e for e in cohort["entries"] if e["entrant"].startswith("baseline-")]
    assert len(baselines) == 4 and all(e["reference"] and e["rank"] is None for e in baselines)
