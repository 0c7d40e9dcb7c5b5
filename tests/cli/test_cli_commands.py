"""The CLI through click's CliRunner: one clear line and an exit code for bad input."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bench.cli.main import cli


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def test_task_validate_accepts_a_good_set(mini: Path) -> None:
    code, out, _ = invoke("task", "validate", mini / "tasks")
    assert code == 0
    assert out.startswith("ok: 4 task(s) in 1 file(s); grounded-qa 3, tool-trajectory 1;")


def test_task_validate_names_file_and_field(mini: Path) -> None:
    path = mini / "tasks" / "mini.yaml"
    path.write_text(path.read_text().replace("type: trajectory", "type: trajectroy"))
    code, out, err = invoke("task", "validate", path)
    assert code == 3
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("error[TASK_INVALID]: ")
    assert "mini.yaml: tasks[2] (tool-0001).expectations[0].type: unknown expectation type" in err
    assert "Traceback" not in err


def test_malformed_yaml_is_one_line(mini: Path) -> None:
    path = mini / "tasks" / "mini.yaml"
    path.write_text("format_version: 1\ntasks: [\n")
    code, _, err = invoke("task", "validate", path)
    assert code == 3
    assert err.startswith("error[YAML_INVALID]: ") and err.count("\n") == 1


def test_run_show_and_compare(mini: Path) -> None:
    runs = mini / "runs"
    base = ["run", "--tasks", mini / "tasks", "--split", "public", "--runs-dir", runs]
    code, out, err = invoke(*base, "--target", mini / "targets" / "good.yaml")
    assert code == 0, err
    assert "score 1.000" in out
    code, out, err = invoke(*base, "--target", mini / "targets" / "crashes_on_refunds.yaml")
    assert code == 0, err
    code, out, _ = invoke("show", "latest", "--runs-dir", runs)
    assert code == 0
    assert "mini crashes_on_refunds" in out
    assert "failed tasks (1):" in out
    assert "tool-0001  tool-trajectory  score 0.000" in out
    assert "1/1 repeats: errored: ENTRANT_EXCEPTION: ValueError: cannot handle refunds" in out
    code, out, _ = invoke("show", "latest", "--runs-dir", runs, "--task", "qa-0001")
    assert "attempt qa-0001 repeat 0: scored, score 1.000" in out
    assert "assistant → search_docs(" in out
    code, out, _ = invoke("show", "latest", "--runs-dir", runs, "--format", "json")
    payload = json.loads(out)
    assert payload["outcomes"] == {"errored": 1, "scored": 2}
    assert payload["failures"][0]["task_id"] == "tool-0001"
    by_name = {
        json.loads((p / "config.json").read_text())["entrant"]: p.name
        for p in runs.iterdir()
        if (p / "config.json").is_file()
    }
    first, second = by_name["mini-good"], by_name["mini-crashes-on-refunds"]
    code, out, _ = invoke("compare", first, second, "--runs-dir", runs)
    assert code == 0
    assert "difference (second − first): -0.500" in out
    assert "tool-0001  1.000 → 0.000" in out


def test_run_builds_its_summary_once_for_the_report_and_the_history(
    mini: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 19: the printed report and the history row share one summary; each summary re-reads
    and re-checks every attempt file. ``pair_scores`` is looked up in ``bench.reports.summary``
    once per ``summarize`` call, however ``summarize`` was imported."""
    from bench.reports import summary as summary_module
    from bench.reports.history import DEFAULT_DB

    calls: list[int] = []
    original = summary_module.pair_scores

    def counted(scores: Any) -> Any:
        calls.append(len(scores))
        return original(scores)

    monkeypatch.setattr(summary_module, "pair_scores", counted)
    runs = mini / "runs"
    code, out, err = invoke(
        "run", "--tasks", mini / "tasks", "--split", "public", "--runs-dir", runs,
        "--target", mini / "targets" / "good.yaml",
    )  # fmt: skip
    assert code == 0, err
    assert "score 1.000" in out
    assert len(calls) == 1
    db = sqlite3.connect(runs / DEFAULT_DB)
    try:
        rows = db.execute("SELECT headline, tasks_scored FROM runs").fetchall()
    finally:
        db.close()
    assert rows == [(1.0, calls[0])]


def test_show_unknown_run(mini: Path) -> None:
    code, _, err = invoke("show", "nope", "--runs-dir", mini / "runs")
    assert code == 4
    assert err.startswith("error[RUN_NOT_FOUND]")


def test_run_needs_a_target_or_a_replay(mini: Path) -> None:
    code, _, err = invoke("run", "--tasks", mini / "tasks", "--runs-dir", mini / "runs")
    assert code == 2
    assert "give exactly one of --target FILE or --replay RUN" in err
    assert not (mini / "runs").exists()


def test_run_progress_json_is_only_json_lines(mini: Path) -> None:
    code, out, _ = invoke(
        "run", "--tasks", mini / "tasks", "--target", mini / "targets" / "good.yaml",
        "--runs-dir", mini / "runs", "--progress", "json",
    )  # fmt: skip
    assert code == 0
    events = [json.loads(line) for line in out.splitlines()]
    assert events[0]["event"] == "run_started" and events[-1]["event"] == "run_finished"


def test_a_bad_task_file_writes_nothing(mini: Path) -> None:
    path = mini / "tasks" / "mini.yaml"
    path.write_text(path.read_text().replace("because: A private", "bcause: A private"))
    code, out, err = invoke(
        "run", "--tasks", mini / "tasks", "--target", mini / "targets" / "good.yaml",
        "--runs-dir", mini / "runs",
    )  # fmt: skip
    assert code == 3
    assert err.startswith("error[TASK_INVALID]: ")
    assert "tasks[3] (qa-0003)" in err
    assert not (mini / "runs").exists()


def test_a_missing_corpus_file_writes_nothing(mini: Path) -> None:
    (mini / "corpora" / "faq.md").unlink()
    code, _, err = invoke(
        "run", "--tasks", mini / "tasks", "--target", mini / "targets" / "good.yaml",
        "--runs-dir", mini / "runs",
    )  # fmt: skip
    assert code == 3
    assert err.startswith("error[CORPUS_MISSING]: ")
    assert "mini.yaml: tasks[0] (qa-0001).corpus[0]: corpus document 'faq.md' not found" in err
    assert not (mini / "runs").exists()


def test_progress_bar_mode_runs(mini: Path) -> None:
    code, out, err = invoke(
        "run", "--tasks", mini / "tasks", "--target", mini / "targets" / "good.yaml",
        "--runs-dir", mini / "runs", "--progress", "bar",
    )  # fmt: skip
    assert code == 0, err
    assert "score 1.000" in out


def test_a_selection_with_no_tasks_says_which_filter_left_none(mini: Path) -> None:
    target = mini / "targets" / "good.yaml"
    code, _, err = invoke("run", "--tasks", mini / "tasks", "--target", target,
                          "--runs-dir", mini / "runs", "--language", "xx")  # fmt: skip
    assert code == 3
    assert err.startswith("error[TASKS_EMPTY]: ")
    assert "no tasks with language 'xx' (its languages: en)" in err  # was: "in split 'None'"
    assert not (mini / "runs").exists() or not any((mini / "runs").iterdir())
