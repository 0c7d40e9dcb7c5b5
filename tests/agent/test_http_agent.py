"""The http-agent kind end to end: the example agent runs its own loop against the harness's
tool server, through ``start_run`` on the mini task set."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bench.core.budget import Budget
from bench.core.errors import EntrantError, InputError, UsageError
from bench.records import RunStore
from bench.runner import RunRequest, start_run
from bench.runner.agent import ToolServer, ToolSession
from bench.runner.attempt import TraceBuilder
from bench.runner.budget import Meter
from bench.targets import build_target, read_target_spec
from bench.targets.base import is_agent
from bench.tasks.load import load_task_set
from bench.testing.agent_server import AgentServer
from bench.world import World


@pytest.fixture
def agent() -> Iterator[AgentServer]:
    with AgentServer() as server:
        yield server


def target_file(mini: Path, url: str, name: str = "agent", **extra: object) -> Path:
    lines = [
        "format_version: 1",
        "kind: http-agent",
        f"entrant: mini-{name}",
        f"display_name: mini {name}",
        "model: example-agent",
        f"base_url: {url}",
        "pricing: {prompt_per_mtok: 1.0, completion_per_mtok: 2.0}",
        *(f"{key}: {json.dumps(value)}" for key, value in extra.items()),
    ]
    path = mini / "targets" / f"{name}.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def run(mini: Path, file: Path, **changes: object) -> object:
    values: dict[str, object] = {
        "tasks": mini / "tasks",
        "target_file": file,
        "runs_dir": mini / "runs",
        "split": "public",
    }
    values.update(changes)
    return start_run(RunRequest(**values))  # type: ignore[arg-type]


def by_task(run_dir: object) -> dict[str, object]:
    return {r.task_id: r for r in run_dir.attempts()}  # type: ignore[attr-defined]


def test_the_example_agent_is_scored_and_its_tool_calls_recorded(
    mini: Path, agent: AgentServer
) -> None:
    run_dir, status = run(mini, target_file(mini, agent.url))  # type: ignore[misc]
    assert status.status == "complete"
    records = by_task(run_dir)
    qa = records["qa-0001"]
    assert qa.outcome == "scored" and qa.value == 1.0
    [call] = qa.trace.tool_calls
    assert call.name == "search_docs"
    assert call.arguments == {"query": "How long do refunds take?"}
    assert call.result[0]["id"] == "faq.md#refunds" and call.error is None
    assert qa.trace.retrieved[0] == "faq.md#refunds"
    assert qa.trace.answer.endswith("[faq.md#refunds]")
    assert [m.role for m in qa.trace.messages] == ["user", "assistant", "tool", "assistant"]
    [exchange] = qa.trace.exchanges
    assert exchange.request["task_id"] == "qa-0001"
    assert exchange.request["tools_url"].endswith("/attempt/<token>")
    assert exchange.response["answer"] == qa.trace.answer
    assert qa.trace.usage_measured and qa.trace.cost_usd is not None
    tool = records["tool-0001"]
    assert [c.name for c in tool.trace.tool_calls] == ["get_order", "issue_refund"]
    assert tool.trace.tool_calls[0].arguments == {"order_id": "1041"}
    assert tool.trace.tool_calls[0].result == {"status": "delivered", "total": 30}
    assert tool.outcome == "scored"
    turns = agent.received()
    assert len(turns) == 3
    sent = next(t["body"] for t in turns if t["body"]["task_id"] == "qa-0001")
    assert sent["messages"] == [{"role": "user", "content": "How long do refunds take?"}]
    assert [t["name"] for t in sent["tools"]] == ["search_docs"]
    assert sent["tools_url"].startswith("http://127.0.0.1:")
    config = run_dir.config()  # type: ignore[attr-defined]
    assert config.target_kind == "http-agent"
    assert config.target["retry"]["max_attempts"] == 1


def test_an_agent_that_answers_nothing_is_errored(mini: Path, agent: AgentServer) -> None:
    run_dir, status = run(mini, target_file(mini, agent.url + "/empty"))  # type: ignore[misc]
    assert status.status == "complete"
    for record in run_dir.attempts():  # type: ignore[attr-defined]
        assert record.outcome == "errored"
        assert record.reason.startswith("AGENT_NO_ANSWER")
        assert record.value == 0.0
        assert record.trace.exchanges[0].response == {}


def test_an_unknown_tool_gets_an_error_result_and_unknown_keys_are_kept(
    mini: Path, agent: AgentServer
) -> None:
    run_dir, _ = run(mini, target_file(mini, agent.url + "/unknown-tool"))  # type: ignore[misc]
    qa = by_task(run_dir)["qa-0001"]
    first = qa.trace.tool_calls[0]
    assert first.name == "no_such_tool"
    assert first.error is not None and "unknown tool 'no_such_tool'" in first.error
    assert qa.outcome == "scored" and qa.value == 1.0
    response = qa.trace.exchanges[0].response
    assert response["agent_version"] == "example-1"
    assert "unknown tool" in response["steps"][0]["result"]["error"]  # what the agent saw


def test_malformed_arguments_are_recorded_as_refused(mini: Path, agent: AgentServer) -> None:
    run_dir, _ = run(mini, target_file(mini, agent.url + "/bad-args"))  # type: ignore[misc]
    qa = by_task(run_dir)["qa-0001"]
    refused = qa.trace.tool_calls[0]
    assert refused.arguments == {} and "not a JSON object" in (refused.error or "")
    assert qa.outcome == "scored"


def test_an_http_fault_is_errored_with_the_endpoint_code(mini: Path, agent: AgentServer) -> None:
    run_dir, _ = run(mini, target_file(mini, agent.url + "/fail"))  # type: ignore[misc]
    reasons = {r.reason for r in run_dir.attempts()}  # type: ignore[attr-defined]
    assert all(reason.startswith("ENDPOINT_SERVER_ERROR") for reason in reasons)
    assert len(agent.received()) == 3  # not retried: a retry would rerun the turn's tools


def test_a_tool_call_over_budget_ends_the_attempt(mini: Path, agent: AgentServer) -> None:
    file = target_file(mini, agent.url)
    run_dir, _ = run(mini, file, task_ids=("tool-0001",), task_budget=Budget(tool_calls=1))  # type: ignore[misc]
    [record] = run_dir.attempts()  # type: ignore[attr-defined]
    assert record.outcome == "over_budget" and record.exceeded == ["tool_calls"]
    assert [c.name for c in record.trace.tool_calls] == ["get_order"]  # the refund never ran


def test_unreachable_agent(mini: Path) -> None:
    with AgentServer() as gone:
        url = gone.url
    # Refused before anything is written (no request: it would run a turn) ...
    with pytest.raises(EntrantError) as refused:
        run(mini, target_file(mini, url), task_ids=("qa-0001",), wait_ready_s=0)
    assert refused.value.code == "ENDPOINT_UNREACHABLE" and not (mini / "runs").exists()
    # ... and an attempt that cannot connect (the live verifier checks nothing first) errs.
    run_dir, _ = run(  # type: ignore[misc]
        mini, target_file(mini, url), task_ids=("qa-0001",), require_connection=False
    )
    [record] = run_dir.attempts()  # type: ignore[attr-defined]
    assert record.outcome == "errored" and record.reason.startswith("ENDPOINT_UNREACHABLE")


def test_target_file_checks(mini: Path) -> None:
    spec = read_target_spec(target_file(mini, "http://127.0.0.1:9/agent"))
    target = build_target(spec, mini, mini / "t.yaml")
    assert is_agent(target) and spec.kind == "http-agent"
    asyncio.run(target.aclose())
    missing = mini / "targets" / "nourl.yaml"
    missing.write_text(
        "format_version: 1\nkind: http-agent\nentrant: x\ndisplay_name: x\nmodel: m\n"
    )
    with pytest.raises(InputError) as caught:
        build_target(read_target_spec(missing), mini, missing)
    assert caught.value.field == "base_url"
    streamed = target_file(mini, "http://127.0.0.1:9/", name="streamed", stream=True)
    with pytest.raises(InputError) as caught:
        read_target_spec(streamed)
    assert caught.value.field == "stream"
    keyed = target_file(mini, "http://127.0.0.1:9/", name="keyed", api_key_env="NO_SUCH_KEY_X")
    with pytest.raises(InputError) as caught:
        build_target(read_target_spec(keyed), mini, keyed, env={})
    assert caught.value.code == "TARGET_KEY_MISSING"


def test_an_agent_run_cannot_be_replayed(mini: Path, agent: AgentServer) -> None:
    run_dir, _ = run(mini, target_file(mini, agent.url), task_ids=("qa-0001",))  # type: ignore[misc]
    with pytest.raises(UsageError) as caught:
        start_run(
            RunRequest(
                tasks=mini / "tasks",
                replay=run_dir.run_id,  # type: ignore[attr-defined]
                runs_dir=mini / "runs",
            )
        )
    assert caught.value.code == "REPLAY_AGENT"
    assert len(RunStore(mini / "runs").runs()) == 1


def test_tool_server_routes(mini: Path) -> None:
    task = load_task_set(mini / "tasks").by_id()["tool-0001"]

    async def scenario() -> list[tuple[int, object]]:
        server = await ToolServer().start()
        session = ToolSession(World(task, None), TraceBuilder(), Meter(Budget(tool_calls=1)))
        token, url = server.open(session)
        out: list[tuple[int, object]] = []
        try:
            async with httpx.AsyncClient(trust_env=False) as client:
                listed = await client.get(f"{url}/tools")
                out.append((listed.status_code, [t["name"] for t in listed.json()]))
                for path, body in (
                    ("/tools/get_order", {"order_id": "1041"}),
                    ("/tools/get_order", {"order_id": "1041"}),  # over the 1-call budget
                ):
                    reply = await client.post(url + path, json=body)
                    out.append((reply.status_code, reply.json()))
                server.release(token)
                gone = await client.post(f"{url}/tools/get_order", json={})
                out.append((gone.status_code, gone.json()))
                wrong = await client.post(f"http://127.0.0.1:{server.port}/nope", json={})
                out.append((wrong.status_code, None))
        finally:
            await server.aclose()
        assert session.failure is not None and session.stopped.is_set()
        return out

    out = asyncio.run(scenario())
    assert out[0] == (200, ["get_order", "issue_refund"])
    assert out[1] == (200, {"status": "delivered", "total": 30})
    assert out[2][0] == 409 and "tool calls 2 > 1" in json.dumps(out[2][1])
    assert out[3][0] == 404
    assert out[4][0] == 404
