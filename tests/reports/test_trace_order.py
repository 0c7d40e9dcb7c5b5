"""A trace reads in the order things happened: each tool call, then its result, then the next
turn. ``bench show --task`` and the Markdown report listed every tool result after the whole
conversation, the final answer included."""

from __future__ import annotations

import json
import math
from pathlib import Path

from bench.records import AttemptRecord, RunDir
from bench.reports.markdown import render_markdown
from bench.reports.summary import summarize
from bench.reports.tracetext import attempt_lines
from bench.runner import RunRequest, start_run

EXPECTED = [
    "user: Refund order 1041.",
    'assistant → get_order({"order_id": "1041"})',
    'tool get_order({"order_id": "1041"}) ⇒ {"status": "delivered", "total": 30}',
    'assistant → issue_refund({"order_id": "1041"})',
    'tool issue_refund({"order_id": "1041"}) ⇒ {"ok": true}',
    "assistant: Order 1041 is refunded.",
]


def _refund(mini: Path, tmp_path: Path, target: str = "good") -> AttemptRecord:
    run, _ = start_run(
        RunRequest(
            tasks=mini / "tasks",
            target_file=mini / "targets" / f"{target}.yaml",
            task_ids=["tool-0001"],
            runs_dir=tmp_path / "runs",
        )
    )
    [record] = run.attempts()
    return record


def _trace(lines: list[str]) -> list[str]:
    start = lines.index("trace:") + 1
    return [line for line in lines[start:] if not line.startswith("tokens ")]


def test_each_tool_result_follows_its_call(mini: Path, tmp_path: Path) -> None:
    record = _refund(mini, tmp_path)
    assert _trace(attempt_lines(record)) == EXPECTED


def test_a_result_no_message_names_comes_after_the_conversation(mini: Path, tmp_path: Path) -> None:
    record = _refund(mini, tmp_path)
    unnamed = [m for m in record.trace.messages if m.role != "tool"]
    trace = record.trace.model_copy(update={"messages": unnamed})
    lines = _trace(attempt_lines(record.model_copy(update={"trace": trace})))
    assert lines == [EXPECTED[i] for i in (0, 1, 3, 5, 2, 4)]


def test_the_markdown_report_shows_the_trace_in_order(mini: Path, tmp_path: Path) -> None:
    # good's calls and results, then an answer the task's check fails: a failed task's full
    # trace is in the report.
    (mini / "vague.py").write_text(
        "import importlib.util\nfrom pathlib import Path\n\n"
        "spec = importlib.util.spec_from_file_location('agents', Path(__file__).parent / "
        "'agents.py')\nagents = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(agents)\n\n\n"
        "def respond(request):\n    response = agents.good(request)\n"
        "    if response.content:\n"
        "        return response.model_copy(update={'content': 'Order 1041: done.'})\n"
        "    return response\n",
        encoding="utf-8",
    )
    (mini / "targets" / "vague.yaml").write_text(
        "format_version: 1\nkind: scripted\nentrant: mini-vague\ndisplay_name: mini vague\n"
        "model: mini-vague\ncallable: ../vague.py:respond\n",
        encoding="utf-8",
    )
    record = _refund(mini, tmp_path, target="vague")
    assert record.value is not None and record.value < 1
    [run] = [p for p in (tmp_path / "runs").iterdir() if (p / "config.json").is_file()]
    text = render_markdown(summarize(RunDir(run)))
    expected = [*EXPECTED[:5], "assistant: Order 1041: done."]
    positions = [text.index(line) for line in expected]
    assert positions == sorted(positions), text


def test_a_negative_zero_is_read_as_zero_and_never_shown_as_minus(
    mini: Path, tmp_path: Path
) -> None:
    """-0.0 passed every ``ge=0`` bound of a record and showed as "latency -0.000s"."""
    data = _refund(mini, tmp_path).model_dump(mode="json")
    data["value"] = -0.0
    data["trace"] |= {"latency_s": -0.0, "queue_s": -0.0, "cost_usd": -0.0}
    data["trace"]["exchanges"][0] |= {"latency_s": -0.0, "cost_usd": -0.0}
    record = AttemptRecord.model_validate_json(json.dumps(data))
    zeros = [
        record.value,
        record.trace.latency_s,
        record.trace.queue_s,
        record.trace.cost_usd,
        record.trace.exchanges[0].latency_s,
        record.trace.exchanges[0].cost_usd,
    ]
    assert [math.copysign(1.0, z) for z in zeros if z is not None] == [1.0] * 6
    lines = "\n".join(attempt_lines(record))
    assert "-0.0" not in lines and "latency 0.000s" in lines and "score 0.000" in lines
    assert "-0.0" not in record.model_dump_json()
