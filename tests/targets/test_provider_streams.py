"""Hosted APIs and inference servers as they answer, served byte for byte on loopback.

Each fixture says where its bytes come from: the server's documentation, or a stream recorded
in a public issue or test suite. The first group broke the harness (a wrong trace, lost usage or
a needless failure) and is fixed; the second group pins shapes it already read right, so they
stay read right. Complements ``test_engine_streams.py`` (parallel calls at index 0, in-stream
errors) and ``test_wire.py`` (framing)."""

from __future__ import annotations

import asyncio
import gzip
import json
import zlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from bench.core.errors import EntrantError
from bench.core.trace import Message, ToolDef
from bench.targets import ModelRequest, ModelResponse, TargetSpec, build_target
from bench.targets.base import split_think

REQUEST = ModelRequest(
    model="engine",
    messages=[Message(role="user", content="Weather in Paris?")],
    tools=[
        ToolDef(
            name="get_weather",
            parameters={"type": "object", "properties": {"city": {"type": "string"}}},
        )
    ],
)
SSE = "text/event-stream"
JSON = "application/json"


def reply(body: bytes, content_type: str = SSE, *headers: str, version: str = "HTTP/1.1") -> bytes:
    """A whole response framed by Content-Length (``headers`` may replace the framing)."""
    head = [f"{version} 200 OK", f"Content-Type: {content_type}", *headers]
    framed = any(h.lower().startswith(("content-length", "transfer-encoding")) for h in headers)
    closes = version == "HTTP/1.0" and not any(h.lower().startswith("connection") for h in headers)
    if not framed and not closes:
        head.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def chunked(body: bytes, *, size: int = 7, trailers: bytes = b"") -> bytes:
    out = b"".join(
        b"%x\r\n%b\r\n" % (len(body[i : i + size]), body[i : i + size])
        for i in range(0, len(body), size)
    )
    return out + b"0\r\n" + trailers + b"\r\n"


class Engine:
    """Answers the n-th request with ``responses[n]`` (the last one repeats), written as is;
    closes the connection after a response that has neither Content-Length nor chunking."""

    def __init__(self, responses: list[bytes]) -> None:
        self.responses = responses
        self.bodies: list[dict[str, Any]] = []
        self.url = ""

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                self.bodies.append(json.loads(await reader.readexactly(length)))
                response = self.responses[min(len(self.bodies), len(self.responses)) - 1]
                writer.write(response)
                await writer.drain()
                framing = response.split(b"\r\n\r\n", 1)[0].lower()
                if b"content-length" not in framing and b"chunked" not in framing:
                    break
                if b"connection: close" in framing:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@asynccontextmanager
async def serving(engine: Engine) -> AsyncIterator[Engine]:
    listener = await asyncio.start_server(engine.handle, "127.0.0.1", 0)
    engine.url = f"http://127.0.0.1:{listener.sockets[0].getsockname()[1]}"
    try:
        yield engine
    finally:
        listener.close()
        await listener.wait_closed()


def complete(
    responses: list[bytes], kind: str = "openai", *, stream: bool = True
) -> tuple[ModelResponse, Engine]:
    async def go() -> tuple[ModelResponse, Engine]:
        async with serving(Engine(responses)) as engine:
            spec = TargetSpec.model_validate(
                {
                    "kind": kind,
                    "entrant": "engine",
                    "display_name": "engine",
                    "model": "engine",
                    "base_url": engine.url + ("/v1" if kind == "openai" else ""),
                    "stream": stream,
                    "retry": {"max_attempts": 2, "base_s": 0.01, "cap_s": 0.02, "seed": 1},
                    "timeouts": {"connect_s": 2, "read_s": 5, "request_s": 5, "deadline_s": 10},
                }
            )
            target = build_target(spec, Path("."), Path("engine.yaml"), env={})
            try:
                return await target.complete(REQUEST), engine
            finally:
                await target.aclose()

    return asyncio.run(go())


def failing(responses: list[bytes], kind: str = "openai", *, stream: bool = True) -> EntrantError:
    with pytest.raises(EntrantError) as caught:
        complete(responses, kind, stream=stream)
    return caught.value


def sse(*events: Any, done: bool = True, sep: bytes = b"\n\n") -> bytes:
    body = b"".join(b"data: " + json.dumps(e).encode() + sep for e in events)
    return body + (b"data: [DONE]" + sep if done else b"")


def anthropic_sse(*events: dict[str, Any]) -> bytes:
    return b"".join(
        b"event: %s\ndata: %s\n\n" % (str(e["type"]).encode(), json.dumps(e).encode())
        for e in events
    )


def calls(response: ModelResponse) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, c.arguments) for c in response.tool_calls]


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }


PARIS = ("get_weather", {"city": "Paris"})


# --- what broke ----------------------------------------------------------------------------


def test_tgi_tool_calls_as_one_object_not_a_list() -> None:
    """TGI 2.4.1 streams ``delta.tool_calls`` as one object, not a list, with ``"id": ""`` and
    ``"name": null`` after the first chunk (huggingface/text-generation-inference#2794, the
    stream quoted there; its finish_reason is ``eos_token``). Was: every call dropped, the
    answer empty, asked again unstreamed."""

    def tgi(function: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        delta = {
            "role": "assistant",
            "tool_calls": {"index": 0, "id": "", "type": "function", "function": function},
        }
        return {
            "object": "chat.completion.chunk",
            "id": "",
            "created": 1733213355,
            "model": "/models/Qwen2.5-7B-Instruct-AWQ",
            "system_fingerprint": "2.4.1-sha-d2ed52f",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            "usage": None,
        }

    body = sse(
        tgi({"name": "get_weather", "arguments": '{"'}),
        tgi({"name": None, "arguments": 'city": "'}),
        tgi({"name": None, "arguments": 'Paris"}'}),
        tgi({"name": None, "arguments": ""}, finish="eos_token"),
    )
    response, engine = complete([reply(body)])
    assert calls(response) == [PARIS]
    assert len(engine.bodies) == 1 and response.raw is not None
    assert "warnings" not in response.raw


def test_groq_usage_in_x_groq() -> None:
    """Groq puts a stream's usage in ``x_groq.usage`` on its last chunk, not in ``usage``
    (the recorded Groq stream in vercel/ai's packages/groq tests). Was: usage not measured."""
    body = (
        b'data: {"id":"chatcmpl-e7f8","object":"chat.completion.chunk","created":1729171479,'
        b'"model":"gemma2-9b-it","system_fingerprint":"fp_10c08bf97d","choices":[{"index":0,'
        b'"delta":{"role":"assistant","content":"Hello"},"logprobs":null,"finish_reason":null}],'
        b'"x_groq":{"id":"req_01jadadp0femyae9kav1gpkhe8"}}\n\n'
        b'data: {"id":"chatcmpl-e7f8","object":"chat.completion.chunk","created":1729171479,'
        b'"model":"gemma2-9b-it","system_fingerprint":"fp_10c08bf97d","choices":[{"index":0,'
        b'"delta":{},"logprobs":null,"finish_reason":"stop"}],"x_groq":{"id":'
        b'"req_01jadadp0femyae9kav1gpkhe8","usage":{"queue_time":0.061348671,"prompt_tokens":18,'
        b'"prompt_time":0.000211569,"completion_tokens":439,"completion_time":0.798181818,'
        b'"total_tokens":457,"total_time":0.798393387}}}\n\n'
        b"data: [DONE]\n\n"
    )
    response, _ = complete([reply(body)])
    assert response.content == "Hello"
    assert response.usage is not None
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (18, 439)


def test_mistral_reasoning_content_as_a_list_of_chunks() -> None:
    """Magistral streams ``delta.content`` as a list: a ``thinking`` chunk (its own list of
    text chunks), then ``text`` chunks (docs.mistral.ai/capabilities/reasoning; the raw
    api.mistral.ai stream in BerriAI/litellm#16272). Was: the answer dropped (only string
    deltas were read), asked again unstreamed."""
    head = {"id": "c3c7", "object": "chat.completion.chunk", "created": 1762355135}
    head["model"] = "magistral-medium-2509"

    def part(content: Any, finish: str | None = None) -> dict[str, Any]:
        delta = {"content": content}
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    body = sse(
        {**head, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]},
        part([{"type": "thinking", "thinking": [{"type": "text", "text": "The user says"}]}]),
        part([{"type": "thinking", "thinking": [{"type": "text", "text": " hello."}]}]),
        part([{"type": "text", "text": "Hello"}]),
        part("! How can I help?"),
        part("", finish="stop"),
    )
    response, engine = complete([reply(body)])
    assert response.content == "Hello! How can I help?"
    assert len(engine.bodies) == 1
    assert response.raw is not None
    message = response.raw["response"]["choices"][0]["message"]
    assert message["reasoning_content"] == "The user says hello."


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "plain"])
def test_openai_refusal_is_the_answer(stream: bool) -> None:
    """OpenAI answers a refused request with ``message.refusal`` and ``content: null``; streamed
    as ``delta.refusal`` pieces (platform.openai.com/docs/guides/structured-outputs, "Refusals";
    the ``refusal`` field of ChatCompletionChunk). Was: ENTRANT_EMPTY_RESPONSE, and a streamed
    refusal was asked for a second time."""
    words = "I'm sorry, I cannot assist with that request."
    if stream:
        body = reply(
            sse(
                chunk({"role": "assistant", "content": None, "refusal": ""}),
                chunk({"refusal": words[:10]}),
                chunk({"refusal": words[10:]}),
                chunk({}, finish="stop"),
            )
        )
    else:
        message = {"role": "assistant", "content": None, "refusal": words}
        data = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        }
        body = reply(json.dumps(data).encode(), JSON)
    response, engine = complete([body], stream=stream)
    assert response.content == words and len(engine.bodies) == 1


CITED = {
    # A response of the citations feature as recorded in prism-php/prism's test fixtures
    # (tests/Fixtures/anthropic/generate-text-with-text-document-citations-1.json): one
    # sentence split into text blocks at each cited span (docs.anthropic.com, "Citations").
    "id": "msg_0145mUdAcRo8wB2Fbq1298u1",
    "type": "message",
    "role": "assistant",
    "model": "claude-3-5-sonnet-20241022",
    "content": [
        {"type": "text", "text": "According to the documents:\n"},
        {
            "type": "text",
            "text": "The grass is green",
            "citations": [
                {
                    "type": "char_location",
                    "cited_text": "The grass is green. ",
                    "document_index": 0,
                    "document_title": "All aboout the grass and the sky",
                    "start_char_index": 0,
                    "end_char_index": 20,
                }
            ],
        },
        {"type": "text", "text": " and "},
        {
            "type": "text",
            "text": "the sky is blue",
            "citations": [
                {
                    "type": "char_location",
                    "cited_text": "The sky is blue.",
                    "document_index": 0,
                    "document_title": "All aboout the grass and the sky",
                    "start_char_index": 20,
                    "end_char_index": 36,
                }
            ],
        },
        {"type": "text", "text": "."},
    ],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {
        "input_tokens": 575,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": 52,
    },
}
CITED_TEXT = "According to the documents:\nThe grass is green and the sky is blue."


def test_anthropic_citation_blocks_are_one_text() -> None:
    """Was: the blocks joined with newlines, "…green\\n and \\nthe sky…"."""
    response, _ = complete([reply(json.dumps(CITED).encode(), JSON)], "anthropic", stream=False)
    assert response.content == CITED_TEXT


def test_anthropic_streamed_citation_blocks_are_one_text() -> None:
    """The same answer streamed: each block opened with ``citations: []``, its text deltas, a
    ``citations_delta`` (docs.anthropic.com, "Citations", streaming support), ``ping``s."""
    start = dict(CITED, content=[], stop_reason=None)
    start["usage"] = {"input_tokens": 575, "output_tokens": 1}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}, {"type": "ping"}]
    for index, block in enumerate(CITED["content"]):  # type: ignore[arg-type]
        opened = {"type": "text", "text": ""} | ({"citations": []} if "citations" in block else {})
        events.append({"type": "content_block_start", "index": index, "content_block": opened})
        delta = {"type": "text_delta", "text": block["text"]}
        events.append({"type": "content_block_delta", "index": index, "delta": delta})
        for citation in block.get("citations", []):
            delta = {"type": "citations_delta", "citation": citation}
            events.append({"type": "content_block_delta", "index": index, "delta": delta})
        events.append({"type": "content_block_stop", "index": index})
    events += [
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 52},
        },
        {"type": "message_stop"},
    ]
    response, _ = complete([reply(anthropic_sse(*events))], "anthropic")
    assert response.content == CITED_TEXT
    assert response.usage is not None and response.usage.completion_tokens == 52


def test_anthropic_text_around_a_server_tool_keeps_its_break() -> None:
    """Web search: text, ``server_tool_use``, ``web_search_tool_result``, then cited text
    (docs.anthropic.com, "Web search tool", the example response): text blocks on either side
    of another block stay apart, split ones join."""
    data = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "text", "text": "I'll search for when Claude Shannon was born."},
            {
                "type": "server_tool_use",
                "id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
                "name": "web_search",
                "input": {"query": "claude shannon birth date"},
            },
            {
                "type": "web_search_tool_result",
                "tool_use_id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
                "content": [
                    {
                        "type": "web_search_result",
                        "url": "https://en.wikipedia.org/wiki/Claude_Shannon",
                        "title": "Claude Shannon - Wikipedia",
                        "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1k",
                        "page_age": "April 30, 2025",
                    }
                ],
            },
            {"type": "text", "text": "Based on the search results, "},
            {
                "type": "text",
                "text": "Claude Shannon was born on April 30, 1916, in Petoskey, Michigan",
                "citations": [
                    {
                        "type": "web_search_result_location",
                        "url": "https://en.wikipedia.org/wiki/Claude_Shannon",
                        "title": "Claude Shannon - Wikipedia",
                        "encrypted_index": "Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm",
                        "cited_text": "Claude Elwood Shannon (April 30, 1916 – February 24, 2001)",
                    }
                ],
            },
        ],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 6039, "output_tokens": 931},
    }
    response, _ = complete([reply(json.dumps(data).encode(), JSON)], "anthropic", stream=False)
    assert response.content == (
        "I'll search for when Claude Shannon was born.\nBased on the search results, "
        "Claude Shannon was born on April 30, 1916, in Petoskey, Michigan"
    )
    assert response.tool_calls == []


def test_openrouter_finish_reason_error_is_a_stream_error() -> None:
    """OpenRouter ends a stream that failed mid-generation with ``finish_reason: "error"``
    (openrouter.ai/docs/api-reference/streaming, "Handling Errors During Streaming"; its
    normalised finish reasons include ``error``). A chunk that says so without an ``error``
    object was scored as a whole answer; it is now ENDPOINT_STREAM_ERROR, retried."""
    broken = sse(
        chunk({"role": "assistant", "content": "The weather in"}, provider="openai"),
        chunk({"content": ""}, finish="error", provider="openai"),
    )
    good = sse(chunk({"content": "Sunny."}), chunk({}, finish="stop"))
    response, _ = complete([reply(b": OPENROUTER PROCESSING\n\n" + broken), reply(good)])
    assert response.raw is not None
    assert [a["code"] for a in response.raw["attempts"]] == ["ENDPOINT_STREAM_ERROR"]
    assert response.content == "Sunny."


def test_an_error_beside_choices_in_a_plain_body_is_not_an_answer() -> None:
    """OpenRouter: an error during generation comes in the 200 body (openrouter.ai/docs/errors),
    next to what was generated. Was: the partial choice scored as the answer."""
    data = {
        "id": "gen-1",
        "object": "chat.completion",
        "error": {"code": 502, "message": "Provider disconnected unexpectedly"},
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "The weather in"},
                "finish_reason": "error",
            }
        ],
    }
    error = failing([reply(json.dumps(data).encode(), JSON)], stream=False)
    assert error.code == "ENDPOINT_BAD_RESPONSE"
    assert "Provider disconnected unexpectedly" in str(error)


def test_azure_prompt_filter_chunk_does_not_blank_the_id() -> None:
    """Azure OpenAI's first chunk has empty ``choices``, ``id``/``model`` "" and
    ``prompt_filter_results`` (learn.microsoft.com, Azure OpenAI "Content filtering",
    streaming); the answer's chunks carry ``content_filter_results``. Was: the recorded body's
    id and model were the filter chunk's empty strings."""
    filter_chunk = {
        "choices": [],
        "created": 0,
        "id": "",
        "model": "",
        "object": "",
        "prompt_filter_results": [
            {
                "prompt_index": 0,
                "content_filter_results": {
                    "hate": {"filtered": False, "severity": "safe"},
                    "self_harm": {"filtered": False, "severity": "safe"},
                    "sexual": {"filtered": False, "severity": "safe"},
                    "violence": {"filtered": False, "severity": "safe"},
                },
            }
        ],
    }
    safe = {"hate": {"filtered": False, "severity": "safe"}}
    body = sse(
        filter_chunk,
        {
            "id": "chatcmpl-9abc",
            "object": "chat.completion.chunk",
            "created": 1718000000,
            "model": "gpt-4o-2024-05-13",
            "system_fingerprint": "fp_abc",
            "choices": [
                {
                    "index": 0,
                    "delta": {"role": "assistant", "content": "Sunny."},
                    "finish_reason": None,
                    "content_filter_results": safe,
                }
            ],
        },
        {
            "id": "chatcmpl-9abc",
            "object": "chat.completion.chunk",
            "created": 1718000000,
            "model": "gpt-4o-2024-05-13",
            "choices": [
                {"index": 0, "delta": {}, "finish_reason": "stop", "content_filter_results": {}}
            ],
        },
    )
    response, _ = complete([reply(body)])
    assert response.content == "Sunny." and response.raw is not None
    recorded = response.raw["response"]
    assert (recorded["id"], recorded["model"]) == ("chatcmpl-9abc", "gpt-4o-2024-05-13")


GOOD = sse(chunk({"role": "assistant", "content": "Sunny."}), chunk({}, finish="stop"))
PLAIN = json.dumps(
    {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Sunny."},
                "finish_reason": "stop",
            }
        ],
    }
).encode()


@pytest.mark.parametrize(
    ("body", "content_type", "stream"),
    [
        (PLAIN, JSON, False),
        (GOOD, SSE, True),
    ],
    ids=["plain", "streamed"],
)
@pytest.mark.parametrize("coding", ["gzip", "deflate", "raw-deflate"])
def test_a_compressed_body_sent_despite_identity_is_decoded(
    body: bytes, content_type: str, stream: bool, coding: str
) -> None:
    """A server (or a proxy in front of it) that compresses although the request asked for
    ``identity`` (RFC 9110, 12.5.3: a server may send a coding it was not asked for). httpx
    decodes gzip and deflate (zlib-wrapped or raw); the harness's own client did not:
    ENDPOINT_BAD_JSON, retried, for an answer httpx would have read."""
    if coding == "gzip":
        packed = gzip.compress(body)
    elif coding == "deflate":
        packed = zlib.compress(body)
    else:
        squeeze = zlib.compressobj(wbits=-zlib.MAX_WBITS)
        packed, coding = squeeze.compress(body) + squeeze.flush(), "deflate"
    framed = chunked(packed, size=5)
    response, _ = complete(
        [reply(framed, content_type, f"Content-Encoding: {coding}", "Transfer-Encoding: chunked")],
        stream=stream,
    )
    assert response.content == "Sunny."


def test_a_gzip_body_that_does_not_decode_is_bad_json() -> None:
    error = failing(
        [reply(b"\x1f\x8b\x08\x00garbage", JSON, "Content-Encoding: gzip")], stream=False
    )
    assert error.code == "ENDPOINT_BAD_JSON" and "does not decode" in str(error)


def test_a_content_coding_it_cannot_read_is_said_and_not_retried() -> None:
    error = failing([reply(b"\x1b\x00\x00", JSON, "Content-Encoding: br")], stream=False)
    assert error.code == "ENDPOINT_BAD_RESPONSE" and "content-encoding br" in str(error).lower()
    assert "not retried" in str(error)


# --- servers the harness had not met (docs/DECISIONS.md 54) -------------------------------


def _plain(content: Any, **message: Any) -> bytes:
    data = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, **message},
                "finish_reason": "stop",
            }  # fmt: skip
        ],
    }
    return reply(json.dumps(data).encode(), JSON)


def _anthropic_plain(*blocks: dict[str, Any], stop: str = "end_turn") -> bytes:
    data = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": list(blocks),
        "stop_reason": stop,
        "usage": {"input_tokens": 9, "output_tokens": 3},
    }
    return reply(json.dumps(data).encode(), JSON)


THOUGHT = "The user wants the weather in Paris."


@pytest.mark.parametrize(
    ("responses", "kind", "stream"),
    [
        # Together's and SiliconFlow's DeepSeek-R1, Groq's ``reasoning_format: "raw"``, Ollama
        # before its ``think`` option (langgenius/dify#13152, simonw/llm#719): the reasoning
        # in <think> tags at the head of ``content``.
        ([_plain(f"<think>\n{THOUGHT}\n</think>\n\nSunny.")], "openai", False),
        # The same streamed, the tags split across chunks.
        (
            [
                reply(
                    sse(
                        chunk({"role": "assistant", "content": "<thi"}),
                        chunk({"content": f"nk>{THOUGHT}</th"}),
                        chunk({"content": "ink>\n\nSun"}),
                        chunk({"content": "ny."}),
                        chunk({}, finish="stop"),
                    )
                )
            ],
            "openai",
            True,
        ),
        # DeepSeek-R1-Distill's chat template opens the block in the prompt, so the answer has
        # only the closing tag (ollama/ollama#4788: a stream whose content piece is "</think>").
        ([_plain(f"{THOUGHT}\n</think>\n\nSunny.")], "openai", False),
        # A gateway's Anthropic route in front of such a server.
        (
            [_anthropic_plain({"type": "text", "text": f"<think>{THOUGHT}</think>Sunny."})],
            "anthropic",
            False,
        ),
    ],
    ids=["plain", "streamed", "template-opened", "anthropic"],
)
def test_reasoning_in_think_tags_is_not_the_answer(
    responses: list[bytes], kind: str, stream: bool
) -> None:
    """Was: the reasoning scored as part of the answer, so a judge read it and a phrase the
    model only thought about counted as said."""
    response, engine = complete(responses, kind, stream=stream)
    assert response.content == "Sunny." and len(engine.bodies) == 1
    assert response.raw is not None and THOUGHT in json.dumps(response.raw["response"])


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_a_think_block_never_closed_is_no_answer(stream: bool) -> None:
    """The tokens ran out inside the reasoning: no answer (the entrant's empty response), and a
    stream that carried it is not asked again. Was: the reasoning scored as the answer."""
    if stream:
        body = reply(sse(chunk({"content": f"<think>\n{THOUGHT}"}), chunk({}, finish="length")))
    else:
        body = _plain(f"<think>\n{THOUGHT}")
    error = failing([body, _plain("Sunny.")], stream=stream)
    assert error.code == "ENTRANT_EMPTY_RESPONSE"
    assert f"{len(THOUGHT) + 1} characters of reasoning" in str(error)


@pytest.mark.parametrize(
    ("streamed", "kind"),
    [
        # vLLM / llama.cpp / DeepSeek: ``reasoning_content`` (or ``reasoning``) and no content,
        # ``finish_reason: "length"``.
        (
            sse(
                chunk({"role": "assistant", "content": None, "reasoning": THOUGHT}),
                chunk({}, finish="length"),
            ),
            "openai",
        ),
        # Anthropic extended thinking cut by ``max_tokens``: a thinking block and no text.
        (
            anthropic_sse(
                {
                    "type": "message_start",
                    "message": {"id": "m", "role": "assistant", "content": []},
                },
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "thinking", "thinking": ""},
                },
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "thinking_delta", "thinking": THOUGHT},
                },
                {"type": "content_block_stop", "index": 0},
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "max_tokens"},
                    "usage": {"output_tokens": 9},
                },
                {"type": "message_stop"},
            ),
            "anthropic",
        ),
    ],
    ids=["openai", "anthropic"],
)
def test_a_stream_that_only_reasoned_is_not_asked_again(streamed: bytes, kind: str) -> None:
    """A stream that carried the model's reasoning was served: its empty answer is the
    entrant's, not a stream to ask for again unstreamed (that is for a stream that carried
    nothing, as a gateway relays one its server closed early). Was: asked twice, the second
    answer scored, and the run's summary counted a stream not served."""
    plain = _anthropic_plain({"type": "text", "text": "Sunny."}) if kind == "anthropic" else PLAIN
    error = failing([reply(streamed), reply(plain, JSON)], kind)
    assert error.code == "ENTRANT_EMPTY_RESPONSE" and "characters of reasoning" in str(error)


@pytest.mark.parametrize(
    "content_type",
    ["text/plain; charset=utf-8", "application/octet-stream", "application/json", None],
)
def test_an_event_stream_under_another_media_type_is_read_as_one(content_type: str | None) -> None:
    """Hand-made servers (a FastAPI ``StreamingResponse`` without a media type,
    langgenius/dify#4120) send events under another type or none; OpenAI's SDK reads a
    stream's body as events whatever its type, so they work with it. Was: ENDPOINT_BAD_JSON,
    retried, the attempt errored."""
    head = f"Content-Type: {content_type}\r\n" if content_type else ""
    response_bytes = f"HTTP/1.1 200 OK\r\n{head}Content-Length: {len(GOOD)}\r\n\r\n".encode() + GOOD
    response, engine = complete([response_bytes])
    assert response.content == "Sunny." and len(engine.bodies) == 1
    assert response.raw is not None and response.raw["stream_events"] == 3


def test_an_event_stream_that_begins_with_a_byte_order_mark() -> None:
    """The SSE rule (html.spec.whatwg.org, "Parsing an event stream"): one leading U+FEFF is
    not part of the stream. Was: the first event's field name read as "\\ufeffdata", the
    event dropped."""
    body = "\ufeff".encode() + sse(chunk({"content": "Sunny."}), chunk({}, finish="stop"))
    response, engine = complete([reply(body)])
    assert response.content == "Sunny." and len(engine.bodies) == 1


def _text_stream(*tail: dict[str, Any]) -> bytes:
    return anthropic_sse(
        {"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "Sunny."},
        },
        {"type": "content_block_stop", "index": 0},
        *tail,
    )


def test_an_anthropic_stream_that_ends_after_its_stop_reason() -> None:
    """A body that ends after ``message_delta`` with its ``stop_reason`` and no
    ``message_stop``: every block came before it, so the answer is whole, as an OpenAI stream
    may end after its ``finish_reason`` with no ``[DONE]``. Was: ENDPOINT_BAD_JSON, retried,
    errored. One cut before its stop_reason is still retried."""
    delta = {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn"},
        "usage": {"output_tokens": 2},
    }
    response, engine = complete([reply(_text_stream(delta))], "anthropic")
    assert response.content == "Sunny." and len(engine.bodies) == 1
    error = failing([reply(_text_stream())], "anthropic")
    assert error.code == "ENDPOINT_BAD_JSON" and "before message_stop" in str(error)


def test_an_empty_input_json_delta_keeps_the_input_its_block_started_with() -> None:
    """Anthropic's own streams open a tool's input with ``"partial_json": ""`` (docs.anthropic
    .com, "Streaming Messages"); a proxy that gives the whole input in ``content_block_start``
    and then that empty delta lost it. Was: the call made with ``{}``."""
    events = [
        {"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "get_weather",
                "input": {"city": "Paris"},
            },
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": ""},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 9},
        },
        {"type": "message_stop"},
    ]
    response, _ = complete([reply(anthropic_sse(*events))], "anthropic")
    assert calls(response) == [PARIS]


def _refusal(status: str, error: dict[str, Any]) -> bytes:
    body = json.dumps(error).encode()
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


@pytest.mark.parametrize(
    "refusal",
    [
        # Mistral (openai/openai-agents-python#442): a 422, pydantic's words.
        _refusal(
            "422 Unprocessable Entity",
            {
                "object": "error",
                "message": {
                    "detail": [
                        {
                            "type": "extra_forbidden",
                            "loc": ["body", "stream_options", "include_usage"],
                            "msg": "Extra inputs are not permitted",
                            "input": True,
                        }
                    ]
                },
                "type": "invalid_request_error",
            },
        ),
        # Azure AI Foundry (CherryHQ/cherry-studio#9214): a 400 in other words.
        _refusal(
            "400 Bad Request",
            {
                "detail": "Extra parameters ['stream_options'] are not allowed when "
                "extra-parameters is not set or set to be 'error'."
            },
        ),
    ],
    ids=["mistral-422", "azure-400"],
)
def test_a_server_that_refuses_stream_options_is_asked_without_them(refusal: bytes) -> None:
    """Was: every streamed call a harness fault (REQUEST_REFUSED) or the entrant's error
    (ENDPOINT_REJECTED), whatever the model would have answered."""
    response, engine = complete([refusal, reply(GOOD)])
    assert response.content == "Sunny."
    assert ["stream_options" in body for body in engine.bodies] == [True, False]
    assert engine.bodies[1]["stream"] is True
    assert response.raw is not None and response.raw["warnings"] == ["stream_options_refused"]
    assert "stream_options" not in response.raw["request"]


def test_a_refusal_that_does_not_name_stream_options_is_not_asked_again() -> None:
    error = failing([_refusal("400 Bad Request", {"error": {"message": "bad model"}})] * 2)
    assert error.code == "ENDPOINT_REJECTED"


@pytest.mark.parametrize(
    ("header", "wait"),
    [("retry-after-ms: 20", 0.02), ("retry-after-ms: 20\r\nRetry-After: 1", 0.02)],
    ids=["ms-alone", "ms-first"],
)
def test_retry_after_ms_is_read(header: str, wait: float) -> None:
    """Azure OpenAI sends ``retry-after-ms`` with a 429, alone or beside ``Retry-After``
    (learn.microsoft.com, Azure OpenAI quotas; OpenAI's SDKs read it first). Was: ignored, so
    a throttled call waited the back-off curve instead of what the server asked."""
    throttled = (
        f"HTTP/1.1 429 Too Many Requests\r\n{header}\r\nContent-Type: application/json\r\n"
        "Content-Length: 2\r\n\r\n{}"
    ).encode()
    response, _ = complete([throttled, reply(PLAIN, JSON)], stream=False)
    assert response.raw is not None and response.raw["attempts"][0]["retry_after_s"] == wait


@pytest.mark.parametrize(
    ("text", "answer", "reasoning"),
    [
        ("Sunny.", "Sunny.", ""),
        ("\n<think>a</think>\n\nSunny.", "Sunny.", "a"),
        ("a</think>Sunny.", "Sunny.", "a"),
        ("<think>a", "", "a"),
        ("<think></think>Sunny.", "Sunny.", ""),
        # A tag anywhere but the head is the answer's own text.
        ("Wrap it in <think> tags.", "Wrap it in <think> tags.", ""),
        ("Use <think>x</think> here.", "Use <think>x</think> here.", ""),
        ("<thinking>a</thinking>Sunny.", "<thinking>a</thinking>Sunny.", ""),
    ],
)
def test_split_think(text: str, answer: str, reasoning: str) -> None:
    assert split_think(text) == (answer, reasoning)


# --- shapes already read right ---------------------------------------------------------------


def _openai_cases() -> dict[str, bytes]:
    # OpenAI with stream_options.include_usage: a last chunk with ``choices: []`` and the usage
    # (platform.openai.com/docs/api-reference/chat-streaming); logprobs on every chunk.
    openai_usage = sse(
        chunk({"role": "assistant", "content": "Sunny.", "refusal": None}, logprobs=None),
        chunk({}, finish="stop"),
        {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "gpt-4o",
            "choices": [],
            "usage": {
                "prompt_tokens": 9,
                "completion_tokens": 2,
                "total_tokens": 11,
                "prompt_tokens_details": {"cached_tokens": 0},
            },
        },
    )
    # vLLM: id/type/name first with no arguments, then fragments; ``stop_reason`` in choices;
    # ``content: null``; usage on a last chunk of its own (vllm entrypoints/openai/serving_chat).
    vllm = sse(
        chunk({"role": "assistant", "content": ""}),
        chunk(
            {
                "tool_calls": [
                    {
                        "id": "chatcmpl-tool-c9Z",
                        "type": "function",
                        "index": 0,
                        "function": {"name": "get_weather"},
                    }
                ]
            }  # fmt: skip
        ),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": "'}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'Paris"}'}}]}),
        {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "choices": [
                {
                    "index": 0,
                    "delta": {"content": None},
                    "finish_reason": "tool_calls",
                    "stop_reason": 128008,
                    "logprobs": None,
                }  # fmt: skip
            ],
        },
        {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "choices": [],
            "usage": {"prompt_tokens": 20, "completion_tokens": 9, "total_tokens": 29},
        },  # fmt: skip
    )
    # Gemini's OpenAI-compatible endpoint: the whole call in one delta without ``index``, and
    # ``finish_reason: "stop"`` (openai/openai-python#2806 and #3246: "the first tool-call
    # delta omitting index, matching Gemini OpenAI-compatible streaming responses").
    gemini = sse(
        {
            "choices": [
                {
                    "delta": {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "function": {
                                    "arguments": '{"city":"Paris"}',
                                    "name": "get_weather",
                                },
                                "id": "function-call-1",
                                "type": "function",
                            }
                        ],
                    },  # fmt: skip
                    "finish_reason": "stop",
                    "index": 0,
                }  # fmt: skip
            ],
            "created": 1747000000,
            "model": "gemini-2.5-flash",
            "object": "chat.completion.chunk",
        }
    )
    # llama.cpp's server: the id only in the first tool-call delta, ``timings`` and ``usage`` on
    # the last chunk (tools/server/server.cpp, to_json_oaicompat_chat_stream).
    llamacpp = sse(
        chunk({"role": "assistant", "content": None}),
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "GdzsBBqV4xNMjEFXqg8ywmlB1Hv00vGf",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city":'},
                    }
                ]
            }
        ),  # fmt: skip
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Paris"}'}}]}),
        chunk(
            {},
            finish="tool_calls",
            usage={"completion_tokens": 9, "prompt_tokens": 20, "total_tokens": 29},  # fmt: skip
            timings={"prompt_n": 20, "predicted_n": 9, "predicted_ms": 80.0},
        ),
    )
    # Ollama: the call whole in one chunk, ``finish_reason: "stop"`` on the chunk after
    # (g0t4/ask-openai.nvim's recorded Ollama streams).
    ollama = sse(
        chunk(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": "call_hk81qg8b",
                        "index": 0,
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                    }
                ],
            },  # fmt: skip
            system_fingerprint="fp_ollama",
        ),
        chunk({"role": "assistant", "content": ""}, finish="stop"),
    )
    # Mistral: a 9-character id, the call whole, ``finish_reason: "tool_calls"`` on it.
    mistral = sse(
        chunk({"role": "assistant", "content": ""}),
        chunk(
            {
                "tool_calls": [
                    {
                        "id": "D681PevKs",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                        "index": 0,
                    }
                ]
            },  # fmt: skip
            finish="tool_calls",
            usage={"prompt_tokens": 20, "total_tokens": 29, "completion_tokens": 9},
        ),
    )
    return {
        "openai-usage": openai_usage,
        "vllm": vllm,
        "gemini": gemini,
        "llamacpp": llamacpp,
        "ollama": ollama,
        "mistral": mistral,
    }


@pytest.mark.parametrize("name", list(_openai_cases()))
def test_openai_compatible_streams_as_servers_write_them(name: str) -> None:
    response, engine = complete([reply(_openai_cases()[name])])
    assert response.content == "Sunny." or calls(response) == [PARIS]
    assert len(engine.bodies) == 1


@pytest.mark.parametrize(
    "response",
    [
        # CRLF line ends, ``data:`` without its space, an ``id:`` and a ``retry:`` field, a
        # comment (SSE spec, html.spec.whatwg.org "server-sent events": all legal)
        reply(
            b": keep-alive\r\n\r\nretry: 3000\r\nid: 1\r\ndata:"
            + json.dumps(chunk({"role": "assistant", "content": "Sunny."})).encode()
            + b"\r\n\r\nid: 2\r\ndata:"
            + json.dumps(chunk({}, finish="stop")).encode()
            + b"\r\n\r\ndata:[DONE]\r\n\r\n"
        ),
        # CR alone ends a line too
        reply(GOOD.replace(b"\n", b"\r")),
        # one JSON event over several ``data:`` lines (joined with a newline: still JSON)
        reply(
            b'data: {"choices":[{"index":0,\ndata: "delta":{"content":"Sunny."}}]}\n\n'
            + sse(chunk({}, finish="stop"))
        ),
        # no [DONE]: the stream ends after its finish_reason (Mistral, some gateways)
        reply(sse(chunk({"content": "Sunny."}), chunk({}, finish="stop"), done=False)),
        # chunked, in small pieces, with trailers
        reply(chunked(GOOD, trailers=b"X-Trailer: 1\r\n"), SSE, "Transfer-Encoding: chunked"),
        # HTTP/1.0, framed by the end of the connection
        reply(GOOD, SSE, version="HTTP/1.0"),
        # Connection: close after the response
        reply(GOOD, SSE, f"Content-Length: {len(GOOD)}", "Connection: close"),
    ],
    ids=["crlf-fields", "cr", "multiline-data", "no-done", "chunked-trailers", "http10", "close"],
)
def test_event_stream_framing(response: bytes) -> None:
    result, _ = complete([response, response])
    assert result.content == "Sunny."


def test_deepseek_blank_lines_before_a_plain_body() -> None:
    """DeepSeek keeps a slow plain request alive with empty lines before the JSON body
    (api-docs.deepseek.com, "Rate Limit")."""
    response, _ = complete([reply(b"\n\n\n" + PLAIN, JSON)], stream=False)
    assert response.content == "Sunny."


def test_anthropic_stream_with_ping_redacted_thinking_and_server_tools() -> None:
    """``ping``, a ``redacted_thinking`` block, a ``server_tool_use`` block with its
    ``input_json_delta``, a ``web_search_tool_result``, then text and a tool call
    (docs.anthropic.com, "Streaming Messages" and "Web search tool")."""
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "content": [],
                "usage": {"input_tokens": 10, "output_tokens": 1},
            },
        },  # fmt: skip
        {"type": "ping"},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"},
        },  # fmt: skip
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {
                "type": "server_tool_use",
                "id": "srvtoolu_1",
                "name": "web_search",
                "input": {},
            },
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": '{"query": "paris"}'},
        },  # fmt: skip
        {"type": "content_block_stop", "index": 1},
        {
            "type": "content_block_start",
            "index": 2,
            "content_block": {
                "type": "web_search_tool_result",
                "tool_use_id": "srvtoolu_1",
                "content": [],
            },
        },
        {"type": "content_block_stop", "index": 2},
        {"type": "content_block_start", "index": 3, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 3,
            "delta": {"type": "text_delta", "text": "Checking."},
        },  # fmt: skip
        {"type": "content_block_stop", "index": 3},
        {
            "type": "content_block_start",
            "index": 4,
            "content_block": {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "get_weather",
                "input": {},
            },
        },
        {
            "type": "content_block_delta",
            "index": 4,
            "delta": {"type": "input_json_delta", "partial_json": '{"city": "Paris"}'},
        },  # fmt: skip
        {"type": "content_block_stop", "index": 4},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 40},
        },  # fmt: skip
        {"type": "message_stop"},
    ]
    response, _ = complete([reply(anthropic_sse(*events))], "anthropic")
    assert response.content == "Checking." and calls(response) == [PARIS]


def test_anthropic_overloaded_mid_stream_is_retried() -> None:
    """``overloaded_error`` after the stream began (docs.anthropic.com, "Streaming Messages",
    error events)."""
    broken = (
        anthropic_sse(
            {"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}},
            {"type": "ping"},
        )
        + b"event: error\ndata: "
        + b'{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n'
    )
    error = failing([reply(broken), reply(broken)], "anthropic")
    assert error.code == "ENDPOINT_STREAM_ERROR" and "Overloaded" in str(error)


def test_sglang_parallel_calls_at_index_0_with_their_own_ids() -> None:
    """SGLang streams each of two calls at index 0 under ids "0" and "1", the id repeated
    on every argument chunk (InternLM/lmdeploy#3412, the SGLang deltas quoted there)."""

    def part(id: str, name: str | None, args: str) -> dict[str, Any]:
        function = {"name": name, "arguments": args}
        return chunk(
            {"tool_calls": [{"index": 0, "id": id, "type": "function", "function": function}]}
        )

    body = sse(
        part("0", "get_weather", ""),
        part("0", None, '{"city": "Paris"}'),
        part("1", "get_weather", ""),
        part("1", None, '{"city": "Rome"}'),
        chunk({}, finish="tool_calls"),
    )
    response, _ = complete([reply(body)])
    assert calls(response) == [PARIS, ("get_weather", {"city": "Rome"})]


def test_empty_string_finish_reasons_before_the_real_one() -> None:
    """Ollama (ollama/ollama#4357) and SGLang 0.4.3 (sgl-project/sglang#3912) put
    ``"finish_reason": ""`` on every chunk before the last."""
    head = {"id": "chatcmpl-693", "object": "chat.completion.chunk", "created": 1715427619}
    head |= {"model": "mistral:latest", "system_fingerprint": "fp_ollama"}

    def piece(text: str, finish: str) -> dict[str, Any]:
        delta = {"role": "assistant", "content": text}
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    body = sse(piece("Sun", ""), piece("ny.", ""), piece("", "stop"))
    response, _ = complete([reply(body)])
    assert response.content == "Sunny."


def test_a_stream_request_answered_with_a_plain_body() -> None:
    """A server that ignores ``stream: true`` and answers ``application/json``."""
    response, _ = complete([reply(PLAIN, JSON)])
    assert response.content == "Sunny."


def test_mistral_plain_content_as_a_list_of_chunks() -> None:
    """Magistral's unstreamed answer: ``content`` a list of a ``thinking`` chunk and a
    ``text`` chunk (docs.mistral.ai/capabilities/reasoning)."""
    content = [
        {"type": "thinking", "thinking": [{"type": "text", "text": "The user says hello."}]},
        {"type": "text", "text": "Sunny."},
    ]
    data = {
        "id": "c3c7",
        "object": "chat.completion",
        "model": "magistral-medium-2509",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }  # fmt: skip
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 30, "total_tokens": 35},
    }
    response, _ = complete([reply(json.dumps(data).encode(), JSON)], stream=False)
    assert response.content == "Sunny."


# llama.cpp's llama-server on /v1/chat/completions, two calls in one answer, as recorded from
# the build tests/real/test_real_llama_server_tool_stream.py runs (SmolLM2 with Qwen2.5's
# template, asked to copy two <tool_call>s): its response head and chunk framing verbatim, the
# events with their keys in its order and compact JSON, ids shortened, one ``created``.
LLAMA_HEAD = (
    b"HTTP/1.1 200 OK\r\nServer: llama.cpp\r\nAccess-Control-Allow-Origin: \r\n%b"
    b"Keep-Alive: timeout=5, max=100\r\n\r\n"
)
LLAMA_USAGE = {"completion_tokens": 68, "prompt_tokens": 316, "total_tokens": 384,
               "prompt_tokens_details": {"cached_tokens": 315}}  # fmt: skip
LLAMA_TIMINGS = {"cache_n": 315, "prompt_n": 1, "prompt_ms": 99.505,
                 "prompt_per_token_ms": 99.505, "prompt_per_second": 10.049746243907341,
                 "predicted_n": 68, "predicted_ms": 5140.261,
                 "predicted_per_token_ms": 76.72031343283582,
                 "predicted_per_second": 13.034357593904277}  # fmt: skip
LLAMA_IDS = ("LmIf3gHn", "YmeKubVb")
LLAMA_PIECES = ["{", '"', "order", "_", "id", '":', ' "', "1", "{n}", '"', "}"]


def _llama_event(choices: list[dict[str, Any]], **extra: Any) -> bytes:
    data = {"choices": choices, "created": 1796632441, "id": "chatcmpl-w7zK",
            "model": "smollm2", "system_fingerprint": "b1-0c1e570",
            "object": "chat.completion.chunk", **extra}  # fmt: skip
    return b"data: " + json.dumps(data, separators=(",", ":")).encode() + b"\n\n"


def _llama_delta(delta: dict[str, Any], finish: str | None = None) -> bytes:
    return _llama_event([{"finish_reason": finish, "index": 0, "delta": delta}])


def llama_server_two_calls() -> bytes:
    """Each event its own HTTP chunk but the last two (finish_reason, then usage under
    ``choices: []``); a call's ``id``, ``type`` and name only in its first delta, with ``{``;
    its arguments a token at a time; ``index`` 0 then 1."""
    events = [_llama_delta({"role": "assistant", "content": None})]
    for index, (call_id, n) in enumerate(zip(LLAMA_IDS, "23", strict=True)):
        first, *rest = (piece.replace("{n}", n) for piece in LLAMA_PIECES)
        function = {"name": "get_order", "arguments": first}
        opened = {"index": index, "id": call_id, "type": "function", "function": function}
        events.append(_llama_delta({"tool_calls": [opened]}))
        for piece in rest:
            part = {"index": index, "function": {"arguments": piece}}
            events.append(_llama_delta({"tool_calls": [part]}))
    ending = _llama_delta({}, "tool_calls") + _llama_event(
        [], usage=LLAMA_USAGE, timings=LLAMA_TIMINGS
    )
    body = b"".join(b"%x\r\n%b\r\n" % (len(e), e) for e in [*events, ending, b"data: [DONE]\n\n"])
    framing = b"Content-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
    return LLAMA_HEAD % (b"X-Accel-Buffering: no\r\n" + framing) + body + b"0\r\n\r\n"


def llama_server_two_calls_plain() -> bytes:
    """The same answer unstreamed: ``content: ""``, each call's ``id`` after its function."""
    calls = [{"type": "function", "function": {"name": "get_order",
              "arguments": json.dumps({"order_id": f"1{n}"})}, "id": call_id}
             for call_id, n in zip(LLAMA_IDS, "23", strict=True)]  # fmt: skip
    message = {"role": "assistant", "content": "", "tool_calls": calls}
    data = {"choices": [{"finish_reason": "tool_calls", "index": 0, "message": message}],
            "created": 1796632460, "model": "smollm2", "system_fingerprint": "b1-0c1e570",
            "object": "chat.completion", "usage": LLAMA_USAGE, "id": "chatcmpl-5Itv",
            "timings": LLAMA_TIMINGS}  # fmt: skip
    body = json.dumps(data, separators=(",", ":")).encode()
    framing = b"Content-Type: application/json; charset=utf-8\r\nContent-Length: %d\r\n"
    return LLAMA_HEAD % (framing % len(body)) + body


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_llama_server_two_tool_calls_as_it_writes_them(stream: bool) -> None:
    """Read the same plain and streamed: both calls, each under the server's own id (sent
    back with its result), the usage from the chunk after finish_reason, cached tokens too."""
    answer = llama_server_two_calls() if stream else llama_server_two_calls_plain()
    response, engine = complete([answer], stream=stream)
    assert calls(response) == [("get_order", {"order_id": "12"}),
                               ("get_order", {"order_id": "13"})]  # fmt: skip
    assert [c.id for c in response.tool_calls] == list(LLAMA_IDS)
    assert all(c.arguments_error is None for c in response.tool_calls)
    assert response.content == ""
    assert response.usage is not None
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (316, 68)
    assert response.usage.cached_tokens == 315
    assert response.raw["response"]["choices"][0]["finish_reason"] == "tool_calls"
    assert len(engine.bodies) == 1
