"""The judge inside a real run: asked once per distinct question, trusted only when
calibrated, and a re-score of the run costs zero judge calls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from click.testing import CliRunner

from bench.cli.main import cli
from bench.records import RunStore
from bench.reports import summarize
from bench.runner import RunRequest, start_run
from bench.runner.rescore import rescore_run
from bench.scorers.judge.calibration import (
    CalibrationItem,
    default_calibration_path,
    write_calibration,
)
from bench.scorers.judge.calibration import (
    summarize as summarize_labels,
)
from bench.scorers.judge.config import load_judge_config

RUBRIC = "The answer says whether shipping to the moon is possible."


def _judged(mini: Path) -> None:
    path = mini / "tasks" / "mini.yaml"
    text = path.read_text()
    text = text.replace(
        'type: not_contains\n        value: "yes"', f"type: judge\n        rubric: {RUBRIC}"
    )
    path.write_text(
        text.replace("grounded-qa\n    split: private", "grounded-qa\n    split: public")
    )


def _calibrate(judge_yaml: Path) -> None:
    config = load_judge_config(judge_yaml)
    items = [
        CalibrationItem(
            id=f"l{i}", label=i % 2 == 0, judge=i % 2 == 0, alternate=i % 2 == 0, reason="r"
        )
        for i in range(20)
    ]
    report = summarize_labels(config, Path("labels.jsonl"), "0" * 64, items)
    write_calibration(report, default_calibration_path(judge_yaml))


def _request(mini: Path, judge: Path) -> RunRequest:
    return RunRequest(
        tasks=mini / "tasks",
        target_file=mini / "targets" / "good.yaml",
        runs_dir=mini / "runs",
        split="public",
        repeats=2,
        concurrency=1,
        judge_file=judge,
    )


def test_a_calibrated_judge_decides_and_a_rescore_costs_nothing(
    mini: Path, judge_file: Any, server: Any
) -> None:
    _judged(mini)
    judge = judge_file()
    _calibrate(judge)
    run, status = start_run(_request(mini, judge))
    assert server.count == 1  # two repeats, one question, one answer: the second is cached
    assert status.judge_usage is not None
    assert (status.judge_usage["cache_hits"], status.judge_usage["cache_misses"]) == (1, 1)
    judged = [r for r in run.attempts() if r.task_id == "qa-0003"]
    assert [v.decided for r in judged for v in r.verdicts] == [True, True]
    assert all(r.value == 1.0 for r in judged)
    assert run.config().judge is not None and run.config().judge["trusted"] is True

    result = rescore_run(run, judge_file=judge, judge_cache=mini / "runs" / "judge-cache.sqlite3")
    assert server.count == 1  # zero new judge calls
    assert result.changed == ()
    assert result.rescored == 8
    assert result.judge_usage is not None and result.judge_usage["requests"] == 0
    assert result.judge_usage["cache_hits"] == 2

    cli_result = CliRunner().invoke(
        cli,
        ["rescore", run.run_id, "--runs-dir", str(mini / "runs"), "--judge", str(judge)],
    )
    assert cli_result.exit_code == 0, cli_result.output
    assert "re-scored 8 attempt(s), 0 changed" in cli_result.output
    assert "judge: 0 request(s), 2 cache hit(s)" in cli_result.output
    assert "0 asked again for want of a verdict, 0 without one after that" in cli_result.output
    assert server.count == 1


def test_an_uncalibrated_judge_is_asked_recorded_and_excluded(
    mini: Path, judge_file: Any, server: Any
) -> None:
    _judged(mini)
    judge = judge_file()
    run, _ = start_run(_request(mini, judge))
    summary = summarize(run)
    assert [t for t, _ in summary.not_scorable] == ["qa-0003"]
    [verdict] = [v for r in run.attempts() if r.task_id == "qa-0003" for v in r.verdicts][:1]
    assert verdict.untrusted_judge and not verdict.decided
    assert verdict.sentence.startswith("not scored: no calibration on file for this judge")
    [task] = [s for s in summary.task_scores if s.task_id == "qa-0003"]
    assert task.judge_trusted is False
    assert summary.headline is not None and summary.headline.score.n == 3


def test_a_changed_task_is_refused_by_rescore(mini: Path, judge_file: Any, server: Any) -> None:
    _judged(mini)
    judge = judge_file()
    run, _ = start_run(_request(mini, judge))
    path = mini / "tasks" / "mini.yaml"
    path.write_text(path.read_text().replace("14 days", "15 days"))
    result = CliRunner().invoke(
        cli, ["rescore", "latest", "--runs-dir", str(mini / "runs"), "--judge", str(judge)]
    )
    assert result.exit_code == 4
    assert "error[CONFIG_CHANGED]" in result.stderr
    assert RunStore(mini / "runs").resolve("latest").run_id == run.run_id


def test_a_judge_for_a_selection_with_no_judged_task_is_not_claimed(
    mini: Path, judge_file: Any, server: Any
) -> None:
    """bench verify refuses a judge claim that decided nothing (RECORD_INCONSISTENT), so a run
    of tasks without a ``judge`` expectation must not make one: ``--judge`` out of habit would
    make the run unpublishable."""
    import dataclasses

    said: list[str] = []
    request = dataclasses.replace(_request(mini, judge_file()), on_notice=said.append)
    run, status = start_run(request)
    assert status.status == "complete"
    assert run.config().judge is None and status.judge_usage is None
    assert server.count == 0
    assert any("no task of this selection has a judge expectation" in s for s in said)
