"""What every entrant speaks: a model request in, a model response out.

The harness runs the agent loop (offer tools, execute the calls in the mock world, feed the
results back) and asks the target for one completion at a time. That makes every exchange a
request/response pair that a cassette can record and replay, whatever the entrant is.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from pydantic import Field

from bench.core.canonical import canonical_json, sha256_hex
from bench.core.ids import ID_PATTERN
from bench.core.models import FORMAT_VERSION, Strict
from bench.core.trace import Message, ToolCallRequest, ToolDef, Usage


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
    content: str = ""
    tool_calls: list[ToolCallRequest] = Field(default_factory=list)
    usage: Usage | None = Field(None, description="None when the entrant reports no tokens")
    raw: dict[str, Any] | None = None


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


TargetKind = Literal["scripted", "cassette"]


class TargetSpec(Strict):
    """A target file: who the entrant is and how to reach it."""

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

    def comparable(self) -> dict[str, Any]:
        """The parts of the target that decide whether two runs are comparable."""
        return {
            "kind": self.kind,
            "model": self.model,
            "params": self.params,
            "system_prompt": self.system_prompt,
            "tool_choice": self.tool_choice,
        }


class Target(Protocol):
    """A loaded entrant. ``complete`` may raise ``EntrantError``; anything else it raises is
    also recorded as the entrant's error, never a crash of the run."""

    spec: TargetSpec

    async def complete(self, request: ModelRequest) -> ModelResponse: ...

    async def aclose(self) -> None: ...


__all__ = ["ModelRequest", "ModelResponse", "Pricing", "Target", "TargetKind", "TargetSpec"]
