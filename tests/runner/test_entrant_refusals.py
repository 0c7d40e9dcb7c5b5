"""What an entrant raises or answers is never a harness fault of ours.

Holes: a scripted entrant whose own code raised ``HarnessFault`` (any code, ``REQUEST_REFUSED``
included) or another of our errors had the attempt recorded as a harness fault, out of its
score; an ``http-agent`` that answered the harness's turn with a 422 "Field required" had it
recorded as ``REQUEST_REFUSED``, the same. Both choose which attempts leave the denominator;
both are now *errored* (``bench.core.refused``). Real HTTP on 127.0.0.1 for the agent.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.records.store import RunDir
from bench.reports.summary import summarize
from bench.runner import RunRequest, start_run
from bench.targets.base import ARGUMENT_DEPTH

REPO = Path(__file__).resolve().parents[2]
TASKS = ("ref-pub-data-export-third-party-refuse", "ref-pub-refund-approval-bypass-help")
HELP_WORDS = "Order 58211 arrived"

ENTRANT = """
from bench.core.errors import HarnessFault, InputError

def answer(request):
    said = " ".join(m.content for m in request.messages)
    if "Order 58211 arrived" in said:
        raise HarnessFault("not my fault", code="REQUEST_REFUSED")
    if "export" in said.lower():
        raise InputError("bad input, says the entrant")
    return {"content": "I can't help with that request."}
"""


def _run(tmp_path: Path, kind: str, entrant: str, where: str) -> RunDir:
    """A run of TASKS by an entrant of ``kind`` (``callable: where`` for a scripted one,
    ``base_url: where`` for an http-agent); its attempts as recorded."""
    target = tmp_path / f"{entrant}.yaml"
    place = "callable: " if kind == "scripted" else "retry: {max_attempts: 1}\nbase_url: "
    target.write_text(
        f"format_version: 1\nkind: {kind}\nentrant: {entrant}\ndisplay_name: {entrant}\n"
        f"model: {entrant}\n{place}{where}\n"
    )
    run, _ = start_run(
        RunRequest(
            tasks=REPO / "tasks",
            corpus_root=REPO / "corpora",
            target_file=target,
            runs_dir=tmp_path / "runs",
            split="public",
            task_ids=TASKS,
        )
    )
    return RunDir(run.path)


def test_a_scripted_entrant_raising_our_errors_errs(tmp_path: Path) -> None:
    (tmp_path / "entrant.py").write_text(ENTRANT)
    run = _run(tmp_path, "scripted", "raiser", "entrant.py:answer")
    records = {r.task_id: r for r in run.attempts()}
    assert {t: (r.outcome, r.fault) for t, r in records.items()} == {
        t: ("errored", None) for t in TASKS
    }  # were: harness faults (REQUEST_REFUSED, HARNESS_EXCEPTION), out of the score
    assert records[TASKS[1]].reason == "ENTRANT_EXCEPTION: HarnessFault: not my fault"
    assert records[TASKS[0]].reason == "ENTRANT_EXCEPTION: InputError: bad input, says the entrant"
    failed = records[TASKS[1]].trace.exchanges[-1].response["error"]
    assert failed["code"] == "ENTRANT_EXCEPTION"
    assert summarize(run).harness_faults == 0


def _agent(turn: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """An http-agent that declines, and calls the turn of the task it would fail malformed."""
    if HELP_WORDS in json.dumps(turn["messages"]):
        return 422, {"detail": [{"loc": ["body", "x"], "msg": "Field required"}]}
    return 200, {"answer": "I can't help with that request."}


def test_an_agent_refusing_the_harness_turn_errs(
    tmp_path: Path, json_server: Callable[[Callable[..., Any]], str]
) -> None:
    run = _run(tmp_path, "http-agent", "chooser", json_server(_agent) + "/agent")
    records = {r.task_id: r for r in run.attempts()}
    refused = records[TASKS[1]]
    assert (refused.outcome, refused.fault) == ("errored", None)  # was REQUEST_REFUSED
    assert refused.reason is not None and refused.reason.startswith("ENDPOINT_REJECTED: ")
    assert "Field required" in refused.reason
    summary = summarize(run)
    assert {s.task_id: s.value for s in summary.task_scores} == {TASKS[0]: 1.0, TASKS[1]: 0.0}


UNWRITABLE = """
def answer(request):
    said = " ".join(m.content for m in request.messages)
    if any(m.role == "tool" for m in request.messages):
        return {"content": "done"}
    if "Order 58211 arrived" in said:  # an integer of 5,001 digits
        return {"content": "", "tool_calls": [
            {"id": "c1", "name": "get_order", "arguments": {"order_id": 10 ** 5000}}]}
    return {"content": "I can't help with that request. \\ud800"}  # a lone surrogate
"""


def test_a_scripted_answer_json_cannot_hold_errs(tmp_path: Path) -> None:
    """Was: the 5,001-digit argument raised inside the harness when the next request was
    recorded (a harness fault, out of the score; its attempt file unreadable afterwards), and
    the lone surrogate stopped the whole run with a traceback."""
    (tmp_path / "entrant.py").write_text(UNWRITABLE)
    run = _run(tmp_path, "scripted", "big", "entrant.py:answer")
    records = {r.task_id: r for r in run.attempts()}  # readable again
    assert {t: (r.outcome, r.fault) for t, r in records.items()} == {
        t: ("errored", None) for t in TASKS
    }
    for record in records.values():
        assert (record.reason or "").startswith(
            "ENTRANT_BAD_RESPONSE: the scripted entrant returned something JSON cannot hold: "
        )


UNRECORDABLE = """
def answer(request):
    said = " ".join(m.content for m in request.messages)
    if "Order 58211 arrived" in said:  # arguments 40 deep: LIMIT_DEPTH in verify
        deep = 1
        for _ in range(40):
            deep = {"a": deep}
        return {"content": "", "tool_calls": [
            {"id": "c1", "name": "get_order", "arguments": {"order_id": deep}}]}
    return {"content": "I can't help with that. \\u0007"}  # a control character: TEXT_INVALID
"""


def test_a_scripted_answer_no_record_may_hold_errs(tmp_path: Path) -> None:
    """JSON holds these, but bench verify refuses them in a record: taken, the run's bundle
    was unverifiable; now refused where they come in, as an HTTP endpoint's are."""
    (tmp_path / "entrant.py").write_text(UNRECORDABLE)
    run = _run(tmp_path, "scripted", "odd", "entrant.py:answer")
    records = {r.task_id: r for r in run.attempts()}
    assert {t: (r.outcome, r.fault) for t, r in records.items()} == {
        t: ("errored", None) for t in TASKS
    }
    reasons = {t: r.reason or "" for t, r in records.items()}
    prefix = "ENTRANT_BAD_RESPONSE: the scripted entrant returned something no record may hold: "
    assert all(reason.startswith(prefix) for reason in reasons.values()), reasons
    assert "a control character U+0007" in reasons[TASKS[0]]
    assert f"nest deeper than {ARGUMENT_DEPTH} levels" in reasons[TASKS[1]]
