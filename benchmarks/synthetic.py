"""Synthetic task data the benchmark scripts share (imported as a sibling module: the scripts
run as ``python benchmarks/<script>.py``, which puts this directory on ``sys.path``).

YAML only, no ``bench`` import: ``bench_live.py``'s child processes import their script under
another project's virtual environment.
"""

from __future__ import annotations

from typing import Any

import yaml

ORDER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"order_id": {"type": "string"}},
    "required": ["order_id"],
    "additionalProperties": False,
}
GET_ORDER = {
    "name": "get_order",
    "description": "Look up one order by its number.",
    "parameters": ORDER_SCHEMA,
}
ISSUE_REFUND = {
    "name": "issue_refund",
    "description": "Refund an order in full.",
    "parameters": ORDER_SCHEMA,
}


class NoAliases(yaml.SafeDumper):
    """The task loader refuses YAML anchors and aliases, so never emit them."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def refund_task(i: int) -> dict[str, Any]:
    """Tool-trajectory task ``i``: look order ``1000 + i`` up, refund it, say so (3 model
    calls against the mock server's policy)."""
    order = str(1000 + i)
    amount = round(10 + 7.5 * i, 2)
    return {
        "id": f"tool-{i:04d}",
        "family": "tool-trajectory",
        "split": "public",
        "input": [{"role": "user", "content": f"Please refund order {order}."}],
        "tools": [
            {**GET_ORDER, "reads": "orders.{order_id}"},
            {
                **ISSUE_REFUND,
                "kind": "write",
                "cases": [
                    {
                        "when": {"order_id": order},
                        "result": {"refund_id": f"rf-{order}", "order_id": order, "amount": amount},
                    }
                ],
                "writes": [{"path": "orders.{order_id}.status", "value": "refunded"}],
            },
        ],
        "state": {"orders": {order: {"order_id": order, "total": amount}}},
        "expectations": [
            {
                "type": "trajectory",
                "required": ["get_order", "issue_refund"],
                "order": ["get_order", "issue_refund"],
                "max_calls": 3,
            },
            {"type": "contains", "value": f"rf-{order}"},
        ],
        "because": "Synthetic benchmark task: read the order, then refund it.",
    }


def task_file_text(tasks: list[dict[str, Any]]) -> str:
    """A task file holding ``tasks``, as the loader reads it."""
    return yaml.dump({"format_version": 1, "tasks": tasks}, Dumper=NoAliases, sort_keys=False)
