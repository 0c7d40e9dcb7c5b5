"""Plan-level distinctness (bench.tasks.distinct): rewording cannot hide a copy; another value
makes another job."""

from __future__ import annotations

from typing import Any

from bench.tasks.distinct import plan_copies, plan_of, shared_passages
from bench.tasks.model import Task

WORLD: list[dict[str, Any]] = [
    {"name": "get_order", "description": "Look up an order.", "default": {"status": "ok"}},
    {"name": "issue_refund", "description": "Refund an order.", "default": {"status": "ok"}},
]


def _task(task_id: str, message: str, expectations: list[Any], **extra: Any) -> Task:
    data = {
        "id": task_id,
        "family": "tool-trajectory",
        "split": "public",
        "input": [{"role": "user", "content": message}],
        "tools": WORLD,
        "expectations": expectations,
        "because": "A test.",
        **extra,
    }
    return Task.model_validate(data)


PLAN = [
    {"type": "trajectory", "required": ["get_order", "issue_refund"], "order": ["get_order"]},
    {"type": "state", "tool": "issue_refund", "args": {"order_id": "A-1", "amount": 49.0}},
    {"type": "contains", "value": "Refund  Pending"},
]


def test_rewording_bookkeeping_and_order_do_not_change_the_plan() -> None:
    first = _task("a", "Refund order A-1, please.", PLAN)
    reworded = _task(
        "b",
        "The parcel A-1 came back untouched; give the money back.",
        [
            {"type": "contains", "value": "refund pending", "note": "said", "weight": 2},
            {**PLAN[1], "args": {"amount": 49, "order_id": "a-1"}, "safety": True},
            {**PLAN[0], "required": ["issue_refund", "get_order"], "axis": "tool"},
        ],
        split="private",
    )
    assert plan_of(first) == plan_of(reworded)
    (copy,) = plan_copies([first, reworded])
    assert (copy.kind, copy.first, copy.second) == ("plan-leak", "a", "b")


def test_another_value_or_another_order_of_steps_is_another_job() -> None:
    first = _task("a", "Refund order A-1.", PLAN)
    amount = _task("b", "Refund order A-1.", [PLAN[0], {**PLAN[1], "args": {"order_id": "A-1"}}])
    other = _task("c", "Refund A-2.", [PLAN[0], {**PLAN[1], "args": {"order_id": "A-2"}}])
    order = _task("d", "x", [{**PLAN[0], "order": ["issue_refund", "get_order"]}, *PLAN[1:]])
    first_order = _task("e", "y", [{**PLAN[0], "order": ["get_order", "issue_refund"]}, *PLAN[1:]])
    assert plan_copies([first, amount, other, order, first_order]) == []


def test_a_copy_within_a_split_is_a_duplicate_and_one_finding_per_extra_copy() -> None:
    tasks = [_task(name, f"Refund A-1 ({name}).", PLAN) for name in "abc"]
    found = [(c.kind, c.first, c.second) for c in plan_copies(tasks)]
    assert found == [("plan-duplicate", "a", "b"), ("plan-duplicate", "a", "c")]


def test_a_plan_that_names_no_job_is_left_to_the_n_gram_check() -> None:
    generic = [{"type": "trajectory", "max_calls": 0}, {"type": "regex", "pattern": "^$"}]
    tasks = [_task(name, f"Question {name}", generic[:1]) for name in "ab"]
    assert not plan_of(tasks[0]).specific
    assert plan_copies(tasks) == []
    with_text = [_task(name, f"Question {name}", generic) for name in "ab"]
    assert plan_of(with_text[0]).specific  # a regex names what the answer must be
    assert len(plan_copies(with_text)) == 1


def test_a_private_grounded_question_needing_a_public_passage_is_named() -> None:
    def qa(task_id: str, split: str, passage: str) -> Task:
        return Task.model_validate(
            {
                "id": task_id,
                "family": "grounded-qa",
                "split": split,
                "input": [{"role": "user", "content": f"Question {task_id}?"}],
                "tools": [{"builtin": "search_docs"}],
                "corpus": ["faq.md", "private-faq.md"],
                "expectations": [
                    {"type": "contains", "value": task_id},
                    {"type": "citations", "required": [passage]},
                ],
                "because": "A test.",
            }
        )

    tasks = [
        qa("pub", "public", "faq.md#a"),
        qa("prv-shared", "private", "faq.md#a"),
        qa("prv-own", "private", "private-faq.md#b"),
    ]
    found = [(s.kind, s.first, s.second) for s in shared_passages(tasks)]
    assert found == [("passage-shared", "prv-shared", "pub")]
