"""A run stops at the first request its server refuses for a setting of meaning
(``runner.refusal_stop``; docs/RUNS.md, "A run stops at a refused setting").

Before 2026-12-07 the run went on: every later attempt a ``REQUEST_REFUSED`` harness fault
("not sent: …"), 172 tasks × 5 repeats = 860 of them against such a server, the run
*complete* and unpublishable, for one line of the target file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bench.cli.main import cli
from bench.core.errors import BenchError
from bench.records import RunStore
from bench.runner import RunRequest, resume_run, start_run

from ..targets.test_field_refusals import JSON, OPENAI_TEMPERATURE, Reasoner, _openai_error
from ..targets.test_provider_state import _spec
from ..targets.test_what_a_bundle_holds import MINI

Body = dict[str, Any]


def _target(tmp_path: Path, url: str, **params: Any) -> Path:
    spec = _spec("openai", url, False, params={"max_completion_tokens": 512, **params})
    spec["max_tokens_param"] = "max_completion_tokens"
    path = tmp_path / "target.yaml"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def _request(tmp_path: Path, target: Path, **more: Any) -> RunRequest:
    values: dict[str, Any] = {
        "tasks": MINI / "tasks",
        "target_file": target,
        "runs_dir": tmp_path / "runs",
        "split": "public",
        "repeats": 3,
        "concurrency": 1,
    }
    return RunRequest(**(values | more))


def test_the_first_refused_setting_stops_the_run_with_one_error(
    json_server: Any, tmp_path: Path
) -> None:
    server = Reasoner()
    target = _target(tmp_path, json_server(server), temperature=0)
    with pytest.raises(BenchError) as caught:
        start_run(_request(tmp_path, target))
    error = caught.value
    assert error.code == "FIELD_REFUSED" and error.exit_code == 3
    assert error.path == str(target) and error.field == "params.temperature"
    said = error.message
    assert "params.temperature = 0" in said and OPENAI_TEMPERATURE in said
    assert "change or remove params.temperature in the target file" in said
    assert "start a new run (the same command without --resume" in said
    assert len(server.bodies) == 1  # one request, not one per attempt
    [run] = RunStore(tmp_path / "runs").runs()
    status = run.status()
    assert run.attempts() == []  # the refused attempt is not written, nor any after it
    assert status.status == "started" and status.attempts_done == 0
    assert status.partial_reason is not None
    assert "refused for params.temperature" in status.partial_reason
    # The fix is another configuration: --resume of the same run refuses it.
    fixed = _target(tmp_path, json_server(Reasoner()), temperature=1)
    with pytest.raises(BenchError) as resumed:
        resume_run(run.run_id, _request(tmp_path, fixed))
    assert resumed.value.code == "CONFIG_CHANGED"
    # A new run with it is whole.
    _, done = start_run(_request(tmp_path, fixed, repeats=1))
    assert done.status == "complete"


def test_an_attempt_the_endpoint_answered_before_the_refusal_is_written(
    json_server: Any, tmp_path: Path
) -> None:
    """A server cannot take back an attempt by refusing its next call in words: an attempt
    with any answer is written (its refusal a harness fault, or the entrant's error when the
    same shape was answered: bench.core.refused), and the run stops there."""
    bodies: list[Body] = []

    def server(body: Body) -> tuple[int, bytes, dict[str, str]]:
        bodies.append(body)
        if any(m["role"] == "tool" for m in body["messages"]):
            error = _openai_error(OPENAI_TEMPERATURE, "temperature", "unsupported_value")
            return 400, error, JSON
        call = {
            "id": f"call_{len(bodies)}",
            "type": "function",
            "function": {"name": "get_order", "arguments": '{"order_id": "1041"}'},
        }
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        answer = {
            "id": "x",
            "object": "chat.completion",
            "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12},
        }
        return 200, json.dumps(answer).encode(), JSON

    target = _target(tmp_path, json_server(server), temperature=0)
    request = _request(tmp_path, target, task_ids=("tool-0001",), split=None, repeats=2)
    with pytest.raises(BenchError) as caught:
        start_run(request)
    assert caught.value.code == "FIELD_REFUSED"
    [run] = RunStore(tmp_path / "runs").runs()
    [record] = run.attempts()  # the second repeat never started
    assert (record.repeat, record.outcome, record.fault) == (0, "harness_fault", "REQUEST_REFUSED")
    assert len(bodies) == 2
    assert run.status().status == "started"


def test_bench_run_says_it_in_one_line_and_exits_3(json_server: Any, tmp_path: Path) -> None:
    target = _target(tmp_path, json_server(Reasoner()), temperature=0)
    result = CliRunner().invoke(
        cli,
        [
            "run", "--tasks", str(MINI / "tasks"), "--target", str(target), "--split",
            "public", "--runs-dir", str(tmp_path / "runs"), "--progress", "none",
            "--wait-ready", "0",
        ],
    )  # fmt: skip
    assert result.exit_code == 3, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"error[FIELD_REFUSED]: {target}: params.temperature: run ")
    assert "Traceback" not in result.output
