"""The ``openai`` target against real tool calls from llama.cpp's own ``llama-server`` on its
Chat Completions route, ``POST /v1/chat/completions``, plain and streamed: the session's
server (``llama_server`` in conftest.py), no other process.

SmolLM2 calls no tool in the shipped slice (test_real_llama_server.py), but it copies a
``<tool_call>`` it is shown in the user turn (not in a system prompt: too far from where it
writes), and the server, serving Qwen2.5's template with ``--jinja``, parses what it wrote
into ``tool_calls``. What the server streams, checked here on its raw bytes: a first chunk
``{"role": "assistant", "content": null}``; each call's ``id``, ``type`` and name only in its
first delta, with ``arguments: "{"``; then the arguments about a token a delta (``"``,
``order``, ``_``, ``id``, ...) under the call's ``index`` (0, then 1 for a second call in the
same answer) and nothing else; ``finish_reason: "tool_calls"`` on a chunk with an empty delta;
the usage (with ``prompt_tokens_details.cached_tokens``) on a last chunk of its own with
``choices: []``; then ``[DONE]``. The ids are random per request (32 letters and digits).

The harness must read from that exactly the calls the same server's own plain answer holds,
under the server's ids, send their results back under those ids, and a ``bench run`` of two
shipped tool-trajectory tasks whose user turn is such a copy instruction must run the calls
against the mock world, bundle, and ``bench verify`` valid against that task set (and be
refused against the shipped one). tests/targets/test_provider_streams.py replays the recorded
two-call stream on loopback. About 90 s once built.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from bench.core.trace import Message, ToolDef
from bench.records import RunStore
from bench.signing import public_line, signer_line
from bench.targets.base import ModelRequest, ModelResponse, TargetSpec
from bench.targets.openai import OpenAITarget
from bench.testing.keys import write_private_key

from .conftest import ENTRANT, TASKS, Route, bench, target_file
from .engines import Server

CUT_SHORT = "the answer stopped at its token cap (finish_reason 'length') inside this call"
TOOLS = [
    ToolDef(name="get_order", description="Look up an order",
            parameters={"type": "object", "properties": {"order_id": {"type": "string"}},
                        "required": ["order_id"]}),
    ToolDef(name="list_orders", description="List the orders",
            parameters={"type": "object", "properties": {}}),
]  # fmt: skip
ONE = [{"name": "get_order", "arguments": {"order_id": "12"}}]
TWO = [*ONE, {"name": "get_order", "arguments": {"order_id": "13"}}]
# two shipped tool-trajectory tasks, their user turn replaced by the calls to copy
COPIED = {
    "tool-pub-refund-delivered": [
        {"name": "get_order", "arguments": {"order_id": "58211"}},
        {"name": "issue_refund", "arguments": {"order_id": "58211", "amount": 64.6}},
    ],
    "tool-pub-cancel-or-redirect": [{"name": "get_order", "arguments": {"order_id": "58220"}}],
}
ROUTES = (
    Route("llama-server-tools", "openai", "llama-server", False, "a"),
    Route("llama-server-tools-stream", "openai", "llama-server", True, "a"),
)


def copy_prompt(calls: list[dict[str, Any]]) -> str:
    shown = "\n".join(f"<tool_call>\n{json.dumps(call)}\n</tool_call>" for call in calls)
    return "Copy this text exactly, nothing else:\n" + shown


def _wire_tools() -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": t.name, "description": t.description,
             "parameters": t.parameters}} for t in TOOLS]  # fmt: skip


def _raw(server: Server, calls: list[dict[str, Any]], stream: bool) -> httpx.Response:
    """The server's own answer to the copy prompt, by plain HTTP (no harness in between)."""
    body: dict[str, Any] = {
        "model": "smollm2",
        "messages": [{"role": "user", "content": copy_prompt(calls)}],
        "tools": _wire_tools(),
        "tool_choice": "auto",
        "temperature": 0,
        "max_tokens": 100,
    }
    if stream:
        body |= {"stream": True, "stream_options": {"include_usage": True}}
    answer = httpx.post(server.url + "/v1/chat/completions", json=body, timeout=120)
    assert answer.status_code == 200, answer.text
    return answer


def _events(text: str) -> list[Any]:
    data = [block.removeprefix("data: ") for block in text.split("\n\n") if block.strip()]
    assert data[-1] == "[DONE]", data[-3:]
    return [json.loads(item) for item in data[:-1]]


def test_what_llama_server_streams_for_two_tool_calls(llama_server: Server) -> None:
    """The bytes the harness meets, as described above (a change in the server says so)."""
    answer = _raw(llama_server, TWO, stream=True)
    assert answer.headers["content-type"] == "text/event-stream"
    events = _events(answer.text)
    assert events[0]["choices"][0]["delta"] == {"role": "assistant", "content": None}
    *deltas, finish, last = events[1:]
    pieces: dict[int, list[dict[str, Any]]] = {}
    for event in deltas:
        [choice] = event["choices"]
        assert choice["finish_reason"] is None and list(choice["delta"]) == ["tool_calls"]
        [part] = choice["delta"]["tool_calls"]
        pieces.setdefault(part["index"], []).append(part)
    assert sorted(pieces) == [0, 1]
    for index, parts in pieces.items():
        head, *rest = parts
        assert head["function"] == {"name": "get_order", "arguments": "{"}, head
        assert head["type"] == "function" and len(head["id"]) == 32 and head["id"].isalnum()
        assert all(set(part) == {"index", "function"} for part in rest), rest
        assert all(set(part["function"]) == {"arguments"} for part in rest), rest
        assert len(rest) >= 5  # the arguments a token or so at a time
        said = "".join(part["function"]["arguments"] for part in parts)
        assert json.loads(said) == TWO[index]["arguments"]
    assert pieces[0][0]["id"] != pieces[1][0]["id"]
    assert finish["choices"] == [{"finish_reason": "tool_calls", "index": 0, "delta": {}}]
    assert last["choices"] == [] and "usage" not in finish
    assert last["usage"]["prompt_tokens_details"]["cached_tokens"] >= 0, last["usage"]
    assert len({event["id"] for event in events}) == 1  # one completion id on every chunk


def _ask(server: Server, stream: bool, max_tokens: int, messages: list[Message]) -> ModelResponse:
    spec = TargetSpec.model_validate(
        {"format_version": 1, "kind": "openai", "entrant": "probe", "display_name": "probe",
         "model": "smollm2", "base_url": server.url + "/v1", "stream": stream}
    )  # fmt: skip
    params = {"temperature": 0, "max_tokens": max_tokens}

    async def send() -> ModelResponse:
        target = OpenAITarget(spec)
        try:
            return await target.complete(
                ModelRequest(model="smollm2", messages=messages, tools=TOOLS, params=params)
            )
        finally:
            await target.aclose()

    return asyncio.run(send())


@pytest.mark.parametrize("calls", [ONE, TWO], ids=["one-call", "two-calls"])
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_the_target_reads_the_calls_the_server_parsed_and_sends_their_results_back(
    llama_server: Server, stream: bool, calls: list[dict[str, Any]]
) -> None:
    """The calls read, plain or streamed, are the ones in the server's own plain answer (its
    ids are random per request, so: each call under the id this answer gave it), and their
    results go back under those ids in a request the server takes."""
    own = _raw(llama_server, calls, stream=False).json()
    said = own["choices"][0]["message"]["tool_calls"]
    asked = [Message(role="user", content=copy_prompt(calls))]
    response = _ask(llama_server, stream, 100, asked)
    read = [(c.name, c.arguments, c.arguments_error) for c in response.tool_calls]
    assert read == [
        (s["function"]["name"], json.loads(s["function"]["arguments"]), None) for s in said
    ], response.raw["response"]
    answered = response.raw["response"]["choices"][0]
    assert answered["finish_reason"] == "tool_calls"
    ids = [c.id for c in response.tool_calls]
    assert ids == [c["id"] for c in answered["message"]["tool_calls"]]
    assert len(set(ids)) == len(calls) and all(len(i) == 32 for i in ids)  # not call_<n>
    assert response.content == ""
    assert response.usage is not None
    assert response.usage.prompt_tokens == own["usage"]["prompt_tokens"]
    assert response.raw["request"].get("stream", False) is stream
    results = [
        Message(role="tool", tool_call_id=c.id, name=c.name,
                content=json.dumps({"status": "shipped"}))
        for c in response.tool_calls
    ]  # fmt: skip
    after = _ask(llama_server, stream, 40, [
        *asked, Message(role="assistant", content=response.content,
                        tool_calls=response.tool_calls), *results])  # fmt: skip
    sent = after.raw["request"]["messages"]
    assert [c["id"] for c in sent[1]["tool_calls"]] == ids
    assert [m["tool_call_id"] for m in sent[2:]] == ids
    assert after.content or after.tool_calls  # the server read the conversation (HTTP 200)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_a_call_cut_at_max_tokens_is_the_model_s_error(llama_server: Server, stream: bool) -> None:
    """Plain and streamed, the server sends the cut call's text, ``{"order_``, under
    ``finish_reason: "length"``: the model's error, not a call with no arguments."""
    response = _ask(llama_server, stream, 20, [Message(role="user", content=copy_prompt(ONE))])
    [call] = response.tool_calls
    assert response.raw["response"]["choices"][0]["finish_reason"] == "length"
    assert call.name == "get_order" and call.arguments == {}
    assert call.arguments_error is not None and call.arguments_error.startswith(CUT_SHORT)
    assert '{"order_' in call.arguments_error


def _copied_tasks(directory: Path) -> Path:
    """The shipped public tool-trajectory file with only the ``COPIED`` tasks, their user
    turn the copy instruction (everything else as shipped: tools, world, expectations)."""
    shipped = yaml.safe_load((TASKS / "tool-trajectory.public.yaml").read_text("utf-8"))
    tasks = [task for task in shipped["tasks"] if task["id"] in COPIED]
    assert len(tasks) == len(COPIED)
    for task in tasks:
        task["input"] = [{"role": "user", "content": copy_prompt(COPIED[task["id"]])}]
    directory.mkdir()
    out = directory / "tool-trajectory.public.yaml"
    out.write_text(yaml.safe_dump({**shipped, "tasks": tasks}, sort_keys=False), "utf-8")
    return directory


@pytest.fixture(scope="module")
def tool_runs(
    llama_server: Server, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[str, Path]]:
    """``bench run`` of the copied tasks, plain then streamed: the task set and each run."""
    base = tmp_path_factory.mktemp("llama-tool-routes")
    tasks = _copied_tasks(base / "tasks")
    runs: dict[str, Path] = {}
    for route in ROUTES:
        target = target_file(base, route, llama_server.url + "/v1", "smollm2", "llama-server")
        into = base / "runs" / route.name
        said = bench("run", "--tasks", str(tasks), "--target", str(target), "--split", "public",
                     "--concurrency", "1", "--timeout", "30", "--runs-dir", str(into))  # fmt: skip
        made = [p for p in into.glob("2*") if p.is_dir()]
        assert said.returncode == 0 and len(made) == 1, (
            said.stdout + said.stderr[-2000:] + llama_server.log_tail()
        )
        assert "status complete" in said.stdout, said.stdout
        runs[route.name] = made[0]
    return tasks, runs


@pytest.mark.parametrize("name", [route.name for route in ROUTES])
def test_a_run_records_the_calls_and_runs_them_against_the_mock_world(
    tool_runs: tuple[Path, dict[str, Path]], name: str
) -> None:
    run = tool_runs[1][name]
    records = {r.task_id: r for r in RunStore(run.parent).resolve(run.name).attempts()}
    assert sorted(records) == sorted(COPIED)
    for task_id, record in records.items():
        assert record.outcome == "scored", (task_id, record.outcome, record.reason)
        calls = record.trace.tool_calls
        assert [{"name": c.name, "arguments": c.arguments} for c in calls] == COPIED[task_id]
        assert all(c.error is None and c.result is not None for c in calls), calls
        first = record.trace.exchanges[0].response
        assert first["raw"]["response"]["choices"][0]["finish_reason"] == "tool_calls"
        assert first["raw"]["request"].get("stream", False) is name.endswith("-stream")
        assert first["usage"] is not None, (task_id, first["raw"]["response"])
        # the next request carries each result under the id the server gave its call
        sent = record.trace.exchanges[1].response["raw"]["request"]["messages"]
        assert [m["tool_call_id"] for m in sent if m["role"] == "tool"] == [c.id for c in calls]
    refund = records["tool-pub-refund-delivered"].trace.tool_calls
    assert refund[0].result["total"] == 64.6 and refund[1].result == {"status": "refund_pending"}
    # the copied calls are the ones the task asks for: it passes
    refunded = records["tool-pub-refund-delivered"]
    assert (refunded.value, refunded.passed) == (1.0, True), refunded.verdicts


def test_both_runs_bundle_and_verify(
    tool_runs: tuple[Path, dict[str, Path]], tmp_path: Path
) -> None:
    """``bench bundle`` and ``bench verify`` as a contributor runs them: valid against the
    task set the runs used, TASK_SET_MISMATCH against the shipped one."""
    tasks, runs = tool_runs
    results, submissions = tmp_path / "results", tmp_path / "submissions"
    submissions.mkdir()
    key = tmp_path / "keys" / ENTRANT
    signers = submissions / "allowed_signers"
    public = public_line(write_private_key(key).public_key())
    signers.write_text(signer_line(ENTRANT, public) + "\n")
    for name, run in sorted(runs.items()):
        made = bench("bundle", run.name, "--entrant", ENTRANT, "--key", str(key), "--out",
                     str(results), "--allowed-signers", str(signers), "--runs-dir",
                     str(run.parent))  # fmt: skip
        assert made.returncode == 0, (name, made.stdout, made.stderr)
        bundle = results / ENTRANT / run.name
        common = ["--results-root", str(results), "--allowed-signers", str(signers),
                  "--replay-sample", "2", "--seed", "7"]  # fmt: skip
        verdict = bench("verify", str(bundle), "--tasks", str(tasks), *common)
        assert verdict.returncode == 0, (name, verdict.stdout, verdict.stderr)
        shipped = bench("verify", str(bundle), "--tasks", str(TASKS), *common)
        assert shipped.returncode == 1 and "TASK_SET_MISMATCH" in shipped.stdout + shipped.stderr
