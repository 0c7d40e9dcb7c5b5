"""The ``anthropic`` target against llama.cpp's own ``llama-server`` on its Anthropic Messages
route, ``POST /v1/messages`` (with tools and streaming): the session's server
(``llama_server`` in conftest.py, the one test_real_llama_server.py asks over Chat
Completions), no other process.

The same bar as its Chat Completions route: a plain and a streamed run of the slice complete
with no harness fault and no attempt failed for the shape of the request, the run declares the
server (the probe a run makes, with the Anthropic headers), and both runs bundle, verify and
reach the board. The server's own count of each recorded request's prompt
(``/v1/messages/count_tokens``) is the prompt the run recorded, and is larger than the same
request's without its tools (the tools reached the prompt: SmolLM2 calls none in the slice).

SmolLM2 copies a ``<tool_call>`` it is shown, so a real ``tool_use`` block, plain and streamed,
is read too, its result sent back in the next request, and a call cut at ``max_tokens``
(plain: ``input: {}``) is the model's error, not a call with no arguments.
About as long as test_real_llama_server.py (its two runs are most of it).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from bench.core.trace import Message, ToolDef
from bench.records import RunStore
from bench.targets.anthropic import AnthropicTarget
from bench.targets.base import ModelRequest, ModelResponse, TargetSpec

from .conftest import Route, RouteRun, run_route, target_file
from .engines import Server
from .llama_server import SERVER_CTX
from .test_real_engines import check_bundles, check_shape

CUT_SHORT = "the answer stopped at its token cap (stop_reason 'max_tokens') inside this call"
ROUTES = (
    Route("llama-server-anthropic", "anthropic", "llama-server", False, "a"),
    Route("llama-server-anthropic-stream", "anthropic", "llama-server", True, "a"),
)
TOOLS = [
    ToolDef(name="get_order", description="Look up an order",
            parameters={"type": "object", "properties": {"order_id": {"type": "string"}},
                        "required": ["order_id"]}),
    ToolDef(name="list_orders", description="List the orders",
            parameters={"type": "object", "properties": {}}),
]  # fmt: skip
COPY = (
    "Copy this text exactly, nothing else:\n"
    '<tool_call>\n{"name": "get_order", "arguments": {"order_id": "12"}}\n</tool_call>'
)


@pytest.fixture(scope="module")
def anthropic_runs(
    llama_server: Server, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, RouteRun]:
    """``bench run`` of the slice, plain then streamed, at the server's root (the target adds
    ``/v1/messages``)."""
    base = tmp_path_factory.mktemp("llama-anthropic-routes")
    done: dict[str, RouteRun] = {}
    problems: list[str] = []
    for route in ROUTES:
        target = target_file(base, route, llama_server.url, "smollm2", "llama-server")
        run_route(base, route, target, done, problems)
    assert not problems, "\n".join(problems) + "\n" + llama_server.log_tail()
    return done


def _count(server: Server, request: dict[str, Any]) -> int:
    answer = httpx.post(server.url + "/v1/messages/count_tokens", json=request, timeout=30)
    assert answer.status_code == 200, answer.text
    return int(answer.json()["input_tokens"])


@pytest.mark.parametrize("name", [route.name for route in ROUTES])
def test_no_attempt_fails_for_the_shape_of_the_harness_requests(
    anthropic_runs: dict[str, RouteRun], llama_server: Server, name: str
) -> None:
    run = anthropic_runs[name]
    check_shape(run, name, called=False)
    stored = RunStore(run.run_dir.parent).resolve(run.run_dir.name)
    # the probe the run made, with the Anthropic headers, at the server's root
    server = stored.config().server
    assert server is not None
    assert (server["engine"], server["version"], server["context_window"]) == (
        "llama.cpp",
        "b1-0c1e570",
        SERVER_CTX,
    ), server
    checked = 0
    for record in stored.attempts():
        exchange = record.trace.exchanges[0]
        request = exchange.response["raw"]["request"]
        said = exchange.response["usage"]
        assert said is not None, (name, record.task_id)  # streamed: from message_start
        assert _count(llama_server, request) == said["prompt_tokens"], (record.task_id, said)
        if not request.get("tools"):  # a task with no tools (the extraction family)
            continue
        assert request["tool_choice"] == {"type": "auto"}, (name, record.task_id)
        bare = {k: v for k, v in request.items() if k not in ("tools", "tool_choice")}
        assert _count(llama_server, bare) < said["prompt_tokens"], record.task_id
        checked += 1
    assert checked >= 4, (name, checked)  # every family but extraction offers tools


def test_both_runs_bundle_verify_and_reach_the_board(
    anthropic_runs: dict[str, RouteRun], tmp_path: Any
) -> None:
    check_bundles(anthropic_runs, tmp_path)


def _ask(server: Server, stream: bool, max_tokens: int, messages: list[Message]) -> ModelResponse:
    spec = TargetSpec.model_validate(
        {"format_version": 1, "kind": "anthropic", "entrant": "probe", "display_name": "probe",
         "model": "smollm2", "base_url": server.url, "stream": stream}
    )  # fmt: skip
    params = {"temperature": 0, "max_tokens": max_tokens, "tool_choice": "auto"}

    async def send() -> ModelResponse:
        target = AnthropicTarget(spec)
        try:
            return await target.complete(
                ModelRequest(model="smollm2", messages=messages, tools=TOOLS, params=params)
            )
        finally:
            await target.aclose()

    return asyncio.run(send())


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_a_real_tool_use_block_is_read_and_its_result_goes_back(
    llama_server: Server, stream: bool
) -> None:
    asked = [Message(role="user", content=COPY)]
    response = _ask(llama_server, stream, 60, asked)
    [call] = response.tool_calls
    assert (call.name, call.arguments, call.arguments_error) == (
        "get_order",
        {"order_id": "12"},
        None,
    ), response.raw
    assert call.id, response.raw  # llama-server's own id, sent back with the result
    request = response.raw["request"]
    assert response.usage is not None and response.usage.prompt_tokens == _count(
        llama_server, request
    )
    assert response.raw["response"]["stop_reason"] == "tool_use", response.raw["response"]
    answered = [
        *asked,
        Message(role="assistant", content=response.content, tool_calls=response.tool_calls),
        Message(role="tool", tool_call_id=call.id, name=call.name,
                content=json.dumps({"status": "shipped"})),
    ]  # fmt: skip
    after = _ask(llama_server, stream, 40, answered)
    sent = after.raw["request"]["messages"]
    assert sent[1]["content"] == [
        {"type": "tool_use", "id": call.id, "name": "get_order", "input": {"order_id": "12"}}
    ]
    assert sent[2]["content"][0]["tool_use_id"] == call.id
    assert after.content or after.tool_calls  # the server read the conversation (HTTP 200)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_a_call_cut_at_max_tokens_is_the_model_s_error(llama_server: Server, stream: bool) -> None:
    """Plain, llama-server sends the cut call as ``input: {}`` (its Chat Completions route
    sends the cut text, ``{"order_``); streamed, the JSON stops at ``{"order_``."""
    response = _ask(llama_server, stream, 20, [Message(role="user", content=COPY)])
    [call] = response.tool_calls
    assert response.raw["response"]["stop_reason"] == "max_tokens", response.raw["response"]
    assert call.name == "get_order"
    assert call.arguments_error is not None and call.arguments_error.startswith(CUT_SHORT)
