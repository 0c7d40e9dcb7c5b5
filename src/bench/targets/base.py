"""What every entrant speaks: a model request in, a model response out.

The harness runs the agent loop (offer tools, execute the calls in the mock world, feed the
results back) and asks the target for one completion at a time. That makes every exchange a
request/response pair that a cassette can record and replay, whatever the entrant is.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal, Protocol, runtime_checkable
from urllib.parse import urlsplit

from pydantic import Field, PrivateAttr, field_validator

from bench.core.canonical import canonical_json, sha256_hex
from bench.core.errors import HARNESS_FAULT_CODES, EntrantError, HarnessFault
from bench.core.ids import ID_PATTERN
from bench.core.models import FORMAT_VERSION, Strict
from bench.core.recordtext import MAX_MARKS, mark_run
from bench.core.trace import (
    FAILED_CALL,
    MAX_DOLLARS,
    MAX_TOKENS,
    Message,
    ToolCallRequest,
    ToolDef,
    Usage,
    failed_call,
)
from bench.core.validation import not_json
from bench.tasks.cases.check import PolicyFile

ARGUMENT_DEPTH = 32
"""The deepest nesting of tool arguments the harness takes. Deeper arguments are the model's
malformed call, refused like arguments that are not JSON. ``bench verify`` reads no record line
nested deeper than 64 (``LIMIT_DEPTH``), and a recorded attempt keeps a call's arguments six
levels down (``trace.exchanges[i].response.tool_calls[j].arguments``): the 64 this was until
2026-12-07 let a model's 60-deep call through and made its whole bundle unverifiable."""


BODY_DEPTH = 48
"""The deepest nesting of a response body, or of a stream event's data, the harness takes. A
recorded attempt keeps a body five levels down and ``bench verify`` reads no line nested deeper
than 64 (``LIMIT_DEPTH``): a deeper body made the whole bundle unverifiable, past about 500
levels stopped ``bench run`` with a traceback (the trace could not be written), and past
about 1,000 could not be parsed. No server's answer nests anywhere near this."""


def too_deep(value: Any, limit: int = ARGUMENT_DEPTH) -> bool:
    """Whether a JSON value nests deeper than ``limit`` levels (``{}`` is one level); read
    without recursion."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            if level >= limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return False


STATE_BYTES = 256 * 1024
"""The most provider state (``ToolCallRequest.provider_state``) one answer's tool calls may
carry back, as compact JSON: every later request of the attempt repeats it, and the trace
records each request (twice: as asked and as sent), so it is bounded like everything a trace
holds. A Gemini thought signature is a few hundred bytes; Anthropic's thinking blocks are the
thinking text itself, which the target's ``budget_tokens`` bounds."""

STATE_DEPTH = 8
"""The deepest nesting of one call's provider state: a recorded attempt keeps it eleven levels
down (``trace.exchanges[i].response.raw.request.messages[j].tool_calls[k]``) and ``bench
verify`` reads no record line nested deeper than 64 (``LIMIT_DEPTH``). Gemini's nests three
levels, Anthropic's blocks three."""


def check_state(calls: list[ToolCallRequest]) -> None:
    """``ENDPOINT_BAD_RESPONSE`` when the provider state an answer's calls carry back is more
    than a trace keeps (``STATE_BYTES``, ``STATE_DEPTH``): refused here, with what it was, not
    cut (a cut signature is refused by the provider on the next request anyway)."""
    states = [call.provider_state for call in calls if call.provider_state is not None]
    if not states:
        return
    if any(too_deep(state, STATE_DEPTH) for state in states):
        raise EntrantError(
            f"the state the provider attached to the answer's tool calls nests deeper than "
            f"{STATE_DEPTH} levels: more than a trace keeps",
            code="ENDPOINT_BAD_RESPONSE",
        )
    size = len(json.dumps(states, ensure_ascii=False, separators=(",", ":")).encode())
    if size > STATE_BYTES:
        raise EntrantError(
            f"the state the provider attached to the answer's tool calls (a thought signature, "
            f"thinking blocks) is {size} bytes, over the {STATE_BYTES} a trace keeps and sends "
            "back with every later request (a smaller thinking budget keeps it under)",
            code="ENDPOINT_BAD_RESPONSE",
        )


def cut_short(call: ToolCallRequest, stop: str) -> ToolCallRequest:
    """The last tool call of an answer its token cap cut (``stop`` says how the server said
    so): never run as if whole, whatever its arguments. Arguments that still parse may be a
    prefix of the ones the model was writing; a server may also send unparsable ones as
    ``{}`` (llama.cpp's ``/v1/messages``). The model is told, as for any malformed call."""
    said = (
        f"the answer stopped at its token cap ({stop}) inside this call, so its arguments "
        "may be incomplete"
    )
    return call.model_copy(
        update={
            "arguments_error": said + (f": {call.arguments_error}" if call.arguments_error else "")
        }
    )


class ModelRequest(Strict):
    model: str
    messages: list[Message]
    tools: list[ToolDef] = Field(default_factory=list)
    params: dict[str, Any] = Field(default_factory=dict, description="sampling parameters")

    def wire(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def request_hash(self) -> str:
        """SHA-256 of the canonical request: a cassette matches on all of it, not a URL."""
        return sha256_hex(canonical_json(self.wire()))


class ModelResponse(Strict):
    """One completion. ``raw`` is what the wire carried, and it is JSON-native (what
    ``json.loads`` returns: dicts with string keys, lists, strings, numbers, booleans, None):
    the harness records it as it is, without another walk (``ScriptedTarget`` converts what a
    scripted entrant returns)."""

    content: str = ""
    tool_calls: list[ToolCallRequest] = Field(default_factory=list)
    usage: Usage | None = Field(None, description="None when the entrant reports no tokens")
    raw: dict[str, Any] | None = None

    def record(self) -> dict[str, Any]:
        """``model_dump(mode="json")``, with ``raw`` taken as it is (it is JSON-native)
        instead of copied value by value: the copy was most of the cost of recording an
        exchange (docs/PERFORMANCE.md)."""
        dumped = self.model_dump(mode="json", exclude={"raw"})
        dumped["raw"] = self.raw
        return dumped


REQUEST_REFUSED = "REQUEST_REFUSED"
"""The harness-fault code of a model call the server refused as malformed (a validation error
of the harness's own request): ours to fix, never the entrant's error."""


def raise_recorded_failure(response: dict[str, Any]) -> None:
    """Raise the error a recorded failed call carries (nothing for a successful one): the
    harness's own fault as ``HarnessFault``, anything else as the entrant's ``EntrantError``."""
    failure = response.get(FAILED_CALL)
    if not isinstance(failure, dict):
        return
    code, message = str(failure.get("code", "")), str(failure.get("message", ""))
    if code in HARNESS_FAULT_CODES:
        raise HarnessFault(message, code=code)
    raise EntrantError(message, code=code or "ENTRANT_ERROR")


TOOL_CHOICE_NOT_ENFORCED = "tool_choice_not_enforced"
"""A warning in an exchange's ``raw``: the request asked for ``tool_choice: required`` (with
tools offered) and the endpoint let the model answer without a tool call. The answer is still
the model's and is scored as it is; the run's summary counts these (docs/TARGETS.md)."""


STREAM_EMPTY = "ENDPOINT_STREAM_EMPTY"
"""A streamed call whose server answered 200 with an event stream and closed it before its
first event. llama-cpp-python 0.3.36 does this whenever it cannot stream the answer (a tool
call with ``tool_choice: auto``: "Automatic streaming tool choice is not supported", said only
in its own log). Not retried as a stream: the call is asked again without streaming."""

EMPTY_RESPONSE = "ENTRANT_EMPTY_RESPONSE"
"""An answer with neither content nor tool calls. Streamed, it is what a gateway (LiteLLM)
relays when the server behind it closed the stream before its first event."""

STREAM_NOT_SERVED = "stream_not_served"
"""A warning in an exchange's ``raw``: the streamed call came back empty (``STREAM_EMPTY`` or
``EMPTY_RESPONSE``) and its answer is the same request asked again without streaming. The
run's summary counts these."""


FILTERED = {
    "content_filter": "the provider's content filter",  # OpenAI, Azure OpenAI
    "refusal": "the provider's safety classifier",  # Anthropic: its streaming classifiers
}
"""Finish and stop reasons by which the provider, not the model, stopped the answer: what came
before is not the model's answer."""


def _got(content: str, calls: int) -> str:
    return f"{len(content)} characters of text" + (f" and {calls} tool call(s)" if calls else "")


def check_filtered(stop: Any, field: str, content: str, calls: int, said: str = "") -> None:
    """``ENDPOINT_FILTERED`` when ``stop`` (a ``finish_reason`` or ``stop_reason``) says the
    provider stopped the answer (``FILTERED``; ``said`` names what it flagged), even an empty
    one: not retried, and not asked again unstreamed, since the same request would be stopped
    again. Checked once per call, on the assembled answer."""
    if isinstance(stop, str) and stop in FILTERED:
        raise EntrantError(
            f"{FILTERED[stop]} stopped the answer ({field} {stop!r}{said}) after "
            f"{_got(content, calls)}: not the model's answer, so not scored",
            code="ENDPOINT_FILTERED",
        )


def check_held(content: str) -> None:
    """``ENDPOINT_BAD_JSON`` when an answer's text holds more than ``MAX_MARKS`` combining
    marks or invisible characters in a row. Each string of a body is held to that as it comes
    in (``http.loads_strict``), but a parser joins strings (Anthropic's text blocks, the parts
    of a list ``content``), and two runs within it may join into one past it: recorded, that
    answer made an honest run's bundle unverifiable (``LIMIT_COMBINING``)."""
    start = mark_run(content)
    if start is not None:
        raise EntrantError(
            f"the answer's text holds more than {MAX_MARKS} combining marks or invisible "
            f"characters in a row (from character {start}): text a trace cannot hold",
            code="ENDPOINT_BAD_JSON",
        )


def choice_warnings(required: bool, response: ModelResponse) -> list[str]:
    """``[TOOL_CHOICE_NOT_ENFORCED]`` when a required tool call did not come, else ``[]``."""
    return [TOOL_CHOICE_NOT_ENFORCED] if required and not response.tool_calls else []


THINK_OPEN, THINK_CLOSE = "<think>", "</think>"


def split_think(text: str) -> tuple[str, str]:
    """``(answer, reasoning)``: a text that begins with the model's reasoning in ``<think>``
    tags (DeepSeek-R1, QwQ, Qwen3 served without a reasoning parser: Ollama, Together, Groq's
    ``raw`` format, vLLM and llama.cpp left to their defaults) split into the answer after the
    block and the reasoning in it. A chat template that opens the block itself leaves only the
    ``</think>``: the text before it is the reasoning. A block never closed (the tokens ran
    out) is all reasoning, and the answer is empty. Any other text is all answer
    (docs/DECISIONS.md 54)."""
    if "think>" not in text:  # neither tag: the common case, kept cheap
        return text, ""
    body = text.lstrip()
    if body.startswith(THINK_OPEN):
        end = body.find(THINK_CLOSE)
        if end < 0:
            return "", body[len(THINK_OPEN) :]
        return body[end + len(THINK_CLOSE) :].lstrip(), body[len(THINK_OPEN) : end]
    end = text.find(THINK_CLOSE)
    if end >= 0 and THINK_OPEN not in text[:end]:
        return text[end + len(THINK_CLOSE) :].lstrip(), text[:end]
    return text, ""


def token_counts(
    usage: dict[str, Any], names: tuple[str, ...], nullable: tuple[str, ...] = ()
) -> dict[str, int] | None:
    """Each of ``names`` in a reported ``usage`` as a count of tokens: 0 when absent (or null,
    for one in ``nullable``: a field its API documents as nullable, a cache count). ``None``,
    usage not measured, when any is anything but a whole number from 0 to ``MAX_TOKENS`` (a
    string, a float, a negative number, a bool, null): read as 0, it was a measured 0 tokens
    and, with pricing, a measured $0. ``bench verify`` re-derives usage through the same
    readers, so a run and its verification agree."""
    counts: dict[str, int] = {}
    for name in names:
        value = usage.get(name)
        if value is None and (name not in usage or name in nullable):
            counts[name] = 0
        elif isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TOKENS:
            counts[name] = value
        else:
            return None
    return counts


class Pricing(Strict):
    """Published rates in US dollars per million tokens."""

    prompt_per_mtok: float = Field(ge=0)
    completion_per_mtok: float = Field(ge=0)
    cached_per_mtok: float | None = Field(None, ge=0, description="defaults to the prompt rate")

    def cost(self, usage: Usage) -> float:
        cached_rate = self.prompt_per_mtok if self.cached_per_mtok is None else self.cached_per_mtok
        uncached = usage.prompt_tokens - usage.cached_tokens
        return (
            uncached * self.prompt_per_mtok
            + usage.cached_tokens * cached_rate
            + usage.completion_tokens * self.completion_per_mtok
        ) / 1_000_000


def counted(
    total: Usage, spent: float, usage: Usage | None, pricing: Pricing | None
) -> tuple[Usage | None, float | None]:
    """What one model call (or an agent's turn) adds to its attempt's record: its tokens, and
    their cost at ``pricing``; None for either that is not measured. Neither is when the call
    reports no tokens, nor when adding them would take the attempt past what a record holds
    (``MAX_TOKENS`` a count, ``MAX_DOLLARS`` a cost): an endpoint may report up to
    ``MAX_TOKENS`` a call, and before 2026-12-07 two such calls, or one call priced past
    $1,000,000, failed the attempt's record inside the harness (a harness fault the endpoint
    chose). The run and verify's re-drive both count here, so they agree."""
    if usage is None:
        return None, None
    prompt = total.prompt_tokens + usage.prompt_tokens  # cached tokens are a part of these
    if max(prompt, total.completion_tokens + usage.completion_tokens) > MAX_TOKENS:
        return None, None
    if pricing is None:
        return usage, None
    cost = pricing.cost(usage)
    if not 0 <= cost <= MAX_DOLLARS or spent + cost > MAX_DOLLARS:  # NaN fails too
        return usage, None
    return usage, cost


TargetKind = Literal["scripted", "cassette", "openai", "anthropic", "http-agent"]
HTTP_KINDS: tuple[TargetKind, ...] = ("openai", "anthropic")
# Entrants that run their own tool loop (``AgentTarget``): one HTTP request per user turn.
AGENT_KINDS: tuple[TargetKind, ...] = ("http-agent",)

ENV_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # an RFC 9110 token
HEADER_VALUE = re.compile(r"[\x20-\x7e]*")  # printable ASCII: no CR or LF to split a request
MAX_HEADERS = 32
# What the harness sends itself, or what frames the request: a target's ``headers`` may not
# name them (the key goes in ``api_key_env``, the version in ``anthropic_version``).
OWN_HEADERS = frozenset(
    {
        "accept", "accept-encoding", "anthropic-version", "authorization", "connection",
        "content-encoding", "content-length", "content-type", "cookie", "expect", "host",
        "keep-alive", "proxy-authorization", "proxy-connection", "te", "trailer",
        "transfer-encoding", "upgrade", "user-agent", "x-api-key",
    }
)  # fmt: skip


class Timeouts(Strict):
    """How long an HTTP target waits. httpx's read timeout is per chunk, so a server dripping
    one byte a second never trips it: ``request_s`` bounds one HTTP attempt as a whole and
    ``deadline_s`` bounds the request with all its retries and back-off."""

    connect_s: float = Field(10.0, gt=0, description="opening the connection")
    read_s: float = Field(60.0, gt=0, description="between two chunks of the response")
    request_s: float = Field(120.0, gt=0, description="one HTTP attempt, headers to last byte")
    deadline_s: float = Field(300.0, gt=0, description="one model call, every retry included")


class RetrySettings(Strict):
    """Capped exponential back-off with full jitter: before retry *n* (1-based) the target waits
    ``uniform(0, min(cap_s, base_s * 2**(n-1)))``, or what ``Retry-After`` says."""

    max_attempts: int = Field(5, ge=1, le=50, description="HTTP attempts per model call")
    base_s: float = Field(0.5, ge=0)
    cap_s: float = Field(20.0, ge=0)
    seed: int | None = Field(None, description="seed of the jitter; None draws one")


class TargetSpec(Strict):
    """A target file: who the entrant is and how to reach it.

    An HTTP target's API key is never a field: the file names the environment variable that
    holds it (``api_key_env``) and ``resolve_spec`` attaches the value as a private attribute,
    which no dump, record or repr contains.
    """

    format_version: Literal[1] = FORMAT_VERSION
    kind: TargetKind
    entrant: str = Field(pattern=ID_PATTERN, max_length=64)
    display_name: str = Field(min_length=1, max_length=120)
    model: str = Field(min_length=1)
    callable: str | None = Field(
        None,
        description="scripted: 'path/to/file.py:name' (relative to the target file) "
        "or 'package.module:name'",
    )
    cassette: str | None = Field(
        None, description="cassette: a cassette.jsonl or a run directory, relative to the file"
    )
    pricing: Pricing | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    system_prompt: str | None = None
    tool_choice: Literal["auto", "required", "none"] = "auto"
    tool_selection: PolicyFile | None = Field(
        None,
        description="which tools the model is shown per message: all, or the top k by BM25 "
        "over name and description (as a router would); also read by 'bench check --target'",
    )
    provider: str | None = Field(
        None,
        pattern=r"^[A-Za-z0-9_]+$",
        max_length=40,
        description="openai/anthropic: read BENCH_<PROVIDER>_BASE_URL, _API_KEY and _MODEL "
        "from the environment or .env",
    )
    base_url: str | None = Field(
        None,
        repr=False,  # a URL can carry a token; reprs end up in logs
        description="openai: the API root the paths hang off (…/v1); anthropic: the host root "
        "(https://api.anthropic.com); http-agent: the URL each turn is POSTed to",
    )
    api_key_env: str | None = Field(
        None,
        pattern=ENV_NAME_PATTERN,
        description="the NAME of the environment variable that holds the API key",
    )
    endpoint_id: str | None = Field(
        None,
        pattern=r"^[0-9a-f]{12}$",
        description="written by the harness in a recorded target: sha256 of the full base URL",
    )
    headers: dict[str, str] | None = Field(
        None,
        description="openai/anthropic: more headers for every request, as a gateway in front "
        "of the model wants them (Portkey's x-portkey-provider); never a credential, never "
        "one the harness sends itself",
    )
    stream: bool = Field(False, description="openai/anthropic: ask for server-sent events")
    max_tokens_param: Literal["max_tokens", "max_completion_tokens"] = Field(
        "max_tokens", description="openai: the name the endpoint wants for the token cap"
    )
    anthropic_version: str = Field("2023-06-01", min_length=1)
    timeouts: Timeouts = Field(default_factory=Timeouts)
    retry: RetrySettings = Field(default_factory=RetrySettings)
    max_in_flight: int | None = Field(
        None,
        ge=1,
        le=1024,
        description="openai/anthropic/http-agent: at most this many requests at the server at "
        "once, below the run's concurrency (1 for a server that answers one at a time, as "
        "llama-cpp-python does); time waiting for a slot is queue time, not latency",
    )

    _api_key: str | None = PrivateAttr(None)

    @field_validator("params")
    @classmethod
    def _params_are_json(cls, params: dict[str, Any]) -> dict[str, Any]:
        # params are sent as JSON and hashed into the run's fingerprint: YAML's .nan, a date
        # or !!binary would otherwise end the run in a traceback after its directory exists.
        where = not_json(params)
        if where is not None:
            path, kind = where
            raise ValueError(f"{path}: {kind} is not a JSON value")
        return params

    @field_validator("headers")
    @classmethod
    def _headers_are_sendable(cls, headers: dict[str, str] | None) -> dict[str, str] | None:
        if headers is None:
            return None
        if len(headers) > MAX_HEADERS:
            raise ValueError(f"at most {MAX_HEADERS} headers")
        seen: set[str] = set()
        for name, value in headers.items():
            lower = name.lower()
            if not HEADER_NAME.fullmatch(name):
                raise ValueError(f"{name!r} is not a header name")
            if lower in OWN_HEADERS or lower.startswith(("proxy-", "sec-")):
                raise ValueError(
                    f"{name!r} is a header the harness sets itself (the key: api_key_env)"
                )
            if lower in seen:
                raise ValueError(f"{name!r} is named twice")
            seen.add(lower)
            if len(value) > 4096 or not HEADER_VALUE.fullmatch(value):
                raise ValueError(
                    f"the value of {name!r} is not one line of printable ASCII (4096 at most)"
                )
        return headers

    def api_key(self) -> str | None:
        """The resolved secret, if any; it lives only in memory."""
        return self._api_key

    def with_api_key(self, key: str | None) -> TargetSpec:
        copy = self.model_copy()
        copy._api_key = key or None
        return copy

    def recorded(self) -> dict[str, Any]:
        """What a run stores instead of ``model_dump``: no API key (it is never a field), and
        the base URL cut to ``scheme://host[:port]`` — a path or query can carry a token —
        with ``endpoint_id`` (12 hex of the sha256 of the full URL) to tell endpoints apart."""
        data = self.model_dump(mode="json")
        if self.headers is None:
            del data["headers"]  # a run's recorded target as before the field existed
        if self.base_url is not None:
            redacted = redact_url(self.base_url)
            already = self.endpoint_id is not None and redacted == self.base_url
            data["base_url"] = redacted
            data["endpoint_id"] = self.endpoint_id if already else endpoint_id(self.base_url)
        return data

    def comparable(self) -> dict[str, Any]:
        """The parts of the target that decide whether two runs are comparable."""
        return {
            "kind": self.kind,
            "model": self.model,
            "params": self.params,
            "system_prompt": self.system_prompt,
            "tool_choice": self.tool_choice,
            # Only when set, so runs from before the field existed keep their fingerprints.
            **(
                {"tool_selection": self.tool_selection.model_dump(mode="json")}
                if self.tool_selection is not None
                else {}
            ),
        }


def redact_url(url: str) -> str:
    """``scheme://host[:port]``: no user, password, path, query or fragment."""
    parts = urlsplit(url.strip())
    host = parts.hostname or ""
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = f"{host}:{port}" if port is not None else host
    return f"{parts.scheme}://{netloc}" if parts.scheme else netloc


def endpoint_id(url: str) -> str:
    """An opaque id of the full base URL (trailing slashes ignored): 12 hex of its sha256."""
    return sha256_hex(url.strip().rstrip("/").encode("utf-8"))[:12]


class Target(Protocol):
    """A loaded entrant. ``complete`` may raise ``EntrantError``; anything else it raises is
    also recorded as the entrant's error, never a crash of the run."""

    spec: TargetSpec

    async def complete(self, request: ModelRequest) -> ModelResponse: ...

    async def aclose(self) -> None: ...


@runtime_checkable
class AgentTarget(Protocol):
    """An entrant that runs its own tool loop (``kind: http-agent``). The harness calls
    ``run_turn`` once per user turn with the conversation so far, the offered tools and the URL
    of this attempt's tool server; the agent calls tools there and returns its answer.
    ``run_turn`` may raise ``EntrantError``, like ``complete``."""

    spec: TargetSpec

    async def run_turn(
        self, task_id: str, turn: int, messages: list[Message], tools: list[ToolDef], tools_url: str
    ) -> AgentReply: ...

    async def aclose(self) -> None: ...


class AgentReply(Strict):
    """One turn of an agent: its answer, the tokens it reports, and what went over the wire."""

    answer: str
    usage: Usage | None = None
    request: dict[str, Any] = Field(description="the body sent, as recorded (no tools_url token)")
    response: dict[str, Any] = Field(description="the body received, unknown keys included")


def is_agent(target: object) -> bool:
    """Whether the runner should hand this target the whole turn (``AgentTarget``)."""
    spec = getattr(target, "spec", None)
    # The kind first: a chat target fails that cheap test, and a protocol isinstance check
    # (called once per attempt) is not cheap.
    return getattr(spec, "kind", None) in AGENT_KINDS and isinstance(target, AgentTarget)


__all__ = [
    "ARGUMENT_DEPTH",
    "BODY_DEPTH",
    "FAILED_CALL",
    "FILTERED",
    "REQUEST_REFUSED",
    "failed_call",
    "raise_recorded_failure",
    "AGENT_KINDS",
    "AgentReply",
    "AgentTarget",
    "HTTP_KINDS",
    "check_filtered",
    "check_held",
    "counted",
    "cut_short",
    "ModelRequest",
    "ModelResponse",
    "Pricing",
    "RetrySettings",
    "Target",
    "TargetKind",
    "TargetSpec",
    "Timeouts",
    "endpoint_id",
    "is_agent",
    "redact_url",
    "token_counts",
    "too_deep",
]
