"""``bench suite scores`` tells a category's whole story: errors on their own, unscored named.

A real ``bench run`` of a small task set that is a BFCL import in all a run records (its
``suite.json`` says ``bfcl-v4``; its ids are BFCL's: the category comes from the id), built
from the mini fixture so it needs neither bfcl-eval nor a network: ``multiple-0`` is the
refund task the entrant crashes on (errored, twice: two repeats), ``parallel-1`` has only a
judge check and no judge is configured (not scorable), ``parallel-0`` passes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from bench.cli.main import cli
from bench.core.score import TaskScore

MINI = Path(__file__).resolve().parents[1] / "fixtures" / "mini"
SUITE = {
    "format_version": 1,
    "name": "bfcl-v4",
    "version": "2026.3.23",
    "title": "BFCL-shaped tasks for a test",
    "source": "tests/fixtures/mini, renamed",
    "licence": "MIT",
    "methodology": "One family; the category is in the task id.",
}
RENAMED = {"qa-0001": "parallel-0", "qa-0002": "parallel-1", "tool-0001": "multiple-0"}


def _bench(*args: str | Path) -> str:
    done = CliRunner().invoke(cli, [str(a) for a in args])
    assert done.exit_code == 0, done.output
    return done.stdout


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bfcl-shaped")
    shutil.copytree(MINI, root / "mini", ignore=shutil.ignore_patterns("__pycache__"))
    mini = root / "mini"
    data = yaml.safe_load((mini / "tasks" / "mini.yaml").read_text(encoding="utf-8"))
    tasks = []
    for task in data["tasks"]:
        if task["id"] not in RENAMED:
            continue  # qa-0003 is private
        task["id"] = RENAMED[task["id"]]
        if task["id"] == "parallel-1":
            task["expectations"] = [{"type": "judge", "rubric": "States the time."}]
        tasks.append(task)
    data["tasks"] = tasks
    (mini / "tasks" / "mini.yaml").write_text(yaml.safe_dump(data, sort_keys=False), "utf-8")
    (mini / "suite.json").write_text(json.dumps(SUITE), encoding="utf-8")
    out = root / "runs"
    _bench(
        "run", "--tasks", mini / "tasks", "--split", "public", "--runs-dir", out,
        "--target", mini / "targets" / "crashes_on_refunds.yaml", "--repeats", "2",
    )  # fmt: skip
    return out


def test_json_has_the_errored_count_and_names_the_unscored_task(runs: Path) -> None:
    payload = json.loads(
        _bench("suite", "scores", "latest", "--runs-dir", runs, "--format", "json")
    )
    assert payload["suite"]["name"] == "bfcl-v4" and payload["other_tasks"] == []
    rows = {row["category"]: row for row in payload["categories"]}
    assert list(rows) == ["multiple", "parallel"]  # the importer's order
    multiple, parallel = rows["multiple"], rows["parallel"]
    assert (multiple["tasks"], multiple["scored"], multiple["passed"]) == (1, 1, 0)
    assert (multiple["errored"], multiple["errored_tasks"]) == (2, 1)  # both repeats errored
    assert multiple["score"]["value"] == 0.0  # an error is a failure in the mean
    assert multiple["not_scored"] == []
    assert (parallel["tasks"], parallel["scored"], parallel["passed"]) == (2, 1, 1)
    assert (parallel["errored"], parallel["errored_tasks"]) == (0, 0)
    assert parallel["score"]["value"] == 1.0 and parallel["score"]["n"] == 1
    [left_out] = parallel["not_scored"]
    assert left_out["task_id"] == "parallel-1" and "judge" in left_out["reason"]
    assert (payload["status"], payload["skipped"]) == ("complete", 0)
    # the same figures the run's own summary gives
    show = json.loads(_bench("report", "latest", "--runs-dir", runs, "--format", "json"))
    assert sum(r["errored"] for r in rows.values()) == show["outcomes"]["errored"]
    assert [u["task_id"] for u in show["not_scorable"]] == ["parallel-1"]


def test_text_has_an_errored_column_and_names_the_unscored_task(runs: Path) -> None:
    text = _bench("suite", "scores", "latest", "--runs-dir", runs)
    lines = text.splitlines()
    assert "  category                 tasks passed errored  mean [95% interval]" in lines
    (multiple,) = [ln for ln in lines if ln.startswith("  multiple ")]
    assert multiple.split()[:4] == ["multiple", "1", "0", "2"]
    assert multiple.split()[4] == "0.000"
    (parallel,) = [ln for ln in lines if ln.startswith("  parallel ")]
    assert parallel.split()[:5] == ["parallel", "2", "1", "0", "1.000"]
    assert parallel.endswith("(1 not scorable)")
    at = lines.index("  not scorable, left out of their category's mean (1):")
    assert lines[at + 1].startswith("    parallel-1  ") and "judge" in lines[at + 1]
    assert "errored: attempts whose entrant failed, counted as failures" in text


def _score(task_id: str, value: float | None, **outcomes: int) -> TaskScore:
    repeats = sum(n for o, n in outcomes.items() if o in ("scored", "errored", "over_budget"))
    return TaskScore(
        task_id=task_id,
        family="tool-trajectory",
        value=value,
        repeats=repeats,
        passes=repeats if value == 1.0 else 0,
        outcomes=outcomes,
    )


def test_tally_counts_errors_and_names_every_task_left_out() -> None:
    from bench.suites.categories import tally

    scores = [
        _score("simple-python-0", 1.0, scored=1),
        _score("simple-python-1", 0.0, errored=1),
        _score("simple-python-2", 0.5, scored=1, errored=1),
        _score("simple-python-3", None, not_scorable=1),
        _score("irrelevance-0", None, harness_fault=2),
        _score("gqa-0001", 1.0, scored=1),
    ]
    groups, other = tally(scores, [("simple-python-3", "not scorable: no check decided")])
    assert other == ["gqa-0001"]
    python, irrelevance = groups
    assert (python.category, python.tasks, python.values, python.passed) == (
        "simple_python", 4, (1.0, 0.0, 0.5), 1,
    )  # fmt: skip
    assert (python.errored, python.errored_tasks) == (2, 2)
    assert python.not_scored == (("simple-python-3", "not scorable: no check decided"),)
    assert (irrelevance.tasks, irrelevance.values, irrelevance.errored) == (1, (), 0)
    assert irrelevance.not_scored == (("irrelevance-0", "no attempt could be scored"),)
