"""`bench task lint`: plan copies that n-grams miss, tasks a baseline passes, check's rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from bench.cli.task_cmd import question_text
from bench.cli.task_cmd import task as task_group
from bench.stats.leaks import find_leaks
from bench.tasks.load import load_task_set

TOOLS: list[dict[str, Any]] = [
    {
        "name": "get_order",
        "description": "Look up one order by its number.",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}},
            "required": ["order_id"],
        },
        "reads": "orders.{order_id}",
    },
    {
        "name": "issue_refund",
        "kind": "write",
        "description": "Refund an order to the original payment method.",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}, "amount": {"type": "number"}},
            "required": ["order_id", "amount"],
        },
        "default": {"status": "refund_pending"},
    },
]
STATE = {
    "orders": {
        "58211": {"order_id": "58211", "total": 64.6, "status": "delivered"},
        "58231": {"order_id": "58231", "total": 172.0, "status": "delivered"},
    }
}


def _refund(order: str, amount: float) -> list[dict[str, Any]]:
    return [
        {"type": "trajectory", "required": ["get_order", "issue_refund"]},
        {"type": "state", "tool": "issue_refund", "args": {"order_id": order, "amount": amount}},
    ]


def _task(task_id: str, split: str, message: str, expectations: list[Any]) -> dict[str, Any]:
    return {
        "id": task_id,
        "family": "tool-trajectory",
        "split": split,
        "input": [{"role": "user", "content": message}],
        "tools": TOOLS,
        "state": STATE,
        "expectations": expectations,
        "because": "A lint fixture.",
    }


REFUND = _task(
    "t-pub-refund",
    "public",
    "Order 58211 arrived but I'd like to return everything unused. Please refund it in full.",
    _refund("58211", 64.6),
)
# The same job under other words: no shared 13-gram, not an exact match, a low word overlap.
REWORDED = _task(
    "t-prv-refund-again",
    "private",
    "Parcel number 58211 came back to you untouched; give the customer back every euro paid.",
    [
        {"type": "state", "tool": "issue_refund", "args": {"order_id": "58211", "amount": 64.60}},
        {"type": "trajectory", "required": ["issue_refund", "get_order"], "note": "reads first"},
    ],
)
OTHER_JOB = _task(
    "t-pub-refund-other",
    "public",
    "Order 58231 arrived broken. Refund the whole thing please.",
    _refund("58231", 172.0),
)


def _lint(tmp_path: Path, *tasks: dict[str, Any]) -> Result:
    root = tmp_path / "tasks"
    root.mkdir()
    (tmp_path / "corpora").mkdir()
    document = {"format_version": 1, "tasks": list(tasks)}
    # JSON is YAML without anchors (the loader refuses them; shared dicts would get some)
    (root / "lint.yaml").write_text(json.dumps(document, indent=1), encoding="utf-8")
    return CliRunner().invoke(task_group, ["lint", str(root)])


def test_a_reworded_copy_is_caught_by_plan_where_n_grams_miss_it(tmp_path: Path) -> None:
    result = _lint(tmp_path, REFUND, REWORDED, OTHER_JOB)
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert lines == [
        "plan-leak: t-pub-refund ~ t-prv-refund-again: same tool plan and expected values "
        "(2 check(s), public/private)",
        "1 finding(s); 3 task(s), 2 distinct by plan",
    ]
    task_set = load_task_set(tmp_path / "tasks", None)
    texts = [(t.id, t.split, question_text(t)) for t in task_set.tasks]
    assert find_leaks(texts, least=2) == []  # the n-gram check alone lets the copy through


def test_genuinely_different_jobs_lint_clean(tmp_path: Path) -> None:
    result = _lint(tmp_path, REFUND, OTHER_JOB)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("ok: 2 task(s), all distinct;")


def test_a_task_a_baseline_passes_is_a_finding(tmp_path: Path) -> None:
    empty = _task(
        "t-pub-never-refund",
        "public",
        "Tell me whether order 58231 can still be refunded.",
        [{"type": "not_contains", "value": "refund_pending"}],
    )
    result = _lint(tmp_path, REFUND, empty)
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    why = "passes it; a task an empty agent passes measures nothing"
    assert lines == [
        f"baseline-pass: t-pub-never-refund: the no-model baseline '{name}' {why}"
        for name in ("do-nothing", "refuse-everything", "echo", "quote-top-passage")
    ] + ["4 finding(s); 2 task(s), 2 distinct by plan"]


def test_lint_runs_the_rules_bench_check_runs(tmp_path: Path) -> None:
    parrot = _task(
        "t-pub-parrot",
        "public",
        "Look up order 58231 and tell me whether it was delivered.",
        [
            {"type": "trajectory", "required": ["get_order"], "forbidden": ["cancel_order"]},
            {"type": "contains", "value": "delivered"},
        ],
    )
    result = _lint(tmp_path, REFUND, parrot)
    assert result.exit_code == 1, result.output
    where = f"{tmp_path / 'tasks' / 'lint.yaml'}: tasks[1] (t-pub-parrot)"
    assert result.stdout.splitlines() == [
        f"evidence-in-question: {where}: expectations[1]: evidence 'delivered' is already in "
        "the question; repeating it passes",
        f"forbidden-unknown: {where}: expectations[0]: forbidden 'cancel_order' is not a tool "
        "here (get_order, issue_refund)",
        # validate refuses that tool too, so the set cannot run and the floor is not measured
        f"baseline-skipped: the baselines cannot run: error[TASK_UNKNOWN_TOOL]: "
        f"{where}.expectations[0].forbidden: 'cancel_order' "
        "is not a tool in this task's world (get_order, issue_refund)",
        "3 finding(s); 2 task(s), 2 distinct by plan",
    ]
