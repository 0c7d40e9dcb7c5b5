"""The trace contract: everything an entrant did on one attempt.

A trace is enough to re-score an attempt offline: the messages, every tool call with its
arguments and result, the passages retrieval returned, tokens, latency, cost, and each model
exchange's full request and response (which is also what a cassette replays).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from .models import FORMAT_VERSION, Strict

Role = Literal["system", "user", "assistant", "tool"]

# Bounds no real attempt reaches, so that sums over a whole board stay finite numbers (a page
# whose JSON holds Infinity does not load).
MAX_TOKENS = 10**12
MAX_SECONDS = 10.0**6
MAX_DOLLARS = 10.0**6


def plain_zero(value: float | None) -> float | None:
    """``value`` with -0.0 read as 0.0: it passes a ``ge=0`` bound and printed as "-0.000".
    A field validator of each non-negative float a record has (its JSON Schema unchanged)."""
    return 0.0 if value == 0 else value


class ToolCallRequest(Strict):
    """A tool call as the model asked for it."""

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    arguments_error: str | None = Field(
        None, description="the model sent arguments that are not a JSON object (its error)"
    )
    provider_state: dict[str, Any] | None = Field(
        None,
        # Left out when absent, so a trace from before the field reads and writes as it did.
        exclude_if=lambda value: value is None,
        description="opaque state the provider attached to this call and refuses the next "
        "request without (Gemini's thought signature, Anthropic's thinking blocks before the "
        "call): read from the response by the target and sent back with the call as it came; "
        "never scored or shown (docs/TARGETS.md)",
    )


class ToolDef(Strict):
    """A tool as offered to the model: name, description, JSON Schema of its arguments."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=dict)


class Message(Strict):
    role: Role
    content: str = ""
    tool_calls: list[ToolCallRequest] = Field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None


class ToolCall(Strict):
    """A tool call as it ran in the mock world."""

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    result: Any = None
    error: str | None = None
    turn: int = Field(0, ge=0, description="index of the user turn it answered")
    retrieved: list[str] = Field(default_factory=list, description="passage ids returned")


class Usage(Strict):
    prompt_tokens: int = Field(0, ge=0, le=MAX_TOKENS)
    completion_tokens: int = Field(0, ge=0, le=MAX_TOKENS)
    cached_tokens: int = Field(
        0, ge=0, le=MAX_TOKENS, description="part of prompt_tokens served from cache"
    )

    @model_validator(mode="after")
    def _clamp_cached(self) -> Usage:
        # Billing phantom cached tokens at the discount rate is a quiet way to win: clamp.
        if self.cached_tokens > self.prompt_tokens:
            object.__setattr__(self, "cached_tokens", self.prompt_tokens)
        return self

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def plus(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
        )


FAILED_CALL = "error"
"""The one key of a failed model call's recorded response: ``{"error": {"code", "message"}}``.
A successful response (a recorded ``ModelResponse``) never has it, so a cassette line and an
exchange say which they are without a new field; replaying one raises the recorded error."""


def failed_call(code: str, message: str) -> dict[str, Any]:
    """The recorded response of a model call that failed with ``code`` and ``message``."""
    return {FAILED_CALL: {"code": code, "message": message}}


class Exchange(Strict):
    """One model call: the full request and response, as a cassette stores them."""

    index: int = Field(ge=0)
    request_hash: str
    request: dict[str, Any]
    response: dict[str, Any]
    latency_s: float = Field(ge=0, le=MAX_SECONDS)
    usage: Usage | None = None
    cost_usd: float | None = Field(None, ge=0, le=MAX_DOLLARS)

    @field_validator("latency_s", "cost_usd")
    @classmethod
    def _plain_zero(cls, value: float | None) -> float | None:
        return plain_zero(value)


class Trace(Strict):
    format_version: Literal[1] = FORMAT_VERSION
    messages: list[Message] = Field(default_factory=list)
    tool_calls: list[ToolCall] = Field(default_factory=list)
    retrieved: list[str] = Field(
        default_factory=list, description="passage ids retrieval returned, first time seen"
    )
    answers: list[str] = Field(default_factory=list, description="final answer per user turn")
    usage: Usage = Field(default_factory=Usage)
    usage_measured: bool = Field(False, description="false when the entrant reported no tokens")
    latency_s: float = Field(0.0, ge=0, le=MAX_SECONDS)
    queue_s: float = Field(
        0.0,
        ge=0,
        le=MAX_SECONDS,
        description="seconds the model calls waited for a free request slot (another "
        "attempt's abandoned request, or max_in_flight); not part of latency_s",
    )
    cost_usd: float | None = Field(
        None, ge=0, le=MAX_DOLLARS, description="None means not measured, never $0"
    )
    exchanges: list[Exchange] = Field(default_factory=list)

    @field_validator("latency_s", "queue_s", "cost_usd")
    @classmethod
    def _plain_zero(cls, value: float | None) -> float | None:
        return plain_zero(value)

    @property
    def answer(self) -> str:
        """The final answer to the last user turn ('' when there was none)."""
        return self.answers[-1] if self.answers else ""

    def tools_called(self) -> list[str]:
        return [call.name for call in self.tool_calls]


__all__ = [
    "FAILED_CALL",
    "Exchange",
    "Message",
    "Role",
    "ToolCall",
    "ToolCallRequest",
    "ToolDef",
    "Trace",
    "Usage",
    "failed_call",
    "plain_zero",
]
