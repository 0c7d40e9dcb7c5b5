"""A run on chosen tasks says so everywhere and never shares a cohort with whole-split runs."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from bench.cli.main import cli

REPO = Path(__file__).resolve().parents[2]
LABEL = "subset: 2 of 3 public tasks"


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def test_a_subset_run_says_so_everywhere(mini: Path, tmp_path: Path) -> None:
    runs = mini / "runs"
    base = ["run", "--tasks", mini / "tasks", "--split", "public", "--runs-dir", runs,
            "--target", mini / "targets" / "good.yaml"]  # fmt: skip
    code, out, err = invoke(*base)
    assert code == 0, err
    assert "subset:" not in out
    code, out, err = invoke(*base, "--task", "qa-0001", "--task", "tool-0001")
    assert code == 0, err
    assert f"  {LABEL} (chosen with --task); compared only with runs of the same tasks" in out
    configs = {
        p.name: json.loads((p / "config.json").read_text())
        for p in runs.iterdir()
        if (p / "config.json").is_file()
    }
    (part,) = [name for name, c in configs.items() if c["task_set"]["subset"]]
    assert configs[part]["task_set"]["subset"]["by"] == ["task"]

    code, out, _ = invoke("show", part, "--runs-dir", runs)
    assert LABEL in out
    code, out, _ = invoke("show", part, "--runs-dir", runs, "--format", "json")
    assert json.loads(out)["subset"] == LABEL
    code, out, _ = invoke("report", part, "--runs-dir", runs, "--format", "json")
    assert json.loads(out)["subset"] == LABEL
    code, out, _ = invoke("report", part, "--runs-dir", runs, "--format", "markdown")
    assert f"- **{LABEL} \\(chosen with \\-\\-task\\)" in out
    code, out, _ = invoke("report", part, "--runs-dir", runs, "--format", "junit")
    assert f'<property name="subset" value="{LABEL}"' in out

    code, out, _ = invoke("leaderboard", "--runs-dir", runs, "--format", "json")
    cohorts = json.loads(out)
    assert sorted(c["subset"] or "" for c in cohorts) == ["", LABEL]  # two cohorts, never one
    assert all(len(c["entries"]) == 1 for c in cohorts)
    code, out, _ = invoke("leaderboard", "--runs-dir", runs)
    assert f"(public, {LABEL}, 1 repeat(s))" in out
    code, out, _ = invoke("history", "--runs-dir", runs)
    assert f"complete, {LABEL}" in out

    site = tmp_path / "site"
    code, _, err = invoke(
        "board", "build", "--runs", runs, "--results", tmp_path / "none", "--out", site,
        "--templates", REPO / "site_templates", "--methodology", REPO / "docs" / "METHODOLOGY.md",
        "--submissions", tmp_path / "none", "--resamples", "200",
    )  # fmt: skip
    assert code == 0, err
    board = json.loads((site / "board.json").read_text(encoding="utf-8"))
    titles = sorted(c["title"] for c in board["cohorts"])
    assert titles[0].startswith("public split (subset: 2 of 3 public tasks), ")
    assert titles[1].startswith("public split, ")
    subset_cohort = next(c for c in board["cohorts"] if c["subset"])
    assert subset_cohort["entries"][0]["subset"] == LABEL
    page = (site / "index.html").read_text(encoding="utf-8")
    assert f'<span class="badge subset">{LABEL}</span>' in page

    code, out, _ = invoke("compare", part, sorted(set(configs) - {part})[0], "--runs-dir", runs)
    assert "NOT COMPARABLE" in out and f"subset: {LABEL} → none (the whole split)" in out
