"""The full, unclipped text of an attempt's trace (for Markdown and JUnit reports)."""

from __future__ import annotations

import json
from typing import Any

from bench.records.run import AttemptRecord


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def trace_text(record: AttemptRecord) -> str:
    """Every message, tool call and tool result of one attempt, nothing clipped."""
    value = "n/a" if record.value is None else f"{record.value:.3f}"
    lines = [f"attempt {record.task_id} repeat {record.repeat}: {record.outcome}, score {value}"]
    if record.reason:
        lines.append(f"reason: {record.reason}")
    for verdict in record.verdicts:
        mark = "?" if not verdict.decided else ("ok" if verdict.passed else "FAIL")
        lines.append(f"[{mark}] {verdict.type}: {verdict.sentence}")
    trace = record.trace
    for message in trace.messages:
        if message.role == "tool":
            continue
        if message.content:
            lines.append(f"{message.role}: {message.content}")
        for call in message.tool_calls:
            lines.append(f"{message.role} -> {call.name}({_json(call.arguments)})")
    for ran in trace.tool_calls:
        shown = f"error: {ran.error}" if ran.error else _json(ran.result)
        lines.append(f"tool {ran.name}({_json(ran.arguments)}) => {shown}")
    if trace.retrieved:
        lines.append(f"retrieved: {', '.join(trace.retrieved)}")
    cost = "not measured" if trace.cost_usd is None else f"${trace.cost_usd:.6f}"
    lines.append(
        f"tokens {trace.usage.prompt_tokens} prompt / {trace.usage.completion_tokens} completion"
        f"   cost {cost}   latency {trace.latency_s:.3f}s"
    )
    return "\n".join(lines)


__all__ = ["trace_text"]
