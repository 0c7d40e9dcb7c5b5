"""``openai``: an OpenAI-compatible ``POST {base_url}/chat/completions`` endpoint, over httpx.

One ``complete`` is one model call: the conversation so far (assistant ``tool_calls`` and
``role: tool`` results included), the offered tools as function definitions, the sampling
parameters (``tool_choice`` among them when the harness forces it). Streaming
(``stream: true`` in the target file) asks for server-sent events with usage and assembles the
content and tool-call deltas into the same body a non-streamed call returns, then both are read
by one parser — so a trace does not depend on the transport.

``ModelResponse.raw`` carries the exact request body, the (assembled) response body, the
stream's events, the status and the failed attempts before it; never a request header.
"""

from __future__ import annotations

import json
import random
from typing import Any

from bench.core.errors import EntrantError, HarnessFault
from bench.core.trace import Message, ToolCallRequest, ToolDef, Usage

from .base import (
    ARGUMENT_DEPTH,
    REQUEST_REFUSED,
    ModelRequest,
    ModelResponse,
    TargetSpec,
    check_filtered,
    check_held,
    check_state,
    choice_warnings,
    cut_short,
    split_think,
    token_counts,
    too_deep,
)
from .http import (
    AttemptFailed,
    Failure,
    HttpEndpoint,
    SseEvent,
    as_object,
    loads_strict,
    quoted,
)
from .refusals import (
    REASONING_ASKED,
    STREAM_OPTIONS_REFUSED,
    Posted,
    Refusals,
    refuses_stream_options,
)

PATH = "/chat/completions"
FAILED_FINISH = ("error", "abort")
"""Finish reasons that say the server, not the model, ended the answer: OpenRouter's
``error``, and ``abort`` from vLLM and SGLang when the engine drops a request (vllm#57082)."""
EMPTY_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}}
STATE_KEYS = ("extra_content",)
"""The keys of a tool call, beside ``id``, ``type`` and ``function``, that are the provider's
state of the call and go back with it: Gemini's OpenAI compatibility puts its thought
signature in ``extra_content.google.thought_signature`` (Vertex AI's in ``extra_content.vertex``)
and refuses, with HTTP 400, a request whose assistant tool call lacks it. Kept as they came
(``ToolCallRequest.provider_state``) and sent back so; no other key is, since a server with a
strict request schema refuses keys it does not know."""
REASONING_KEYS = ("reasoning_content", "reasoning", "reasoning_details")
"""The keys of an assistant message that hold the model's reasoning: DeepSeek's thinking mode,
Moonshot's Kimi K2 thinking, vLLM before 0.11 and SGLang (``reasoning_content``); vLLM since,
Groq, Ollama, LM Studio, OpenRouter (``reasoning``); OpenRouter and MiniMax's
``reasoning_split`` (``reasoning_details``, a list). Those of an answer that called tools are
kept with it (``MESSAGE_STATE``), each under the key it came as, and go back on that assistant
message once the server asks for them (``REASONING_ASKED``)."""
MESSAGE_STATE = "message"
"""The key of the first call's ``provider_state`` holding what may go back on its assistant
message: the ``REASONING_KEYS`` that came, and ``content`` as it came when it began with the
model's reasoning in ``<think>`` tags (MiniMax-M2 writes its thinking there)."""


def tool_arguments(value: Any) -> tuple[dict[str, Any], str | None]:
    """The model's tool arguments: a JSON object (as text or already parsed), else the reason
    they are not one. An empty string is no arguments; an object nested deeper than
    ``ARGUMENT_DEPTH`` levels is not taken."""
    deep = f"the arguments are nested deeper than {ARGUMENT_DEPTH} levels"
    if isinstance(value, dict):
        return ({}, deep) if too_deep(value) else (value, None)
    if value is None or (isinstance(value, str) and not value.strip()):
        return {}, None
    if not isinstance(value, str):
        return {}, f"the arguments are a JSON {type(value).__name__}, not an object"
    try:
        parsed = loads_strict(value)
    except json.JSONDecodeError as exc:
        snippet = value if len(value) <= 200 else value[:200] + "…"
        return {}, f"{exc.msg} (line {exc.lineno} column {exc.colno}) in {snippet!r}"
    except ValueError as exc:
        return {}, str(exc)
    if not isinstance(parsed, dict):
        return {}, f"the arguments are a JSON {_json_type(parsed)}, not an object"
    if too_deep(parsed):
        return {}, deep
    return parsed, None


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "null"


def _text(content: Any) -> str:
    """``content`` as a string: a string, null, or a list of ``{type: text, text}`` parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


def _thinking(content: Any) -> str:
    """The ``thinking`` parts of a list ``content`` (Mistral's reasoning models: ``{type:
    thinking, thinking: [{type: text, text}]}``), as one string."""
    if not isinstance(content, list):
        return ""
    return "".join(
        _text(part.get("thinking"))
        for part in content
        if isinstance(part, dict) and part.get("type") == "thinking"
    )


def message_state(message: dict[str, Any], answer: str) -> dict[str, Any] | None:
    """What of an answer's assistant ``message`` goes back with it when it called tools
    (``MESSAGE_STATE``), as it came; None when nothing does. ``answer`` is its content as the
    harness reads it: a string ``content`` that differs (``<think>`` taken off) goes back whole.
    ``reasoning`` equal to ``reasoning_content`` (vLLM 0.10 sends both) goes back once."""
    state: dict[str, Any] = {}
    raw = message.get("content")
    if isinstance(raw, str) and raw != answer and "think>" in raw:  # split_think took it off
        state["content"] = raw
    for key in REASONING_KEYS:
        value = message.get(key)
        # the text ones as strings, even empty (DeepSeek wants the field); the details a list
        kind = list if key == "reasoning_details" else str
        if isinstance(value, kind) and (value or kind is str):
            state[key] = value
    if "reasoning" in state and state["reasoning"] == state.get("reasoning_content"):
        del state["reasoning"]
    return state or None


def wire_call(call: ToolCallRequest) -> dict[str, Any]:
    """An assistant's tool call as sent back: its provider state (``STATE_KEYS``) with it."""
    item: dict[str, Any] = {
        "id": call.id,
        "type": "function",
        "function": {
            "name": call.name,
            "arguments": json.dumps(call.arguments, ensure_ascii=False),
        },
    }
    state = call.provider_state or {}
    item.update((key, state[key]) for key in STATE_KEYS if key in state)
    return item


def call_state(item: dict[str, Any]) -> dict[str, Any] | None:
    """A response's tool call's provider state (``STATE_KEYS`` that hold a non-empty object),
    as it came; None when it has none."""
    state = {key: item[key] for key in STATE_KEYS if isinstance(item.get(key), dict) and item[key]}
    return state or None


def _sent_back(call: ToolCallRequest) -> dict[str, Any]:
    """The part of an assistant message that goes back as it came (``MESSAGE_STATE`` of the
    answer's first call): only the keys that may be there."""
    state = (call.provider_state or {}).get(MESSAGE_STATE)
    if not isinstance(state, dict):
        return {}
    return {key: state[key] for key in ("content", *REASONING_KEYS) if key in state}


def wire_messages(messages: list[Message], *, reasoning: bool = False) -> list[dict[str, Any]]:
    """The conversation as sent; ``reasoning=True`` with what the model's answers that called
    tools carry back (``MESSAGE_STATE``), for a server that asked for it."""
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "assistant":
            item: dict[str, Any] = {"role": "assistant", "content": message.content}
            if message.tool_calls:
                if reasoning:
                    item.update(_sent_back(message.tool_calls[0]))
                # A string, even empty: OpenAI accepts "" as well as null, and servers with a
                # strict request schema (llama-cpp-python's) refuse null with HTTP 500.
                item["tool_calls"] = [wire_call(call) for call in message.tool_calls]
            out.append(item)
        elif message.role == "tool":
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": message.tool_call_id or "",
                    "content": message.content,
                }
            )
        else:
            out.append({"role": message.role, "content": message.content})
    return out


def wire_tools(tools: list[ToolDef]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters or EMPTY_PARAMETERS,
            },
        }
        for tool in tools
    ]


def request_body(
    request: ModelRequest, spec: TargetSpec, *, reasoning: bool = False
) -> dict[str, Any]:
    """The body sent for ``request``; ``reasoning=True``: with the reasoning of its earlier
    answers that called tools (``REASONING_ASKED``)."""
    params = dict(request.params)
    cap_names = ("max_tokens", "max_completion_tokens")
    for name in cap_names:
        if name in params and name != spec.max_tokens_param:
            params[spec.max_tokens_param] = params.pop(name)
    body: dict[str, Any] = {**params, "model": request.model}
    body["messages"] = wire_messages(request.messages, reasoning=reasoning)
    if request.tools:
        body["tools"] = wire_tools(request.tools)
        # Said even when it is the default: some servers (llama-cpp-python's) silently drop
        # the tools of a request that does not name a tool_choice.
        body.setdefault("tool_choice", "auto")
    else:
        body.pop("tool_choice", None)
    if spec.stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    else:
        body.pop("stream", None)
        body.pop("stream_options", None)
    return body


def parse_usage(usage: Any) -> Usage | None:
    """The reported tokens; None (not measured) when there is no usage object, it names
    neither count, a count is not a whole number (``token_counts``), or it says the prompt
    had no tokens. A chat call always sends at least one token, so a prompt of 0 is a server
    or gateway that does not count (``{"prompt_tokens": 0, "completion_tokens": 0}``), not
    a free call: read as a measured 0 it was, with pricing, a measured $0."""
    if not isinstance(usage, dict) or not ({"prompt_tokens", "completion_tokens"} & usage.keys()):
        return None
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    if cached is None:
        cached = usage.get("prompt_cache_hit_tokens")  # DeepSeek's name for it
    counts = token_counts(usage, ("prompt_tokens", "completion_tokens"))
    cache = token_counts({"cached": cached}, ("cached",), nullable=("cached",))
    if counts is None or cache is None:
        return None
    outside = _cache_outside_prompt(usage, counts)
    if outside is not None:
        read, written = outside
        counts["prompt_tokens"] += read + written
    if counts["prompt_tokens"] == 0:
        return None  # counted nothing: not measured
    return Usage(**counts, cached_tokens=cache["cached"])


ANTHROPIC_CACHE = ("cache_read_input_tokens", "cache_creation_input_tokens")


def _cache_outside_prompt(usage: dict[str, Any], counts: dict[str, int]) -> tuple[int, int] | None:
    """(read, written) when a gateway that translated an Anthropic answer (Portkey) counted
    the prompt as Anthropic does: ``prompt_tokens`` the uncached input only, the cache's reads
    and writes beside it under Anthropic's names, and ``total_tokens`` the sum of all four.
    None when the prompt already holds them (the total is the prompt plus the completion) or
    nothing says which."""
    if ANTHROPIC_CACHE[0] not in usage and ANTHROPIC_CACHE[1] not in usage:
        return None
    cache = token_counts(usage, ANTHROPIC_CACHE, nullable=ANTHROPIC_CACHE)
    total = usage.get("total_tokens")
    if cache is None or not isinstance(total, int) or isinstance(total, bool):
        return None
    read, written = cache[ANTHROPIC_CACHE[0]], cache[ANTHROPIC_CACHE[1]]
    if read + written == 0:
        return None
    if total != counts["prompt_tokens"] + counts["completion_tokens"] + read + written:
        return None
    return read, written


def parse_completion(data: dict[str, Any]) -> ModelResponse:
    """A ``chat.completion`` body (streamed ones are assembled into one first)."""
    choices = data.get("choices")
    error = data.get("error")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        said = f": {quoted(error.get('message'))}" if isinstance(error, dict) else ""
        raise EntrantError(f"the response has no choices{said}", code="ENDPOINT_BAD_RESPONSE")
    choice = choices[0]
    if error or choice.get("finish_reason") in FAILED_FINISH:  # "error": null is no error
        # OpenRouter: an error during generation is in the 200 body, beside what was
        # generated before it (finish_reason "error"); that part is not an answer. Nor is
        # what a vLLM or SGLang engine generated before it aborted the request ("abort").
        told = error.get("message") if isinstance(error, dict) else error
        said = told or f"finish_reason {choice.get('finish_reason')}"
        raise EntrantError(
            f"the body reports an error beside its choices: {quoted(said)}",
            code="ENDPOINT_BAD_RESPONSE",
        )
    message = choice.get("message")
    if not isinstance(message, dict):
        raise EntrantError("the first choice has no message", code="ENDPOINT_BAD_RESPONSE")
    # Reasoning in <think> tags at the head of the content is not the answer (split_think).
    content, thought = split_think(_text(message.get("content")))
    if not content.strip() and isinstance(message.get("refusal"), str):
        # OpenAI's refusal ("content": null beside it): the model's answer, scored as one.
        content = message["refusal"]
    check_held(content)
    calls: list[ToolCallRequest] = []
    raw_calls = message.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        raise EntrantError("tool_calls is not a list", code="ENDPOINT_BAD_RESPONSE")
    for index, item in enumerate(raw_calls):
        if not isinstance(item, dict):
            raise EntrantError(
                f"tool_calls[{index}] is not an object", code="ENDPOINT_BAD_RESPONSE"
            )
        function = as_object(item.get("function"))
        name = function.get("name") if isinstance(function.get("name"), str) else ""
        arguments, problem = tool_arguments(function.get("arguments"))
        if not name:
            problem = "the tool call names no function"
        call_id = item.get("id") if isinstance(item.get("id"), str) and item.get("id") else None
        calls.append(
            ToolCallRequest(
                id=call_id or f"call_{index}",
                name=name,
                arguments=arguments,
                arguments_error=problem,
                provider_state=call_state(item),
            )
        )
    check_state(calls)
    if calls and (state := message_state(message, content)) is not None:
        # On the first call, as Anthropic's thinking is: it goes back on the message. Past
        # what a trace keeps it is left off, not refused: most servers never ask for it.
        first = calls[0]
        kept = [
            first.model_copy(
                update={"provider_state": {**(first.provider_state or {}), MESSAGE_STATE: state}}
            )
        ]
        try:
            check_state(kept + calls[1:])
        except EntrantError:
            kept = calls[:1]
        calls[0] = kept[0]
    finish = choice.get("finish_reason")
    if finish == "length" and calls:
        # the cap cut the answer inside its last call (the calls come after the text)
        calls[-1] = cut_short(calls[-1], "finish_reason 'length'")
    check_filtered(finish, "finish_reason", content, len(calls), _flagged(choice))
    if not content.strip() and not calls:
        reasoning = thought + _text(message.get("reasoning_content") or message.get("reasoning"))
        extra = f", {len(reasoning)} characters of reasoning" if reasoning else ""
        raise EntrantError(
            "the endpoint answered with neither content nor tool calls "
            f"(finish_reason {choice.get('finish_reason')!r}{extra})",
            code="ENTRANT_EMPTY_RESPONSE",
        )
    return ModelResponse(content=content, tool_calls=calls, usage=parse_usage(data.get("usage")))


def _flagged(choice: dict[str, Any]) -> str:
    """What Azure OpenAI's filter flagged (``content_filter_results``: ``{hate: {filtered:
    true, severity: "high"}, ...}``) as ``: hate (high)``; nothing when it does not say."""
    results = choice.get("content_filter_results")
    if not isinstance(results, dict):
        return ""
    flagged = [
        name + (f" ({result['severity']})" if isinstance(result.get("severity"), str) else "")
        for name, result in results.items()
        if isinstance(result, dict) and result.get("filtered") is True
    ]
    return ": " + ", ".join(flagged) if flagged else ""


class ChatStream:
    """Assembles ``chat.completion.chunk`` events into one ``chat.completion`` body."""

    def done(self, event: SseEvent) -> bool:
        return bool(event.data == "[DONE]")

    def served(self, body: dict[str, Any]) -> bool:
        """Whether the assembled body holds text the model generated (content, reasoning or
        a refusal): an answer empty after that was generated so, not a stream left unserved."""
        choices = body.get("choices") or [{}]
        message = as_object(as_object(choices[0]).get("message"))
        return bool(message.get("reasoning_details")) or any(
            isinstance(message.get(key), str) and message[key].strip()
            for key in ("content", "reasoning_content", "reasoning", "refusal")
        )

    def assemble(self, events: list[SseEvent]) -> dict[str, Any]:
        head: dict[str, Any] = {}
        content: list[str] = []
        reasoning: dict[str, list[str]] = {"reasoning_content": [], "reasoning": []}
        details: dict[int, dict[str, Any]] = {}  # reasoning_details, by their index
        refusal: list[str] = []
        calls: dict[tuple[int, int], dict[str, Any]] = {}
        finish: Any = None
        usage: Any = None
        filters: Any = None
        saw_done = False
        for event in events:
            data = event.data
            if data == "[DONE]":
                saw_done = True
                continue
            if not isinstance(data, dict):
                raise AttemptFailed(
                    Failure(
                        code="ENDPOINT_BAD_JSON",
                        message="a stream event is not a JSON object",
                        retryable=True,
                    )
                )
            if (
                event.event == "error"
                or data.get("error") is not None
                or data.get("object") == "error"  # vLLM-style bare error objects
            ):
                error = data.get("error") or data
                said = error.get("message") if isinstance(error, dict) else error
                raise AttemptFailed(
                    Failure(
                        code="ENDPOINT_STREAM_ERROR",
                        message=f"the stream reported an error: {quoted(said)}",
                        retryable=True,
                    )
                )
            for key in ("id", "model", "created", "system_fingerprint"):
                # Not from a chunk that leaves them empty (Azure's first, prompt_filter_results)
                if data.get(key) and key not in head:
                    head[key] = data[key]
            if isinstance(data.get("usage"), dict):
                usage = data["usage"]
            elif isinstance(as_object(data.get("x_groq")).get("usage"), dict):
                usage = data["x_groq"]["usage"]  # Groq: the stream's usage is there
            for choice in data.get("choices") or []:
                if not isinstance(choice, dict) or choice.get("index", 0) not in (0, None):
                    continue
                delta = as_object(choice.get("delta"))
                if isinstance(delta.get("content"), str):
                    content.append(delta["content"])
                elif isinstance(delta.get("content"), list):  # Mistral: a list of chunks
                    content.append(_text(delta["content"]))
                    if thinking := _thinking(delta["content"]):
                        reasoning["reasoning_content"].append(thinking)
                if isinstance(delta.get("refusal"), str):
                    refusal.append(delta["refusal"])
                for key in ("reasoning_content", "reasoning"):
                    # each under its own key: it goes back under the key it came as
                    if isinstance(delta.get(key), str):
                        reasoning[key].append(delta[key])
                if isinstance(delta.get("reasoning_details"), list):
                    _merge_details(details, delta["reasoning_details"])
                parts = delta.get("tool_calls") or []
                if isinstance(parts, dict):  # TGI 2.x: one call as an object, not a list
                    parts = [parts]
                if isinstance(parts, list):
                    for position, part in enumerate(parts):
                        if isinstance(part, dict):
                            self._merge_call(calls, part, position)
                if choice.get("finish_reason") is not None:
                    finish = choice["finish_reason"]
                    # Azure OpenAI: what its filter flagged, beside finish_reason content_filter
                    filters = choice.get("content_filter_results", filters)
        if finish in FAILED_FINISH:
            # OpenRouter: generation failed mid-stream ("error"); vLLM and SGLang: the engine
            # aborted the request (shutting down, paused, scaled down: "abort", then [DONE]).
            raise AttemptFailed(
                Failure(
                    code="ENDPOINT_STREAM_ERROR",
                    message=f"the stream ended with finish_reason {finish!r}: the answer is cut "
                    "short",
                    retryable=True,
                )
            )
        if not saw_done and finish is None:
            raise AttemptFailed(
                Failure(
                    code="ENDPOINT_BAD_JSON",
                    message="the stream ended before its last event",
                    retryable=True,
                )
            )
        if finish is None:  # [DONE] came, but no chunk ever said the answer ended
            raise AttemptFailed(
                Failure(
                    code="ENDPOINT_STREAM_CUT",
                    message="the stream sent [DONE] with no finish_reason: the answer may be "
                    "cut short",
                    retryable=True,
                )
            )
        message: dict[str, Any] = {"role": "assistant", "content": "".join(content) or None}
        for key, parts in reasoning.items():
            if parts:
                message[key] = "".join(parts)
        if details:
            message["reasoning_details"] = [details[index] for index in sorted(details)]
        if "".join(refusal):
            message["refusal"] = "".join(refusal)
        if calls:
            message["tool_calls"] = [calls[index] for index in sorted(calls)]
        body: dict[str, Any] = {
            **head,
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        }
        if filters is not None and finish == "content_filter":
            body["choices"][0]["content_filter_results"] = filters
        if usage is not None:
            body["usage"] = usage
        return body

    @staticmethod
    def _merge_call(
        calls: dict[tuple[int, int], dict[str, Any]], part: dict[str, Any], position: int
    ) -> None:
        """Adds one ``tool_calls`` delta to the call it continues, keyed by (index, n): a
        delta that names a function under a new id starts another call even at an index
        already used (Ollama, LiteLLM and lmdeploy stream parallel calls all at index 0), and
        so does one that names a function and brings arguments after the call at its index
        already holds a whole JSON value with no id to tell them apart."""
        index = part.get("index")
        if not isinstance(index, int):
            index = position
        function = as_object(part.get("function"))
        name = function.get("name")
        new_id = part.get("id") if isinstance(part.get("id"), str) and part["id"] else None
        latest = max((n for i, n in calls if i == index), default=None)
        slot = None if latest is None else calls[(index, latest)]
        if slot is not None and isinstance(name, str) and name and slot["function"]["name"]:
            another_id = new_id is not None and slot["id"] is not None and new_id != slot["id"]
            if another_id or (new_id is None and function.get("arguments") and _whole(slot)):
                slot = None
        if slot is None:
            slot = {"id": None, "type": "function", "function": {"name": "", "arguments": ""}}
            calls[(index, 0 if latest is None else latest + 1)] = slot
        if new_id is not None:
            slot["id"] = new_id
        if isinstance(name, str) and name and not slot["function"]["name"]:
            slot["function"]["name"] = name
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            slot["function"]["arguments"] += arguments
        elif isinstance(arguments, dict):
            slot["function"]["arguments"] += json.dumps(arguments, ensure_ascii=False)
        for key in STATE_KEYS:
            # Gemini: on the call's delta, or in a delta of its own after it (no name, no
            # arguments); what came first for a key stays
            if isinstance(part.get(key), dict) and part[key]:
                slot[key] = _merged(slot.get(key), part[key])


DETAIL_TEXT = ("text", "summary", "data")
"""The fields of a ``reasoning_details`` item a stream sends in pieces (OpenRouter: the
``reasoning.text``, ``reasoning.summary`` and ``reasoning.encrypted`` items)."""


def _merge_details(details: dict[int, dict[str, Any]], parts: list[Any]) -> None:
    """Adds a delta's ``reasoning_details`` to the items they continue, by ``index`` (else
    their place in the list): the text fields joined, any other field as it first came."""
    for position, part in enumerate(parts):
        if not isinstance(part, dict):
            continue
        index = part.get("index")
        item = details.setdefault(index if isinstance(index, int) else position, {})
        for key, value in part.items():
            if key in DETAIL_TEXT and isinstance(value, str) and isinstance(item.get(key), str):
                item[key] += value
            elif item.get(key) is None:
                item[key] = value


def _merged(known: Any, more: dict[str, Any]) -> dict[str, Any]:
    """``more`` added to the object ``known`` key by key, at any depth; a value already there
    stays."""
    if not isinstance(known, dict):
        return more
    out = dict(known)
    for key, value in more.items():
        if key not in out:
            out[key] = value
        elif isinstance(out[key], dict) and isinstance(value, dict):
            out[key] = _merged(out[key], value)
    return out


def _whole(call: dict[str, Any]) -> bool:
    """Whether a streamed call's arguments so far are one whole JSON value."""
    try:
        json.loads(call["function"]["arguments"])
    except ValueError:
        return False
    return True


def asks_for_reasoning(exc: EntrantError | HarnessFault) -> bool:
    """Whether a call failed because the server wants the reasoning of the assistant messages
    that called tools, which the harness keeps but does not send until asked: a refused
    request whose words name a reasoning key and say it is missing or must come back."""
    said = str(exc)
    lowered = said.lower()
    return (
        exc.code in (REQUEST_REFUSED, "ENDPOINT_REJECTED")
        and any(key in said for key in REASONING_KEYS)
        and any(word in lowered for word in ("missing", "must", "required"))
    )


class OpenAITarget:
    def __init__(self, spec: TargetSpec, *, rng: random.Random | None = None) -> None:
        self.spec = spec
        key = spec.api_key()
        headers = {"authorization": f"Bearer {key}"} if key else {}
        self.http = HttpEndpoint(spec, headers, rng=rng)
        self.refusals = Refusals()  # what the server refused, for the rest of the run

    async def complete(self, request: ModelRequest) -> ModelResponse:
        stream = ChatStream() if self.spec.stream else None

        def build(reasoning: bool) -> dict[str, Any]:
            return request_body(request, self.spec, reasoning=reasoning)

        async def post(body: dict[str, Any]) -> Posted:
            return await self.http.post_parsed(PATH, body, stream, parse_completion)

        # Neither kind of resend is the entrant's error: usage in a stream is asked for and a
        # server may not know the field (refusals.NEUTRAL); reasoning is kept back until a
        # server wants it.
        sent, _, told = await self.refusals.send(build, post, asks_for_reasoning, request.params)
        reply, body, warnings, response = sent
        # The body is already scrubbed of the key, so is everything parsed from it.
        raw = reply.raw(PATH, body)
        required = body.get("tool_choice") == "required" and bool(body.get("tools"))
        if warnings := [*told, *warnings, *choice_warnings(required, response)]:
            raw["warnings"] = warnings
        return response.model_copy(update={"raw": raw})

    def limit_in_flight(self, concurrency: int) -> None:
        """Before a run: its requests in flight at the server (``inflight``)."""
        self.http.in_flight.size_for(concurrency)

    async def aclose(self) -> None:
        await self.http.aclose()


__all__ = [
    "ARGUMENT_DEPTH",
    "ChatStream",
    "MESSAGE_STATE",
    "OpenAITarget",
    "REASONING_KEYS",
    "REASONING_ASKED",
    "STATE_KEYS",
    "STREAM_OPTIONS_REFUSED",
    "call_state",
    "message_state",
    "parse_completion",
    "parse_usage",
    "asks_for_reasoning",
    "refuses_stream_options",
    "request_body",
    "too_deep",
    "tool_arguments",
    "wire_call",
    "wire_messages",
    "wire_tools",
]
