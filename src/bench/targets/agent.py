"""``http-agent``: an entrant that runs its own tool loop behind one HTTP endpoint.

Per user turn the harness POSTs to ``base_url`` (exactly; no path is appended)::

    {"task_id": "...", "turn": 0,
     "messages": [{"role": "user", "content": "..."}, ...],    # the conversation so far
     "tools": [{"name", "description", "parameters"}, ...],     # the task's tools
     "tools_url": "http://127.0.0.1:PORT/attempt/<token>"}

The agent calls ``POST {tools_url}/tools/<name>`` with the JSON arguments as many times as it
likes (the harness runs every call in this attempt's mock world and records it), then answers
``{"answer": "...", "usage"?: {"prompt_tokens", "completion_tokens", "cached_tokens"}}``.
Any other key is kept, raw, in the trace's exchange. No ``answer`` is the entrant's error
(``AGENT_NO_ANSWER``), as is an answer that is not a string (``AGENT_BAD_ANSWER``); HTTP faults
get the same ``ENDPOINT_*`` codes as the ``openai`` kind (``targets/http.py``).

A retried POST runs the turn again in the same world, so an agent target is not retried unless
its file sets ``retry`` (``max_attempts`` defaults to 1 here).
"""

from __future__ import annotations

import random
from typing import Any

from bench.core.errors import EntrantError
from bench.core.trace import Message, ToolDef, Usage

from .base import (
    AgentReply,
    ModelRequest,
    ModelResponse,
    RetrySettings,
    TargetSpec,
    token_counts,
)
from .http import HttpEndpoint

TOKEN_REDACTED = "<token>"


def read_usage(value: Any) -> Usage | None:
    """The agent's reported tokens; None (not measured) when absent, not an object, naming
    neither ``prompt_tokens`` nor ``completion_tokens`` (``input_tokens``, ``total_tokens``
    only: read as 0 they were a measured 0 tokens and, with pricing, $0), or with a count that
    is not a whole number (``token_counts``)."""
    if not isinstance(value, dict) or not ({"prompt_tokens", "completion_tokens"} & value.keys()):
        return None
    names = ("prompt_tokens", "completion_tokens", "cached_tokens")
    counts = token_counts(value, names, nullable=("cached_tokens",))
    return None if counts is None else Usage(**counts)


def wire_messages(messages: list[Message]) -> list[dict[str, Any]]:
    return [{"role": m.role, "content": m.content} for m in messages]


def recorded_tools_url(tools_url: str) -> str:
    """The tools URL without its per-attempt token, so recorded requests are reproducible."""
    head, sep, _ = tools_url.rpartition("/attempt/")
    return f"{head}{sep}{TOKEN_REDACTED}" if sep else tools_url


class AgentReplyError(EntrantError):
    """The agent answered HTTP 2xx with a body the harness cannot use; the body is kept."""

    def __init__(
        self, message: str, *, code: str, request: dict[str, Any], response: dict[str, Any]
    ) -> None:
        super().__init__(message, code=code)
        self.request = request
        self.response = response


class HttpAgentTarget:
    """One per run; the HTTP client is shared by the run's concurrent attempts."""

    def __init__(self, spec: TargetSpec, *, rng: random.Random | None = None) -> None:
        if "retry" not in spec.model_fields_set:
            key = spec.api_key()
            spec = spec.model_copy(update={"retry": RetrySettings(max_attempts=1)})
            spec = spec.with_api_key(key)
        self.spec = spec
        key = spec.api_key()
        headers = {"authorization": f"Bearer {key}"} if key else {}
        self._endpoint = HttpEndpoint(spec, headers, rng=rng)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        raise EntrantError(
            "an http-agent target runs its own loop; it answers whole turns, not model calls",
            code="AGENT_NOT_A_MODEL",
        )

    async def run_turn(
        self, task_id: str, turn: int, messages: list[Message], tools: list[ToolDef], tools_url: str
    ) -> AgentReply:
        body: dict[str, Any] = {
            "task_id": task_id,
            "turn": turn,
            "messages": wire_messages(messages),
            "tools": [tool.model_dump(mode="json") for tool in tools],
            "tools_url": tools_url,
        }
        reply = await self._endpoint.post("", body, None)
        data = reply.body
        recorded = {**body, "tools_url": recorded_tools_url(tools_url)}
        return agent_reply(recorded, data)

    def limit_in_flight(self, concurrency: int) -> None:
        """Before a run: its requests in flight at the server (``inflight``)."""
        self._endpoint.in_flight.size_for(concurrency)

    async def aclose(self) -> None:
        await self._endpoint.aclose()


def _json_type(value: Any) -> str:
    """What a decoded JSON value is, in JSON's words (``null``, not ``NoneType``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return "a string" if isinstance(value, str) else f"a {type(value).__name__}"


def agent_reply(request: dict[str, Any], response: dict[str, Any]) -> AgentReply:
    """The agent's turn from its reply body: ``AGENT_NO_ANSWER`` / ``AGENT_BAD_ANSWER`` (with
    the request and reply, so the trace keeps them) when it has no string ``answer``. The run
    and verify's re-drive both read a reply here, so an errored attempt's reason is the same
    words in both (verify binds it, ``verify.binding``)."""
    if "answer" not in response:
        keys = ", ".join(sorted(response)) or "none"
        raise AgentReplyError(
            f"the agent's reply has no 'answer' (keys: {keys})",
            code="AGENT_NO_ANSWER",
            request=request,
            response=response,
        )
    answer = response["answer"]
    if not isinstance(answer, str):
        raise AgentReplyError(
            f"the agent's 'answer' is {_json_type(answer)}, not a string",
            code="AGENT_BAD_ANSWER",
            request=request,
            response=response,
        )
    usage = read_usage(response.get("usage"))
    return AgentReply(answer=answer, usage=usage, request=request, response=response)


__all__ = ["AgentReplyError", "HttpAgentTarget", "agent_reply", "read_usage", "recorded_tools_url"]
