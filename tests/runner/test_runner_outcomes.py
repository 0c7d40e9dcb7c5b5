"""The run loop end to end against scripted entrants that each fail in one precise way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.core.budget import Budget
from bench.core.errors import InputError, RunStoreError
from bench.records import RunStore
from bench.reports import summarize
from bench.runner import RunRequest, start_run


def request(mini: Path, agent: str, **changes: object) -> RunRequest:
    values: dict[str, object] = {
        "tasks": mini / "tasks",
        "target_file": mini / "targets" / f"{agent}.yaml",
        "runs_dir": mini / "runs",
        "split": "public",
    }
    values.update(changes)
    return RunRequest(**values)  # type: ignore[arg-type]


def outcomes(run_dir: object) -> dict[str, str]:
    return {f"{r.task_id}#{r.repeat}": r.outcome for r in run_dir.attempts()}  # type: ignore[attr-defined]


def test_a_good_entrant_scores_every_task(mini: Path) -> None:
    run, status = start_run(request(mini, "good", repeats=2))
    assert status.status == "complete"
    assert status.attempts_done == 6
    summary = summarize(run)
    assert summary.headline is not None
    assert summary.headline.score.value == 1.0
    assert summary.outcomes == {"scored": 6}
    first = run.attempts()[0]
    assert first.task_id == "qa-0001"
    assert first.trace.tool_calls[0].name == "search_docs"
    assert first.trace.retrieved[0] == "faq.md#refunds"
    assert first.trace.answer.endswith("[faq.md#refunds]")
    # 2 model calls × (100 prompt × $1 + 20 completion × $2) per million tokens
    assert first.trace.cost_usd == pytest.approx(2 * (100 * 1.0 + 20 * 2.0) / 1e6)
    assert (run.path / "cassette.jsonl").read_text().count("\n") == sum(
        len(r.trace.exchanges) for r in run.attempts()
    )


def test_an_entrant_exception_is_an_errored_attempt_not_a_crash(mini: Path) -> None:
    run, status = start_run(request(mini, "crashes_on_refunds"))
    assert status.status == "complete"
    assert outcomes(run) == {"qa-0001#0": "scored", "qa-0002#0": "scored", "tool-0001#0": "errored"}
    errored = [r for r in run.attempts() if r.outcome == "errored"][0]
    assert errored.reason == "ENTRANT_EXCEPTION: ValueError: cannot handle refunds"
    assert errored.value == 0.0
    summary = summarize(run)
    assert summary.headline is not None
    # errored counts as 0: grounded-qa 1.0, tool-trajectory 0.0 → headline 0.5
    assert summary.headline.score.value == pytest.approx(0.5)
    assert summary.outcomes["errored"] == 1


def test_a_response_that_is_not_a_model_response_is_errored(mini: Path) -> None:
    run, _ = start_run(request(mini, "returns_junk", task_ids=("qa-0001",)))
    [record] = run.attempts()
    assert record.outcome == "errored"
    assert record.reason is not None and record.reason.startswith("ENTRANT_BAD_RESPONSE:")


def test_an_agent_that_never_answers_is_over_budget_on_turns(mini: Path) -> None:
    run, _ = start_run(request(mini, "loops", task_ids=("qa-0001",)))
    [record] = run.attempts()
    assert record.outcome == "over_budget"
    assert record.exceeded == ["turns"]
    assert record.reason == "over budget: no final answer after 8 model calls"
    assert len(record.trace.exchanges) == 8  # the trace keeps what happened


def test_a_token_budget_is_enforced_while_running(mini: Path) -> None:
    run, _ = start_run(request(mini, "good", task_ids=("qa-0001",), task_budget=Budget(tokens=150)))
    [record] = run.attempts()
    assert record.outcome == "over_budget"
    assert record.exceeded == ["tokens"]
    assert record.reason == "over budget: tokens 240 > 150"
    assert len(record.trace.exchanges) == 2


def test_a_tool_call_budget(mini: Path) -> None:
    run, _ = start_run(
        request(mini, "good", task_ids=("tool-0001",), task_budget=Budget(tool_calls=1))
    )
    [record] = run.attempts()
    assert record.outcome == "over_budget"
    assert record.reason == "over budget: tool calls 2 > 1"
    assert [c.name for c in record.trace.tool_calls] == ["get_order"]


def test_a_run_budget_skips_what_it_prevents_and_marks_the_run_partial(mini: Path) -> None:
    run, status = start_run(
        request(mini, "good", concurrency=1, repeats=2, run_budget=Budget(tokens=500))
    )
    assert status.status == "partial"
    done = run.attempts()
    assert len(done) == 3  # 240 + 240 tokens < 500, the third pushes past it
    assert [(k.task_id, k.repeat) for k in status.skipped] == [
        ("qa-0002", 1),
        ("tool-0001", 0),
        ("tool-0001", 1),
    ]
    assert status.partial_reason == "run budget: tokens 720 ≥ 500; 3 attempt(s) skipped"
    summary = summarize(run)
    assert summary.headline is not None and summary.headline.score.n == 2  # skipped left out


def test_a_run_its_budget_left_partial_is_resumed_to_completion_with_a_larger_one(
    mini: Path,
) -> None:
    """The bundle error and the docs say "resume it": the same budget skips the same attempts
    again, a larger one (or none) finishes them, and the status says which budget ran last."""
    from bench.runner import resume_run

    first = request(mini, "good", concurrency=1, repeats=2, run_budget=Budget(tokens=500))
    run, status = start_run(first)
    assert status.status == "partial" and len(status.skipped) == 3
    _, again = resume_run(run.run_id, first)
    assert again.status == "partial" and len(again.skipped) == 3  # the budget is still spent
    assert again.run_budget is None  # the same budget as config.json's
    larger = request(mini, "good", concurrency=1, repeats=2, run_budget=Budget(tokens=5000))
    _, done = resume_run(run.run_id, larger)
    assert (done.status, done.skipped, done.partial_reason) == ("complete", [], None)
    assert done.run_budget == Budget(tokens=5000) and done.sessions == 3
    assert len(run.attempts()) == 6 and run.config().run_budget == Budget(tokens=500)


def test_an_attempt_timeout_is_errored(mini: Path) -> None:
    run, _ = start_run(request(mini, "slow", task_ids=("qa-0001",), attempt_timeout_s=0.2))
    [record] = run.attempts()
    assert record.outcome == "errored"
    assert record.reason == "no final answer within 0.2s (attempt timeout)"


def test_the_timeout_option_can_raise_a_tasks_own_limit(mini: Path) -> None:
    """--timeout replaces the task's limit, up as well as down: a task that allows 0.1 s and
    an entrant that needs 0.5 s errors by itself, and is answered with --timeout 5."""
    tasks = mini / "tasks" / "mini.yaml"
    text = tasks.read_text()
    tasks.write_text(
        text.replace(
            "    because: The refund window is the fact customers ask about most.",
            "    limits: {timeout_s: 0.1}\n"
            "    because: The refund window is the fact customers ask about most.",
            1,
        )
    )
    run, _ = start_run(request(mini, "slow", task_ids=("qa-0001",)))
    [record] = run.attempts()
    assert record.outcome == "errored" and "0.1s" in (record.reason or "")
    run, _ = start_run(request(mini, "slow", task_ids=("qa-0001",), attempt_timeout_s=5))
    [record] = run.attempts()
    assert record.outcome == "scored", record.reason


def test_a_seconds_budget_is_over_budget(mini: Path) -> None:
    run, _ = start_run(
        request(mini, "slow", task_ids=("qa-0001",), task_budget=Budget(seconds=0.2))
    )
    [record] = run.attempts()
    assert record.outcome == "over_budget"
    assert record.exceeded == ["seconds"]


def test_unknown_cost_is_not_measured_never_zero(mini: Path) -> None:
    run, _ = start_run(request(mini, "no_usage"))
    summary = summarize(run)
    assert all(r.trace.cost_usd is None for r in run.attempts())
    assert summary.cost_usd is None
    assert summary.cost_note == "not measured (3 of 3 attempts report no cost)"


def test_the_report_names_the_missing_pricing_as_the_reason_cost_is_not_measured(
    mini: Path,
) -> None:
    from bench.reports.terminal import render_summary

    hint = "cost is not measured: the target file sets no `pricing:`"
    target = mini / "targets" / "good.yaml"
    unpriced = mini / "targets" / "unpriced.yaml"
    lines = [line for line in target.read_text().splitlines() if not line.startswith("pricing")]
    unpriced.write_text("\n".join(lines).replace("mini-good", "mini-unpriced") + "\n")
    run, _ = start_run(request(mini, "unpriced"))
    assert any(hint in line for line in render_summary(summarize(run)))
    # With rates but no token counts the cause is the endpoint, not the file: no such hint.
    run, _ = start_run(request(mini, "no_usage"))
    assert not any(hint in line for line in render_summary(summarize(run)))


def test_a_task_nothing_could_decide_is_not_scorable_and_named(mini: Path) -> None:
    tasks = mini / "tasks" / "mini.yaml"
    text = tasks.read_text()
    text = text.replace(
        'type: not_contains\n        value: "yes"', "type: judge\n        rubric: r"
    )
    text = text.replace("grounded-qa\n    split: private", "grounded-qa\n    split: public")
    tasks.write_text(text)
    run, _ = start_run(request(mini, "good"))
    summary = summarize(run)
    assert [t for t, _ in summary.not_scorable] == ["qa-0003"]
    assert "no judge configured for this run" in summary.not_scorable[0][1]
    assert summary.headline is not None and summary.headline.score.n == 3


def test_bad_target_files_fail_before_anything_is_written(mini: Path) -> None:
    target = mini / "targets" / "good.yaml"
    target.write_text(target.read_text().replace(":good", ":missing_one"))
    with pytest.raises(InputError) as info:
        start_run(request(mini, "good"))
    assert info.value.code == "TARGET_CALLABLE"
    assert "good.yaml: callable: no callable 'missing_one'" in str(info.value)
    assert not (mini / "runs").exists()


def test_a_target_file_with_an_unknown_field(mini: Path) -> None:
    target = mini / "targets" / "good.yaml"
    target.write_text(target.read_text() + "api_key_env: X\n")
    with pytest.raises(InputError, match="api_key_env: unknown field"):
        start_run(request(mini, "good"))


def test_a_run_id_is_never_reused(mini: Path) -> None:
    run, _ = start_run(request(mini, "good", task_ids=("qa-0001",)))
    store = RunStore(mini / "runs")
    with pytest.raises(RunStoreError) as info:
        store.create(run.config(), run.status())
    assert info.value.code == "RUN_EXISTS"


def test_json_progress_events(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    from bench.runner import JsonLinesProgress

    start_run(request(mini, "good"), JsonLinesProgress(sys.stdout))
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [e["event"] for e in events] == [
        "run_started",
        "attempt_finished",
        "attempt_finished",
        "attempt_finished",
        "run_finished",
    ]
    assert events[-1]["status"] == "complete" and events[-1]["done"] == 3


def test_malformed_tool_arguments_are_the_models_error(mini: Path) -> None:
    run, _ = start_run(request(mini, "bad_arguments", task_ids=("qa-0001",)))
    [record] = run.attempts()
    assert record.outcome == "scored"
    [call] = record.trace.tool_calls
    assert call.error == "the arguments are not a JSON object: Expecting value"
    tool_message = [m for m in record.trace.messages if m.role == "tool"][0]
    assert tool_message.content == (
        '{"error":"the arguments are not a JSON object: Expecting value"}'
    )
    assert record.value == 0.0


def test_a_run_started_inside_a_running_event_loop_still_runs(mini: Path) -> None:
    # A notebook, or a Playwright session, already runs a loop in this thread.
    import asyncio

    async def inside() -> str:
        _, status = start_run(request(mini, "good", task_ids=("qa-0001",)))
        return status.status

    assert asyncio.run(inside()) == "complete"


@pytest.mark.parametrize("seed", [-1, 2**53])
def test_a_seed_numpy_or_json_cannot_keep_is_refused_before_anything_is_written(
    mini: Path, seed: int
) -> None:
    from bench.core.errors import UsageError

    runs = mini / "runs"
    with pytest.raises(UsageError) as info:
        start_run(request(mini, "good", seed=seed))
    assert info.value.code == "SEED_INVALID" and info.value.field == "--seed"
    assert not runs.exists() or not any(runs.iterdir())


def test_an_over_budget_failure_line_says_over_budget_once(mini: Path) -> None:
    """The reason already begins "over budget: …"; the line printed beside the task (bench
    show, the reports, the board) said it twice."""
    run, _ = start_run(
        request(mini, "slow", task_ids=("qa-0001",), task_budget=Budget(seconds=0.2))
    )
    [failure] = summarize(run).failures
    assert any("over budget: " in line for line in failure.lines)
    assert not any("over budget: over budget" in line for line in failure.lines)
