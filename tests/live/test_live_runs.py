"""Whole runs through ``bench.runner.start_run``: the real client, the real mock server, the
mini task set. The harness drives the tool loop; the endpoint only answers one call at a time."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench.records.run import AttemptRecord
from bench.reports import summarize
from bench.runner import RunRequest, start_run
from bench.testing.mock_server import MockServer


def run(mini: Path, target: Path, **changes: Any) -> tuple[Any, Any]:
    values: dict[str, Any] = {
        "tasks": mini / "tasks",
        "target_file": target,
        "runs_dir": mini / "runs",
        "split": "public",
    }
    values.update(changes)
    return start_run(RunRequest(**values))


def by_task(run_dir: Any) -> dict[str, AttemptRecord]:
    return {record.task_id: record for record in run_dir.attempts()}


def content(record: AttemptRecord) -> dict[str, Any]:
    """What a trace says happened, without timings or transport details."""
    trace = record.trace
    return {
        "messages": [m.model_dump(mode="json") for m in trace.messages],
        "tool_calls": [c.model_dump(mode="json") for c in trace.tool_calls],
        "answers": trace.answers,
        "usage": trace.usage.model_dump(mode="json"),
        "retrieved": trace.retrieved,
        "requests": [e.request for e in trace.exchanges],
        "replies": [{k: v for k, v in e.response.items() if k != "raw"} for e in trace.exchanges],
        "outcome": record.outcome,
        "value": record.value,
    }


def test_the_tool_loop_runs_end_to_end(
    mini: Path, server: MockServer, target_file: Callable[..., Path]
) -> None:
    target = target_file("plain", server.url + "/v1")
    run_dir, status = run(mini, target)
    assert status.status == "complete"
    records = by_task(run_dir)
    assert {r.outcome for r in records.values()} == {"scored"}
    qa = records["qa-0001"]
    [call] = qa.trace.tool_calls
    assert (call.name, call.arguments) == ("search_docs", {"query": "How long do refunds take?"})
    assert qa.trace.retrieved[0] == "faq.md#refunds"
    assert qa.trace.answer.endswith("[faq.md#refunds]")
    assert qa.value == 1.0
    refund = records["tool-0001"]
    assert [c.name for c in refund.trace.tool_calls] == ["get_order", "issue_refund"]
    assert refund.trace.tool_calls[0].arguments == {"order_id": "1041"}
    # Each exchange carries the raw request and response bodies, never a header.
    last = refund.trace.exchanges[-1]
    raw = last.response["raw"]
    assert raw["status"] == 200 and raw["path"] == "/chat/completions"
    sent = raw["request"]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "assistant", "tool"]
    assert sent[1]["tool_calls"][0]["function"]["name"] == "get_order"
    assert sent[2]["tool_call_id"] == sent[1]["tool_calls"][0]["id"]
    assert raw["request"]["tools"][0]["type"] == "function"
    assert raw["response"]["choices"][0]["message"]["reasoning_content"].startswith("Policy:")
    assert "authorization" not in json.dumps(raw).lower()
    # Tokens were reported, so cost is measured.
    assert qa.trace.usage_measured and qa.trace.cost_usd is not None
    summary = summarize(run_dir)
    assert summary.outcomes == {"scored": 3}


def test_streaming_and_not_streaming_give_the_same_trace(
    mini: Path, server: MockServer, target_file: Callable[..., Path]
) -> None:
    plain, _ = run(mini, target_file("plain", server.url + "/v1"))
    streamed, _ = run(mini, target_file("streamed", server.url + "/v1", stream=True))
    a, b = by_task(plain), by_task(streamed)
    assert a.keys() == b.keys()
    for task_id in a:
        assert content(a[task_id]) == content(b[task_id]), task_id
    first = b["qa-0001"].trace.exchanges[0].response["raw"]
    assert first["request"]["stream"] is True
    assert first["request"]["stream_options"] == {"include_usage": True}
    assert first["stream_events"] > 1 and "events" not in first  # counted, not copied
    assert "stream" not in a["qa-0001"].trace.exchanges[0].response["raw"]["request"]


def test_usage_and_cached_tokens_are_read_from_the_endpoint(
    mini: Path, server: MockServer, target_file: Callable[..., Path]
) -> None:
    for name, streamed in (("plain", False), ("streamed", True)):
        run_dir, _ = run(
            mini, target_file(name, server.url + "/v1", stream=streamed), task_ids=("tool-0001",)
        )
        [record] = run_dir.attempts()
        exchanges = record.trace.exchanges
        assert len(exchanges) == 3
        for exchange in exchanges:
            reported = exchange.response["raw"]["response"]["usage"]
            assert exchange.usage is not None
            assert exchange.usage.prompt_tokens == reported["prompt_tokens"]
            assert exchange.usage.completion_tokens == reported["completion_tokens"]
            assert (
                exchange.usage.cached_tokens == reported["prompt_tokens_details"]["cached_tokens"]
            )
        assert exchanges[0].usage is not None and exchanges[0].usage.cached_tokens == 0
        assert exchanges[1].usage is not None and exchanges[1].usage.cached_tokens > 0
        total = record.trace.usage
        assert total.cached_tokens == sum(e.usage.cached_tokens for e in exchanges if e.usage)
        # Cached tokens are billed at the cached rate (here the prompt rate: none given).
        assert record.trace.cost_usd == pytest.approx(
            (total.prompt_tokens * 1.0 + total.completion_tokens * 2.0) / 1e6
        )


@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
def test_the_anthropic_kind_runs_the_same_loop(
    mini: Path, server: MockServer, target_file: Callable[..., Path], streamed: bool
) -> None:
    target = target_file(
        "claude",
        server.url,
        kind="anthropic",
        stream=streamed,
        system_prompt="Answer from the documents.",
        params={"temperature": 0, "max_tokens": 256},
    )
    run_dir, status = run(mini, target)
    assert status.status == "complete"
    records = by_task(run_dir)
    assert {r.outcome for r in records.values()} == {"scored"}
    assert records["qa-0001"].value == 1.0
    assert [c.name for c in records["tool-0001"].trace.tool_calls] == ["get_order", "issue_refund"]
    raw = records["tool-0001"].trace.exchanges[-1].response["raw"]
    body = raw["request"]
    assert raw["path"] == "/v1/messages"
    assert body["system"] == "Answer from the documents."
    assert body["max_tokens"] == 256
    assert [m["role"] for m in body["messages"]] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    assert body["messages"][1]["content"][0]["type"] == "tool_use"
    result = body["messages"][2]["content"][0]
    assert result["type"] == "tool_result"
    assert result["tool_use_id"] == body["messages"][1]["content"][0]["id"]
    usage = records["tool-0001"].trace.exchanges[1].usage
    reported = records["tool-0001"].trace.exchanges[1].response["raw"]["response"]["usage"]
    assert usage is not None
    assert usage.cached_tokens == reported["cache_read_input_tokens"] > 0
    assert usage.prompt_tokens == reported["input_tokens"] + reported["cache_read_input_tokens"]
    seen = server.requests("/v1/messages")
    assert seen and all(r.headers.get("anthropic-version") == "2023-06-01" for r in seen)


def test_parallel_tool_calls_come_back_in_order(
    mini: Path, server: MockServer, target_file: Callable[..., Path]
) -> None:
    target = target_file("parallel", server.url + "/v1", model="bench-mock-parallel", stream=True)
    run_dir, _ = run(mini, target, task_ids=("tool-0001",))
    [record] = run_dir.attempts()
    first = record.trace.exchanges[0].response
    assert [c["name"] for c in first["tool_calls"]] == ["get_order", "issue_refund"]
    assert len({c["id"] for c in first["tool_calls"]}) == 2
    assert [c.name for c in record.trace.tool_calls] == ["get_order", "issue_refund"]
    assert len(record.trace.exchanges) == 2


def test_forced_tool_choice_reaches_the_endpoint(
    mini: Path, server: MockServer, target_file: Callable[..., Path]
) -> None:
    target = target_file("none", server.url + "/v1", tool_choice="none")
    run_dir, _ = run(mini, target, task_ids=("qa-0001",))
    [record] = run_dir.attempts()
    assert record.trace.exchanges[0].request["params"]["tool_choice"] == "none"
    assert record.trace.exchanges[0].response["raw"]["request"]["tool_choice"] == "none"
    assert record.trace.tool_calls == []
    assert record.trace.answer == "You asked: How long do refunds take?"


def test_a_recorded_live_run_replays_offline(mini: Path, target_file: Callable[..., Path]) -> None:
    with MockServer(max_seconds=60) as live:
        target = target_file("recorded", live.url + "/v1", stream=True)
        recorded, _ = run(mini, target, repeats=2)
    # The server is gone: only the cassette can answer now.
    replayed, status = run(mini, None, replay=str(recorded.path), repeats=2)
    assert status.status == "complete"
    assert replayed.config().target_kind == "cassette"
    original = {r.key: r for r in recorded.attempts()}
    again = {r.key: r for r in replayed.attempts()}
    assert original.keys() == again.keys()
    for key in original:
        assert again[key].trace.answers == original[key].trace.answers
        assert again[key].value == original[key].value
        assert again[key].outcome == original[key].outcome


def test_the_api_key_is_written_nowhere(
    mini: Path, target_file: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-live-test-7f3a9c2e41d8b6"
    wrong = "sk-wrong-key-0b5e8d1f9a"
    monkeypatch.setenv("BENCH_LIVE_KEY", key)
    monkeypatch.setenv("BENCH_LIVE_WRONG_KEY", wrong)
    with MockServer(api_key=key, max_seconds=60) as live:
        good = target_file("keyed", live.url + "/v1", api_key_env="BENCH_LIVE_KEY")
        run_dir, status = run(mini, good)
        assert status.status == "complete"
        assert {r.outcome for r in run_dir.attempts()} == {"scored"}
        sent = live.requests("/chat/completions")
        assert sent and all(r.headers["authorization"] == f"Bearer {key}" for r in sent)
        # A wrong key: the server echoes it back in its 401 message; it is scrubbed.
        bad = target_file("wrong", live.url + "/v1", api_key_env="BENCH_LIVE_WRONG_KEY")
        failed, _ = run(mini, bad, task_ids=("qa-0001",))
        [record] = failed.attempts()
        assert record.outcome == "errored"
        assert record.reason is not None
        assert record.reason.startswith("ENDPOINT_AUTH: HTTP 401: Incorrect API key provided:")
        assert "[redacted]" in record.reason
    files = [p for p in (mini / "runs").rglob("*") if p.is_file()]
    assert len(files) > 5
    for path in files:
        data = path.read_bytes()
        assert key.encode() not in data, path
        assert wrong.encode() not in data, path
