"""The harness's requests fit servers with a strict request schema, and a stream that never
says it ended is not an answer. Served for real by the mock server's ``strict`` and
``nofinish`` faults, which behave as llama-cpp-python's server was seen to (issue 17):

* an assistant message with ``content: null`` beside ``tool_calls`` is HTTP 500 with a
  validation error, so every multi-step tool task errored for the request's shape;
* tools offered without a ``tool_choice`` are silently dropped, so the model never calls one;
* a stream that sends ``[DONE]`` with no ``finish_reason`` was scored as a whole answer.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bench.records.run import AttemptRecord
from bench.runner import RunRequest, start_run
from bench.targets.openai import request_body
from bench.targets.openai import wire_messages as openai_messages
from bench.testing.mock_server import MockServer, strict_problem

TASKS = ("qa-0001", "tool-0001")


def _one(mini: Path, **source: object) -> AttemptRecord:
    """The single attempt of a run of qa-0001 (``target_file=`` or ``replay=``)."""
    run_dir, _ = start_run(
        RunRequest(
            tasks=mini / "tasks",
            runs_dir=mini / "runs",
            split="public",
            task_ids=("qa-0001",),
            **source,  # type: ignore[arg-type]
        )
    )
    (record,) = list(run_dir.attempts())
    return record


def _run(mini: Path, target: Path) -> list[object]:
    run_dir, status = start_run(
        RunRequest(
            tasks=mini / "tasks",
            target_file=target,
            runs_dir=mini / "runs",
            split="public",
            task_ids=TASKS,
        )
    )
    assert status.status == "complete"
    return list(run_dir.attempts())


def test_a_strict_server_accepts_every_request_and_sees_the_tools(
    mini: Path, server: MockServer, target_file: Callable[..., Path]
) -> None:
    for streamed in (False, True):
        base = server.fault_url("strict") + "/v1"
        records = _run(mini, target_file(f"strict-{int(streamed)}", base, stream=streamed))
        assert [r.outcome for r in records] == ["scored", "scored"], [  # type: ignore[attr-defined]
            r.reason  # type: ignore[attr-defined]
            for r in records
        ]
        calls = [c.name for r in records for c in r.trace.tool_calls]  # type: ignore[attr-defined]
        assert calls, "the tools were dropped: no tool_choice was sent"
        # the conversation that reached the server carried an assistant tool-call message
        bodies = [s.body for s in server.model_requests()]
        assert any(
            m.get("tool_calls") and m.get("content") == ""
            for body in bodies
            for m in body.get("messages", [])
        )
        assert all(
            b.get("tool_choice") == "auto" for b in bodies if isinstance(b, dict) and b.get("tools")
        )


def test_the_strict_fault_refuses_what_it_should() -> None:
    """The mock's strictness is real: the old request shape fails it."""
    null_beside_calls = {
        "messages": [
            {"role": "user", "content": "refund 1041"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c"}]},
        ]
    }
    problem = strict_problem(null_beside_calls)
    assert problem is not None and "Input should be a valid string" in problem
    assert "'messages', 1, 'content'" in problem
    from bench.core.trace import Message, ToolCallRequest

    calls = [ToolCallRequest(id="c1", name="get_order", arguments={"order_id": "1041"})]
    ours = {"messages": openai_messages([Message(role="assistant", content="", tool_calls=calls)])}
    assert strict_problem(ours) is None


def test_tool_choice_is_always_named_when_tools_are_offered() -> None:
    from bench.core.trace import Message, ToolDef
    from bench.targets.base import ModelRequest, TargetSpec

    spec = TargetSpec.model_validate(
        {
            "kind": "openai",
            "entrant": "x",
            "display_name": "x",
            "model": "m",
            "base_url": "http://127.0.0.1:9/v1",
        }
    )
    asked = ModelRequest(
        model="m", messages=[Message(role="user", content="hi")], tools=[ToolDef(name="t")]
    )
    assert request_body(asked, spec)["tool_choice"] == "auto"
    forced = asked.model_copy(update={"params": {"tool_choice": "required"}})
    assert request_body(forced, spec)["tool_choice"] == "required"
    bare = asked.model_copy(update={"tools": []})
    assert "tool_choice" not in request_body(bare, spec)


def test_a_stream_with_no_finish_reason_is_not_an_answer(
    mini: Path, server: MockServer, target_file: Callable[..., Path]
) -> None:
    base = server.fault_url("nofinish") + "/v1"
    records = _run(mini, target_file("nofinish", base, stream=True))
    assert [r.outcome for r in records] == ["errored", "errored"]  # type: ignore[attr-defined]
    for record in records:
        assert "ENDPOINT_STREAM_CUT" in (record.reason or "")  # type: ignore[attr-defined]
        assert not record.trace.answers  # type: ignore[attr-defined]


def test_a_refused_request_is_a_harness_fault_with_the_servers_words(
    mini: Path, server: MockServer, target_file: Callable[..., Path]
) -> None:
    """A validation error about the harness's own request is never retried and never the
    entrant's error: a harness fault (REQUEST_REFUSED) with the server's whole sentence, its
    failed call recorded in the trace, the cassette, and reproduced by a replay."""
    base = server.fault_url("invalid") + "/v1"
    record = _one(mini, target_file=target_file("refused", base))
    assert (record.outcome, record.fault) == ("harness_fault", "REQUEST_REFUSED"), record.reason
    assert len(server.model_requests()) == 1  # not retried
    assert "the request cannot be served as sent" in (record.reason or "")  # not cut at 300
    assert len(record.reason or "") > 300
    (exchange,) = record.trace.exchanges
    assert exchange.response["error"]["code"] == "REQUEST_REFUSED"
    assert exchange.usage is None and not record.trace.usage_measured
    cassette = (
        (mini / "runs" / record.run_id / "cassette.jsonl").read_text(encoding="utf-8").splitlines()
    )
    assert len(cassette) == 1 and "REQUEST_REFUSED" in cassette[0]
    replayed = _one(mini, replay=record.run_id)
    assert (replayed.outcome, replayed.fault) == ("harness_fault", "REQUEST_REFUSED")


def test_a_failed_call_is_recorded_and_replays_as_the_same_error(
    mini: Path, server: MockServer, target_file: Callable[..., Path]
) -> None:
    """An endpoint that keeps failing: the errored attempt keeps its failed call (request and
    error, no tokens), the cassette has it, and a replay errors with the same code."""
    base = server.fault_url("503") + "/v1"
    record = _one(mini, target_file=target_file("down", base))
    assert record.outcome == "errored" and "ENDPOINT_SERVER_ERROR" in (record.reason or "")
    (exchange,) = record.trace.exchanges
    assert exchange.response["error"]["code"] == "ENDPOINT_SERVER_ERROR"
    assert record.trace.cost_usd is None and not record.trace.usage_measured
    from bench.records import RunStore
    from bench.reports.summary import summarize
    from bench.reports.terminal import render_summary

    run = RunStore(mini / "runs").resolve(record.run_id)
    assert "tokens not measured" in "\n".join(render_summary(summarize(run)))  # never "tokens 0"
    replayed = _one(mini, replay=record.run_id)
    assert replayed.outcome == "errored" and "ENDPOINT_SERVER_ERROR" in (replayed.reason or "")


def test_a_stream_closed_before_its_first_event_is_asked_again_without_streaming(
    mini: Path, server: MockServer, target_file: Callable[..., Path]
) -> None:
    """llama-cpp-python 0.3.36 answers a streamed tool call (``tool_choice: auto``) with a 200
    event stream it closes before its first event; every streamed tool task errored. The call
    is asked once more without streaming, the exchange records the plain request and says so,
    the run says so at the end, and a replay gives the same attempt."""
    from bench.reports.summary import summarize
    from bench.reports.terminal import render_summary

    for kind, base in (("openai", server.fault_url("nostream") + "/v1"),
                       ("anthropic", server.fault_url("nostream"))):  # fmt: skip
        seen = len(server.model_requests())
        run_dir, status = start_run(
            RunRequest(tasks=mini / "tasks", runs_dir=mini / "runs", split="public",
                       task_ids=TASKS,
                       target_file=target_file(f"nostream-{kind}", base, kind=kind, stream=True))
        )  # fmt: skip
        records = list(run_dir.attempts())
        assert [r.outcome for r in records] == ["scored", "scored"], [r.reason for r in records]
        exchanges = [e for r in records for e in r.trace.exchanges]
        for exchange in exchanges:
            raw = exchange.response["raw"]
            assert raw["warnings"] == ["stream_not_served"] and "stream" not in raw["request"]
        sent = [r.body.get("stream") for r in server.model_requests()[seen:]]
        # each call streamed once, then asked plainly once (the two tasks run side by side)
        assert sorted(sent, key=str) == [None] * len(exchanges) + [True] * len(exchanges)
        text = "\n".join(render_summary(summarize(run_dir)))
        assert (
            "endpoint warning: a streamed call came back empty (no event, or neither content nor "
            f"tool calls), so it was asked again without streaming in {len(exchanges)} of "
            f"{len(exchanges)}"
        ) in text
        replayed = _one(mini, replay=run_dir.run_id)
        assert replayed.outcome == "scored"


def test_an_empty_streamed_answer_is_asked_again_without_streaming(
    mini: Path, server: MockServer, target_file: Callable[..., Path]
) -> None:
    """A gateway (LiteLLM 1.105.7) relays the stream its server closed early as an empty answer
    with a finish reason: asked again without streaming; an empty plain answer stays the
    entrant's error."""
    base = server.fault_url("empty,times=1") + "/v1"
    record = _one(mini, target_file=target_file("empty-stream", base, stream=True))
    assert record.outcome == "scored", record.reason
    said = [e.response["raw"].get("warnings") for e in record.trace.exchanges]
    assert said[0] == ["stream_not_served"] and not any(said[1:])  # only the emptied call
    plain = _one(mini, target_file=target_file("empty-plain", server.fault_url("empty") + "/v1"))
    assert plain.outcome == "errored" and "ENTRANT_EMPTY_RESPONSE" in (plain.reason or "")
