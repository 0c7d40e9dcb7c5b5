"""Every errored reason a user can see starts with its stable code (``CODE: message``), whatever
the target kind: the run summary groups by it (``errored N × CODE: …``), docs/ERRORS.md
explains it. Was: a scripted entrant that raised read ``RuntimeError: agent exploded``, the one
reason without a code, while its own replay read ``ENTRANT_EXCEPTION: RuntimeError: …``.

An http-agent whose turn raised something no target error names (the catch-all in
``runner.agent._turn``) read ``RuntimeError: …`` too; it now reads ``ENTRANT_EXCEPTION: …``.

Not listed: an attempt's time running out (``no final answer within Ns (attempt timeout)``), a
reason the runner's engine words and the verifier re-derives word for word (shipped bundles
carry it); the run summary prints it whole (tests/cli/test_cli_error_lines.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench.cli.run_cmd import _error_lines
from bench.records.store import RunDir
from bench.runner import RunRequest, start_run
from bench.targets.agent import HttpAgentTarget

CODED = re.compile(r"[A-Z][A-Z0-9_]+: \S")


def _run(mini: Path, target: Path | None = None, replay: str | None = None) -> RunDir:
    run, _ = start_run(
        RunRequest(
            tasks=mini / "tasks",
            corpus_root=mini / "corpora",
            target_file=target,
            replay=replay,
            runs_dir=mini / "runs",
            task_ids=("qa-0001",),
            wait_ready_s=0,
        )
    )
    return RunDir(run.path)


def _target(mini: Path, name: str, body: str) -> Path:
    path = mini / "targets" / f"{name}.yaml"
    path.write_text(
        f"format_version: 1\nentrant: {name}\ndisplay_name: {name}\nmodel: {name}\n{body}"
    )
    return path


async def _explodes(*args: object) -> object:
    raise RuntimeError("agent exploded")


def test_every_errored_reason_names_its_code(
    mini: Path,
    json_server: Callable[[Callable[[dict[str, Any]], tuple[int, Any]]], str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    once = "retry: {max_attempts: 1}\n"
    failing = json_server(lambda body: (500, {"error": {"message": "boom"}}))
    bad_answer = json_server(lambda body: (200, {"answer": 5}))
    crashed = _run(mini, mini / "targets" / "crashes.yaml")
    with monkeypatch.context() as patch:  # a turn raising what no target error names
        patch.setattr(HttpAgentTarget, "run_turn", _explodes)
        agent_raised = _run(
            mini, _target(mini, "boom", f"kind: http-agent\nbase_url: {bad_answer}/agent\n")
        )
    runs = {
        "scripted, raises": crashed,
        "scripted, answers junk": _run(mini, mini / "targets" / "returns_junk.yaml"),
        "openai, HTTP 500": _run(
            mini, _target(mini, "oai", f"kind: openai\nbase_url: {failing}/v1\n{once}")
        ),
        "anthropic, HTTP 500": _run(
            mini, _target(mini, "anth", f"kind: anthropic\nbase_url: {failing}\n{once}")
        ),
        "http-agent, answer not a string": _run(
            mini, _target(mini, "agt", f"kind: http-agent\nbase_url: {bad_answer}/agent\n{once}")
        ),
        "http-agent, the turn raises": agent_raised,
        "cassette replay of the scripted raise": _run(mini, replay=crashed.run_id),
    }
    reasons = {}
    for label, run in runs.items():
        (record,) = run.attempts()
        assert record.outcome == "errored", (label, record.outcome, record.reason)
        reasons[label] = record.reason or ""
    uncoded = {label: reason for label, reason in reasons.items() if not CODED.match(reason)}
    assert uncoded == {}
    assert reasons["scripted, raises"] == "ENTRANT_EXCEPTION: RuntimeError: agent exploded"
    assert reasons["http-agent, the turn raises"] == reasons["scripted, raises"]
    # the replay words it as the run it replays
    assert reasons["cassette replay of the scripted raise"] == reasons["scripted, raises"]
    (record,) = crashed.attempts()
    assert _error_lines([record]) == [
        "  errored 1 × ENTRANT_EXCEPTION: RuntimeError: agent exploded"
    ]
