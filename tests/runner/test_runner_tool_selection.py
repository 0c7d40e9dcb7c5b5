"""A target's tool-selection policy: the runner offers what the policy shows, and
`bench check --target` reads the same policy."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from bench.cli.main import cli
from bench.runner import RunRequest, start_run
from bench.world.selection import rank_tools, select_tool_defs


def _top(mini: Path, k: int) -> Path:
    target = mini / "targets" / "good.yaml"
    target.write_text(target.read_text() + f"tool_selection: {{policy: top-k, k: {k}}}\n")
    return target


def test_the_runner_offers_only_the_selected_tools(mini: Path) -> None:
    run, _ = start_run(
        RunRequest(
            tasks=mini / "tasks",
            target_file=_top(mini, 1),
            runs_dir=mini / "runs",
            task_ids=("tool-0001",),
        )
    )
    [record] = run.attempts()
    offered = [tool["name"] for tool in record.trace.exchanges[0].request["tools"]]
    # "Refund order 1041." shares one word with each tool; the tie breaks by name.
    assert offered == ["get_order"]
    assert run.config().comparable["tool_selection"] == {
        "policy": "top-k",
        "k": 1,
        "available": None,
    }


def test_all_tools_without_a_policy(mini: Path) -> None:
    run, _ = start_run(
        RunRequest(
            tasks=mini / "tasks",
            target_file=mini / "targets" / "good.yaml",
            runs_dir=mini / "runs",
            task_ids=("tool-0001",),
        )
    )
    [record] = run.attempts()
    offered = [tool["name"] for tool in record.trace.exchanges[0].request["tools"]]
    assert offered == ["get_order", "issue_refund"]
    assert "tool_selection" not in run.config().comparable


def test_ranking_is_the_one_bench_check_uses() -> None:
    world = [("get_order", "Look up one order"), ("issue_refund", "Refund an order"), ("x", "y")]
    assert rank_tools("refund my order", world, 2) == ["issue_refund", "get_order"]
    assert rank_tools("hello", world, 2) == []
    from bench.core.trace import ToolDef

    defs = [ToolDef(name=n, description=d) for n, d in world]
    assert [d.name for d in select_tool_defs(defs, "refund", "top-k", 1)] == ["issue_refund"]
    assert [d.name for d in select_tool_defs(defs, "refund", "all", 1)] == ["get_order",
            "issue_refund", "x"]  # fmt: skip


def test_check_reads_the_policy_from_the_target(mini: Path) -> None:
    target = _top(mini, 1)
    result = CliRunner().invoke(cli, ["check", str(mini / "tasks"), "--target", str(target)])
    assert result.exit_code == 1, result.output
    assert "policy top-1" in result.output
    assert "expected tool 'issue_refund' is never shown under top-1 (shown: get_order)" in (
        result.output
    )
