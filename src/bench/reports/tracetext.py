"""One rendering of an attempt and its trace, shared by every report.

The terminal clips long values (``width``); the Markdown and JUnit reports pass
``width=None`` and get every message, tool call and tool result in full.
"""

from __future__ import annotations

import json
from typing import Any

from bench.core.trace import ToolCall, Trace
from bench.records.run import AttemptRecord


def _json(value: Any) -> str:
    return (
        value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    )


def _clip(text: str, width: int | None) -> str:
    if width is None:
        return text
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def attempt_lines(record: AttemptRecord, width: int | None = None, indent: str = "") -> list[str]:
    """The attempt's outcome, verdicts and trace as lines (``width=None``: nothing clipped)."""
    value = "n/a" if record.value is None else f"{record.value:.3f}"
    lines = [f"attempt {record.task_id} repeat {record.repeat}: {record.outcome}, score {value}"]
    step = indent or ""
    if record.reason:
        lines.append(f"{step}reason: {record.reason}")
    for violation in record.safety_violations:
        lines.append(f"{step}SAFETY: {violation}")
    for verdict in record.verdicts:
        mark = "?" if not verdict.decided else ("ok" if verdict.passed else "FAIL")
        lines.append(f"{step}[{mark}] {verdict.type}: {verdict.sentence}")
    trace = record.trace
    lines.append(f"{step}trace:")
    inner = step * 2 if step else ""
    # Each tool result where it happened: at its tool message (the call's id), so the reader
    # sees call, result, next turn in order; one no message names comes last, as it ran.
    waiting: dict[str, list[ToolCall]] = {}
    for ran in trace.tool_calls:
        waiting.setdefault(ran.id, []).append(ran)

    def result(ran: ToolCall) -> str:
        shown = f"error: {ran.error}" if ran.error else _clip(_json(ran.result), width)
        return f"{inner}tool {ran.name}({_clip(_json(ran.arguments), width)}) ⇒ {shown}"

    said: set[int] = set()
    for message in trace.messages:
        if message.role == "tool":
            queue = waiting.get(message.tool_call_id or "")
            if queue:
                ran = queue.pop(0)
                said.add(id(ran))
                lines.append(result(ran))
            continue
        if message.content:
            lines.append(f"{inner}{message.role}: {_clip(message.content, width)}")
        for call in message.tool_calls:
            lines.append(
                f"{inner}{message.role} → {call.name}({_clip(_json(call.arguments), width)})"
            )
    lines += [result(ran) for ran in trace.tool_calls if id(ran) not in said]
    if trace.retrieved:
        lines.append(f"{inner}retrieved: {', '.join(trace.retrieved)}")
    lines.append(f"{inner}{usage_line(trace)}")
    return lines


def usage_line(trace: Trace) -> str:
    """``tokens … cost … latency … N model call(s)``: tokens the entrant did not report are
    "not measured", never 0, as the run summary and the board's transcript pages say them
    (``Trace.usage_measured``)."""
    usage = trace.usage
    tokens = (
        f"{usage.prompt_tokens} prompt / {usage.completion_tokens} completion / "
        f"{usage.cached_tokens} cached"
        if trace.usage_measured
        else "not measured"
    )
    cost = "not measured" if trace.cost_usd is None else f"${trace.cost_usd:.6f}"
    # Queue time (waiting for a request slot, docs/TARGETS.md) is not latency: shown apart.
    queued = f" (+{trace.queue_s:.3f}s queued)" if trace.queue_s > 0 else ""
    return (
        f"tokens {tokens}   cost {cost}   latency {trace.latency_s:.3f}s{queued}   "
        f"{len(trace.exchanges)} model call(s)"
    )


def trace_text(record: AttemptRecord) -> str:
    """Every message, tool call and tool result of one attempt, nothing clipped."""
    return "\n".join(attempt_lines(record))


__all__ = ["attempt_lines", "trace_text", "usage_line"]
