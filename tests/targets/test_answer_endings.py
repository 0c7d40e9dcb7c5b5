"""How an answer ended, as real servers say it: cut by the token limit or the context window,
paused, or stopped by the provider's filter. Served for real on 127.0.0.1, by the mock
server's ``length`` and ``filtered`` faults and byte for byte from the providers' documented
shapes, through a whole ``bench run`` (docs/TARGETS.md, DECISIONS 56).

A cut answer is the model's as far as it got, scored, and asked once. A filtered one was
scored as the model's answer (the text before Azure's filter or Anthropic's classifier stepped
in) and an empty filtered stream was asked again unstreamed; now it is ``ENDPOINT_FILTERED``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from bench.core.errors import EntrantError
from bench.core.trace import Message, ToolDef
from bench.runner import RunRequest, start_run
from bench.targets import ModelRequest, ModelResponse, TargetSpec, build_target
from bench.testing.mock_server import MockServer

from .test_provider_streams import Engine, serving

ASKED = ModelRequest(
    model="bench-mock",
    messages=[Message(role="user", content="How long do refunds take?")],
)
WITH_TOOL = ASKED.model_copy(
    update={
        "tools": [
            ToolDef(
                name="get_weather",
                parameters={"type": "object", "properties": {"city": {"type": "string"}}},
            )
        ]
    }
)
FAST: dict[str, Any] = {
    "retry": {"max_attempts": 3, "base_s": 0.01, "cap_s": 0.02, "seed": 1},
    "timeouts": {"connect_s": 2, "read_s": 5, "request_s": 5, "deadline_s": 10},
}


def _spec(kind: str, url: str, stream: bool) -> TargetSpec:
    return TargetSpec.model_validate(
        {
            "kind": kind,
            "entrant": "endings",
            "display_name": "endings",
            "model": "bench-mock",
            "base_url": url + ("/v1" if kind == "openai" else ""),
            "stream": stream,
            **FAST,
        }
    )


def _complete(spec: TargetSpec, request: ModelRequest = ASKED) -> ModelResponse:
    async def go() -> ModelResponse:
        target = build_target(spec, Path("."), Path("endings.yaml"), env={})
        try:
            return await target.complete(request)
        finally:
            await target.aclose()

    return asyncio.run(go())


def _failing(spec: TargetSpec, request: ModelRequest = ASKED) -> EntrantError:
    with pytest.raises(EntrantError) as caught:
        _complete(spec, request)
    return caught.value


BOTH = pytest.mark.parametrize(
    ("kind", "stream"),
    [("openai", False), ("openai", True), ("anthropic", False), ("anthropic", True)],
    ids=["openai-plain", "openai-streamed", "anthropic-plain", "anthropic-streamed"],
)


@BOTH
def test_an_answer_cut_by_the_token_limit_is_the_models_as_far_as_it_got(
    kind: str, stream: bool
) -> None:
    """The cap is the submitter's own setting: running into it is the model's failure, scored,
    not an error of its endpoint, and not asked again."""
    with MockServer(max_seconds=60) as server:
        whole = _complete(_spec(kind, server.url, stream)).content
        cut = _complete(_spec(kind, server.fault_url("length"), stream)).content
        assert len(server.model_requests()) == 2
    assert cut and whole.startswith(cut) and len(cut) < len(whole), (cut, whole)


@BOTH
def test_a_tool_call_cut_by_the_token_limit_is_asked_once(kind: str, stream: bool) -> None:
    """Half a call's arguments (the mock cuts the JSON in two) is asked once; what is left is
    the model's (a malformed call, told to the model as any other)."""
    with MockServer(max_seconds=60) as server:
        try:
            _complete(_spec(kind, server.fault_url("length"), stream), WITH_TOOL)
        except EntrantError as error:
            assert error.code != "ENTRANT_TRUNCATED", error
        assert len(server.model_requests()) == 1


@BOTH
def test_an_answer_the_providers_filter_stopped_is_not_the_models(kind: str, stream: bool) -> None:
    with MockServer(max_seconds=60) as server:
        error = _failing(_spec(kind, server.fault_url("filtered"), stream))
        assert len(server.model_requests()) == 1
    assert error.code == "ENDPOINT_FILTERED", error
    if kind == "openai":  # Azure's content_filter_results name what was flagged
        assert "'content_filter': violence (medium))" in str(error), error
    else:
        assert "'refusal'" in str(error) and "safety classifier" in str(error), error


def test_an_answer_that_ended_on_its_own_is_still_scored() -> None:
    with MockServer(max_seconds=60) as server:
        for kind in ("openai", "anthropic"):
            for stream in (False, True):
                assert _complete(_spec(kind, server.url, stream)).content


# --- byte for byte, as the providers document them ------------------------------------------


def _reply(status: int, body: bytes, content_type: str = "application/json") -> bytes:
    head = f"HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}"
    return (head + "\r\n\r\n").encode() + body


def _events(*events: dict[str, Any]) -> bytes:
    return b"".join(
        b"event: %s\ndata: %s\n\n" % (str(e["type"]).encode(), json.dumps(e).encode())
        for e in events
    )


def _served(
    response: bytes | list[bytes], kind: str, stream: bool, request: ModelRequest = ASKED
) -> Any:
    """``(answer or error, requests)`` of one call to a server that sends ``response`` (or
    each of a list in turn)."""
    responses = response if isinstance(response, list) else [response]

    async def go() -> tuple[ModelResponse | EntrantError, int]:
        async with serving(Engine(responses)) as server:
            target = build_target(
                _spec(kind, server.url, stream), Path("."), Path("x.yaml"), env={}
            )
            try:
                return await target.complete(request), len(server.bodies)
            except EntrantError as exc:
                return exc, len(server.bodies)
            finally:
                await target.aclose()

    return asyncio.run(go())


def _message(stop: str, *content: dict[str, Any]) -> bytes:
    return json.dumps(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude",
            "content": list(content),
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 12, "output_tokens": 3},
        }
    ).encode()


def test_anthropic_refusal_is_the_providers_stop() -> None:
    """docs.claude.com, "Streaming refusals": Claude 4's streaming classifiers stop the answer
    after "Hello.." with no refusal message of their own."""
    body = _message("refusal", {"type": "text", "text": "Hello.."})
    error, requests = _served(_reply(200, body), "anthropic", False, WITH_TOOL)
    assert isinstance(error, EntrantError) and error.code == "ENDPOINT_FILTERED", error
    assert "refusal" in str(error) and requests == 1


@pytest.mark.parametrize(
    ("body", "text"),
    [
        # "Handling stop reasons": the context window filled (Sonnet 4.5 and later).
        (_message("model_context_window_exceeded", {"type": "text", "text": "The ans"}), "The ans"),
        # A server tool ran long: the turn is paused (the harness runs no server tools).
        (
            _message(
                "pause_turn",
                {"type": "text", "text": "Let me search."},
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
            ),
            "Let me search.",
        ),
    ],
    ids=["context-window", "pause-turn"],
)
def test_anthropic_answers_cut_short_are_the_models_as_far_as_they_got(
    body: bytes, text: str
) -> None:
    answer, requests = _served(_reply(200, body), "anthropic", False, WITH_TOOL)
    assert isinstance(answer, ModelResponse) and answer.content == text, answer
    assert requests == 1


def test_anthropic_streamed_refusal_after_text() -> None:
    """The docs' shape, streamed: text deltas, then ``stop_reason: refusal`` in message_delta."""
    stream = _events(
        {
            "type": "message_start",
            "message": {"id": "m", "type": "message", "role": "assistant", "content": []},
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "Hello.."},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "refusal"},
            "usage": {"output_tokens": 3},
        },
        {"type": "message_stop"},
    )
    error, requests = _served(_reply(200, stream, "text/event-stream"), "anthropic", True)
    assert isinstance(error, EntrantError) and error.code == "ENDPOINT_FILTERED", error
    assert "after 7 characters of text" in str(error) and requests == 1


def _chunk(delta: dict[str, Any], finish: str | None = None, **choice: Any) -> bytes:
    data = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish, **choice}],
    }
    return b"data: " + json.dumps(data).encode() + b"\n\n"


def test_vllm_tool_call_cut_by_max_tokens_streamed() -> None:
    """vLLM's streamed tool call when ``max_tokens`` runs out inside the arguments: the
    arguments stop mid-string and the last chunk says ``length``. The call is the model's,
    malformed (its arguments do not parse), and asked once."""
    call = {"index": 0, "id": "chatcmpl-tool-1", "type": "function"}
    stream = (
        _chunk({"role": "assistant", "content": ""})
        + _chunk({"tool_calls": [{**call, "function": {"name": "get_weather", "arguments": ""}}]})
        + _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": "Par'}}]})
        + _chunk({}, "length")
        + b"data: [DONE]\n\n"
    )
    answer, requests = _served(_reply(200, stream, "text/event-stream"), "openai", True, WITH_TOOL)
    assert isinstance(answer, ModelResponse), answer
    [cut] = answer.tool_calls
    assert cut.name == "get_weather" and cut.arguments_error, cut
    assert requests == 1


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_a_call_cut_by_the_cap_is_not_run_even_when_its_arguments_parse(stream: bool) -> None:
    """The cap can cut a call where its arguments still parse (``{"city": "Paris"}`` of a
    ``{"city": "Paris", "units": …}`` the model was writing). With ``finish_reason:
    "length"`` the last call is the model's malformed call, as on the Anthropic route
    (``stop_reason: "max_tokens"``). Was: run as a whole call."""
    arguments = '{"city": "Paris"}'
    if stream:
        call = {"index": 0, "id": "call_1", "type": "function"}
        body = (
            _chunk({"role": "assistant", "content": ""})
            + _chunk({"tool_calls": [{**call, "function": {"name": "get_weather"}}]})
            + _chunk({"tool_calls": [{"index": 0, "function": {"arguments": arguments}}]})
            + _chunk({}, "length")
            + b"data: [DONE]\n\n"
        )
        reply = _reply(200, body, "text/event-stream")
    else:
        function = {"name": "get_weather", "arguments": arguments}
        called = {"id": "call_1", "type": "function", "function": function}
        message = {"role": "assistant", "content": None, "tool_calls": [called]}
        data = {"choices": [{"index": 0, "message": message, "finish_reason": "length"}]}
        reply = _reply(200, json.dumps(data).encode(), "application/json")
    answer, requests = _served(reply, "openai", stream, WITH_TOOL)
    assert isinstance(answer, ModelResponse), answer
    [cut] = answer.tool_calls
    assert cut.name == "get_weather" and cut.arguments == {"city": "Paris"}
    assert cut.arguments_error is not None
    assert cut.arguments_error.startswith("the answer stopped at its token cap (finish_reason")
    assert requests == 1


def test_vllm_engine_abort_is_a_stream_error_and_asked_again() -> None:
    """vLLM (vllm-project/vllm#57082) ends a stream the engine aborted (shutdown, a sleep-mode
    pause, scale-down) with ``finish_reason: "abort"`` and then ``[DONE]``, as if whole. The
    server's failure, not the model's answer: retried like any stream error. Was: the text
    before the abort scored as the whole answer."""
    aborted = (
        _chunk({"role": "assistant", "content": "Refunds take"})
        + _chunk({}, "abort")
        + b"data: [DONE]\n\n"
    )
    whole = _chunk({"content": "Refunds take 14 days."}) + _chunk({}, "stop") + b"data: [DONE]\n\n"
    answer, requests = _served(
        [_reply(200, aborted, "text/event-stream"), _reply(200, whole, "text/event-stream")],
        "openai",
        True,
    )
    assert isinstance(answer, ModelResponse), answer
    assert answer.content == "Refunds take 14 days." and requests == 2
    assert answer.raw is not None
    assert answer.raw["attempts"][0]["code"] == "ENDPOINT_STREAM_ERROR"
    assert "'abort'" in answer.raw["attempts"][0]["error"]


def test_azure_streamed_content_filter_with_nothing_before_it_is_not_asked_again() -> None:
    """Azure OpenAI: the generation is filtered at once, the last chunk says
    ``content_filter`` with what was flagged. Was: an empty stream, asked again unstreamed
    (``stream_not_served``), a second paid request the filter stops too."""
    flagged = {"self_harm": {"filtered": True, "severity": "high"}}
    stream = (
        _chunk({"role": "assistant", "content": ""})
        + _chunk({}, "content_filter", content_filter_results=flagged)
        + b"data: [DONE]\n\n"
    )
    error, requests = _served(_reply(200, stream, "text/event-stream"), "openai", True)
    assert isinstance(error, EntrantError) and error.code == "ENDPOINT_FILTERED", error
    assert "self_harm (high)" in str(error) and requests == 1


def test_azure_prompt_refused_by_its_filter_is_filtered_and_not_retried() -> None:
    """Azure OpenAI's HTTP 400 when the prompt trips its filter (``code: content_filter``,
    ``innererror.code: ResponsibleAIPolicyViolation``). Was: ``ENDPOINT_REJECTED``, as if
    the request were malformed."""
    body = {
        "error": {
            "message": "The response was filtered due to the prompt triggering Azure OpenAI's "
            "content management policy. Please modify your prompt and retry.",
            "type": None,
            "param": "prompt",
            "code": "content_filter",
            "status": 400,
            "innererror": {
                "code": "ResponsibleAIPolicyViolation",
                "content_filter_result": {"jailbreak": {"filtered": True, "detected": True}},
            },
        }
    }
    error, requests = _served(_reply(400, json.dumps(body).encode()), "openai", False)
    assert isinstance(error, EntrantError) and error.code == "ENDPOINT_FILTERED", error
    assert "content management policy" in str(error) and requests == 1


def test_a_400_that_is_not_a_filter_is_still_rejected() -> None:
    """vLLM's context-length 400 (``{"object": "error", ...}``) keeps its own words."""
    body = {
        "object": "error",
        "message": "This model's maximum context length is 4096 tokens. However, you requested "
        "5000 tokens (4000 in the messages, 1000 in the completion).",
        "type": "BadRequestError",
        "param": None,
        "code": 400,
    }
    error, requests = _served(_reply(400, json.dumps(body).encode()), "openai", False)
    assert isinstance(error, EntrantError) and error.code == "ENDPOINT_REJECTED", error
    assert "maximum context length is 4096 tokens" in str(error) and requests == 1


# --- a whole run ------------------------------------------------------------------------------


@pytest.mark.parametrize("fault", ["filtered"])
def test_a_run_records_a_filtered_answer_as_errored(mini: Path, fault: str) -> None:
    with MockServer(max_seconds=60) as server:
        target = mini / "targets" / f"{fault}.yaml"
        target.write_text(
            yaml.safe_dump(
                {
                    "format_version": 1,
                    "kind": "openai",
                    "entrant": f"ends-{fault}",
                    "display_name": fault,
                    "model": "bench-mock",
                    "base_url": server.fault_url(fault) + "/v1",
                    "stream": True,
                    **FAST,
                }
            ),
            encoding="utf-8",
        )
        run_dir, status = start_run(
            RunRequest(
                tasks=mini / "tasks",
                target_file=target,
                runs_dir=mini / "runs",
                split="public",
                task_ids=("qa-0001",),
            )
        )
        assert len(server.model_requests()) == 1
    (record,) = list(run_dir.attempts())
    code = "ENDPOINT_FILTERED"
    assert status.status == "complete" and record.outcome == "errored", record.reason
    assert code in (record.reason or "") and not record.trace.answers
    (exchange,) = record.trace.exchanges
    assert exchange.response["error"]["code"] == code
