"""Safety violations are recorded on the attempt whatever the family, and shown first."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.reports import render_show, summarize
from bench.runner import RunRequest, start_run


def _run(mini: Path, agent: str = "good", repeats: int = 1) -> object:
    run, _ = start_run(
        RunRequest(
            tasks=mini / "tasks",
            target_file=mini / "targets" / f"{agent}.yaml",
            runs_dir=mini / "runs",
            split="public",
            repeats=repeats,
        )
    )
    return run


def test_a_forbidden_write_tool_that_ran_is_a_safety_violation(mini: Path) -> None:
    path = mini / "tasks" / "mini.yaml"
    path.write_text(
        path.read_text().replace(
            "        required: [get_order, issue_refund]\n        order: [get_order, issue_refund]",
            "        required: [get_order]\n        forbidden: [issue_refund]",
        )
    )
    summary = summarize(_run(mini))  # type: ignore[arg-type]
    [record] = [r for r in summary.records if r.task_id == "tool-0001"]
    assert record.safety_violations == ["ran forbidden write tool issue_refund(order_id='1041')"]
    assert summary.safety == (
        ("tool-0001", 0, "ran forbidden write tool issue_refund(order_id='1041')"),
    )
    text = render_show(summary)
    assert text.index("SAFETY VIOLATIONS (1):") < text.index("  score ")
    [task] = [s for s in summary.task_scores if s.task_id == "tool-0001"]
    assert task.safety_violations == 1


def test_a_failed_check_marked_safety_is_a_violation(mini: Path) -> None:
    path = mini / "tasks" / "mini.yaml"
    path.write_text(
        path.read_text().replace(
            "      - type: contains\n        value: refunded",
            "      - type: not_contains\n        value: refunded\n        safety: true",
        )
    )
    summary = summarize(_run(mini))  # type: ignore[arg-type]
    [(task_id, _, text)] = summary.safety
    assert task_id == "tool-0001"
    assert text.startswith("not_contains: the answer contains 'refunded', which the task forbids")


def test_a_clean_run_has_none_and_repeats_give_pass_at_k_and_the_axis_view(mini: Path) -> None:
    summary = summarize(_run(mini, repeats=2))  # type: ignore[arg-type]
    assert summary.safety == ()
    assert "SAFETY" not in render_show(summary)
    first = summary.task_scores[0]
    assert first.pass_at_k == {"1": 1.0, "2": 1.0}
    assert first.pass_hat_k == {"1": 1.0, "2": 1.0}
    assert first.flakiness == 0.0
    assert summary.axes.counts == {"tool": 1, "answer": 3}
    assert summary.axes.score == 1.0


def test_errored_attempts_score_zero_on_their_axes(mini: Path) -> None:
    summary = summarize(_run(mini, agent="crashes_on_refunds"))  # type: ignore[arg-type]
    assert summary.axes.axes == {"tool": 0.0, "answer": 2 / 3}


def test_partial_credit_best_and_worst_of_k() -> None:
    from datetime import UTC, datetime

    from bench.core.trace import Trace
    from bench.records import AttemptRecord
    from bench.reports import fold_task

    when = datetime(2026, 12, 2, tzinfo=UTC)
    records = [
        AttemptRecord(
            run_id="r",
            config_fingerprint="f",
            task_id="t",
            task_fingerprint="x",
            family="grounded-qa",
            split="public",
            repeat=i,
            outcome="scored",
            value=v,
            passed=v == 1.0,
            started_at=when,
            finished_at=when,
            trace=Trace(),
        )
        for i, v in enumerate([0.2, 0.9, 0.5, 0.5, 1.0])
    ]
    score = fold_task("t", "grounded-qa", records)
    assert round(score.best_of_k["3"], 4) == 0.92  # docs/SCORING.md, pass@k
    assert round(score.worst_of_k["3"], 4) == 0.32
    assert score.pass_at_k["1"] == 0.2 and score.pass_hat_k["5"] == 0.0
    assert score.value == pytest.approx(0.62)


def test_many_safety_violations_do_not_push_the_score_off_screen(mini: Path) -> None:
    """116 violations (every task of a run against the mock server) printed in full before
    the score scrolled it away; the first ten are listed, then how many more and where."""
    import dataclasses

    from bench.reports.terminal import SAFETY_SHOWN, render_summary

    summary = summarize(_run(mini))  # type: ignore[arg-type]
    many = tuple((f"task-{i:03d}", 0, "ran forbidden write tool x()") for i in range(25))
    lines = render_summary(dataclasses.replace(summary, safety=many))
    start = lines.index("  SAFETY VIOLATIONS (25):")
    listed = [line for line in lines if line.startswith("    task-")]
    assert len(listed) == SAFETY_SHOWN == 10
    assert lines[start + SAFETY_SHOWN + 1].startswith("    … and 15 more: every one is in")
    assert start + SAFETY_SHOWN + 1 < next(i for i, line in enumerate(lines) if "score " in line)
