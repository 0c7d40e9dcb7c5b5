"""One attempt: drive the entrant through a task's conversation in a fresh mock world.

The harness owns the agent loop: it offers the task's tools, asks the target for one
completion at a time, runs the tool calls the response asks for, and feeds the results back,
until the response has no tool calls (that content is the answer to the user turn). The agent
answers at every input user message that the input does not itself answer.

Entrants that run their own loop (``kind: http-agent``) take another branch, ``agent.py``: one
request per user turn, their tool calls served and recorded by the harness's tool server.

Who is to blame is decided here: an exception from the target is the entrant's
(``EntrantFault`` → *errored*); an exception from the mock world or our own code is ours
(*harness fault*). A model server's refusal of our request (``REQUEST_REFUSED``) is ours; the
same error raised by a scripted entrant's own code is the entrant's (``bench.core.refused``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from bench.core.canonical import canonical_json
from bench.core.clock import AttemptClock
from bench.core.errors import BenchError, EntrantError
from bench.core.refused import MODEL_SERVER_KINDS
from bench.core.trace import Exchange, Message, ToolCall, Trace, Usage
from bench.targets.base import (
    FAILED_CALL,
    REQUEST_REFUSED,
    ModelRequest,
    ModelResponse,
    Pricing,
    Target,
    counted,
    failed_call,
    is_agent,
)
from bench.targets.http import NeverConnected
from bench.tasks.model import Task
from bench.world import World
from bench.world.selection import select_tool_defs

from .agent import ToolServer, run_agent_attempt
from .budget import Meter, OverBudget
from .recording import RequestRecorder

# A scripted entrant's own code raised (docs/ERRORS.md): its errored reason's code.
ENTRANT_EXCEPTION = "ENTRANT_EXCEPTION"


class EntrantFault(Exception):
    """The target raised: the attempt is *errored* with this reason. ``unreachable``: the
    endpoint never answered anything in this attempt (every HTTP attempt of its only call
    failed to connect), what stops a run whose endpoint went away (``engine.EndpointWatch``)."""

    def __init__(self, reason: str, *, unreachable: bool = False) -> None:
        self.reason = reason
        self.unreachable = unreachable
        super().__init__(reason)


def entrant_fault(exc: EntrantError, exchanges: list[Exchange]) -> EntrantFault:
    """The fault for a target's error: ``unreachable`` when the call never connected and no
    earlier exchange of the attempt was answered (an attempt that got any HTTP answer is the
    entrant's, whatever happened next)."""
    never = isinstance(exc, NeverConnected) and all(
        FAILED_CALL in exchange.response for exchange in exchanges
    )
    return EntrantFault(f"{exc.code}: {exc.message}", unreachable=never)


@dataclass
class TraceBuilder:
    """Collects the trace as the attempt goes, so a failed attempt keeps what happened."""

    messages: list[Message] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    retrieved: list[str] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    usage_complete: bool = True
    cost: float = 0.0
    cost_complete: bool = True
    exchanges: list[Exchange] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)
    clock: AttemptClock = field(default_factory=AttemptClock)

    def mark(self) -> tuple[float, float]:
        """Now, for ``since``: the wall clock and the queue time so far."""
        return time.perf_counter(), self.clock.queued_s

    def since(self, mark: tuple[float, float]) -> float:
        """Seconds since ``mark``, less the time spent queued for a request slot."""
        began, queued = mark
        return max(0.0, time.perf_counter() - began - (self.clock.queued_s - queued))

    def build(self) -> Trace:
        # Measured when every answered call reported its tokens, and at least one answered.
        measured = self.usage_complete and any(
            FAILED_CALL not in e.response for e in self.exchanges
        )
        return Trace(
            messages=list(self.messages),
            tool_calls=list(self.tool_calls),
            retrieved=list(self.retrieved),
            answers=list(self.answers),
            usage=self.usage,
            usage_measured=measured,
            latency_s=round(self.since((self.started, 0.0)), 6),
            queue_s=round(self.clock.queued_s, 6),
            cost_usd=round(self.cost, 10) if (self.cost_complete and measured) else None,
            exchanges=list(self.exchanges),
        )


@dataclass
class Attempt:
    """The inputs of one attempt."""

    task: Task
    target: Target
    world: World
    meter: Meter
    pricing: Pricing | None
    trace: TraceBuilder = field(default_factory=TraceBuilder)
    tools: ToolServer | None = None  # agent-style targets: the run's tool server
    recorder: RequestRecorder = field(default_factory=RequestRecorder)

    async def run(self) -> None:
        if is_agent(self.target):
            await run_agent_attempt(self, self.tools)
            return
        spec = self.target.spec
        if spec.system_prompt:
            self.trace.messages.append(Message(role="system", content=spec.system_prompt))
        inputs = self.task.input
        turn = 0
        for index, message in enumerate(inputs):
            self.trace.messages.append(message)
            answered_by_input = index + 1 < len(inputs) and inputs[index + 1].role == "assistant"
            if message.role == "user" and not answered_by_input:
                await self._agent_turn(turn)
                turn += 1

    def _request(self) -> ModelRequest:
        spec = self.target.spec
        params: dict[str, Any] = dict(spec.params)
        tools = self.world.tool_defs()
        self.recorder.offer(tools, self.world.tool_parts())  # made once per task, not attempt
        selection = spec.tool_selection
        if selection is not None and selection.policy == "top-k":
            # Shown as a router would: the top k for the latest user message.
            asked = next((m.content for m in reversed(self.trace.messages) if m.role == "user"), "")
            tools = select_tool_defs(tools, asked, selection.policy, selection.k)
        if tools and spec.tool_choice != "auto":
            params["tool_choice"] = spec.tool_choice
        return ModelRequest(
            model=spec.model, messages=list(self.trace.messages), tools=tools, params=params
        )

    async def _complete(self, request: ModelRequest) -> ModelResponse:
        began = self.trace.mark()
        try:
            return await self.target.complete(request)
        except EntrantError as exc:
            fault = entrant_fault(exc, self.trace.exchanges)
            self._failed(request, code=exc.code, message=exc.message, began=began)
            raise fault from None
        except BenchError as exc:
            if self.target.spec.kind in MODEL_SERVER_KINDS:  # our HTTP code, or its recording
                if exc.code == REQUEST_REFUSED:  # the server's refusal of our request: recorded
                    self._failed(request, code=exc.code, message=exc.message, began=began)
                raise
            # A scripted entrant's own code raised one of our errors (a HarnessFault too): it
            # is the entrant's failure like any other exception, never a fault of ours.
            reason = f"{type(exc).__name__}: {exc}"
            self._failed(request, code=ENTRANT_EXCEPTION, message=reason, began=began)
            raise EntrantFault(f"{ENTRANT_EXCEPTION}: {reason}") from None
        except Exception as exc:  # whatever the entrant raised is the entrant's failure
            # Worded as every other errored reason, CODE: message, the code its replay raises.
            reason = f"{type(exc).__name__}: {exc}"
            self._failed(request, code=ENTRANT_EXCEPTION, message=reason, began=began)
            raise EntrantFault(f"{ENTRANT_EXCEPTION}: {reason}") from None

    def _failed(
        self, request: ModelRequest, *, code: str, message: str, began: tuple[float, float]
    ) -> None:
        """A model call that failed leaves its exchange too: the request and the error, so the
        trace and the cassette show what was asked and what came back (no tokens, no cost)."""
        wire, request_hash = self.recorder.wire(request)
        self.trace.exchanges.append(
            Exchange(
                index=len(self.trace.exchanges),
                request_hash=request_hash,
                request=wire,
                response=failed_call(code, message),
                latency_s=round(self.trace.since(began), 6),
            )
        )

    async def _agent_turn(self, turn: int) -> None:
        limit = self.task.limits.max_turns
        for _ in range(limit):
            request = self._request()
            began = self.trace.mark()
            response = await self._complete(request)
            self._account(request, response, self.trace.since(began))
            self.meter.check()
            if not response.tool_calls:
                self.trace.messages.append(Message(role="assistant", content=response.content))
                self.trace.answers.append(response.content)
                return
            self.trace.messages.append(
                Message(role="assistant", content=response.content, tool_calls=response.tool_calls)
            )
            for call in response.tool_calls:
                self.meter.tool_calls += 1
                self.meter.check()
                if call.arguments_error is not None:
                    self._refuse_tool(call.id, call.name, call.arguments_error, turn)
                    continue
                self._run_tool(call.id, call.name, call.arguments, turn)
            if self.task.first_response_scored():
                return  # only this response is scored: asking again can only cut it off
        raise OverBudget(["turns"], f"over budget: no final answer after {limit} model calls")

    def _refuse_tool(self, call_id: str, name: str, problem: str, turn: int) -> None:
        """Malformed arguments are the model's error: recorded, reported back, not executed."""
        error = f"the arguments are not a JSON object: {problem}"
        self.trace.tool_calls.append(
            ToolCall(id=call_id, name=name, arguments={}, error=error, turn=turn)
        )
        body = canonical_json({"error": error}).decode()
        self.trace.messages.append(
            Message(role="tool", content=body, tool_call_id=call_id, name=name)
        )

    def _run_tool(self, call_id: str, name: str, arguments: dict[str, Any], turn: int) -> None:
        outcome = self.world.call(name, arguments)
        self.trace.tool_calls.append(
            ToolCall(
                id=call_id,
                name=name,
                arguments=arguments,
                result=outcome.result,
                error=outcome.error,
                turn=turn,
                retrieved=list(outcome.retrieved),
            )
        )
        for passage in outcome.retrieved:
            if passage not in self.trace.retrieved:
                self.trace.retrieved.append(passage)
        body = {"error": outcome.error} if outcome.error is not None else outcome.result
        self.trace.messages.append(
            Message(
                role="tool", content=canonical_json(body).decode(), tool_call_id=call_id, name=name
            )
        )

    def _account(self, request: ModelRequest, response: ModelResponse, latency: float) -> None:
        if response.usage is not None:  # the budgets count what the endpoint reported
            self.meter.tokens += response.usage.total
            if self.pricing is not None:
                self.meter.dollars += self.pricing.cost(response.usage)
        # the record counts what it can hold (targets.base.counted)
        usage, cost = counted(self.trace.usage, self.trace.cost, response.usage, self.pricing)
        if usage is None:
            self.trace.usage_complete = False
        else:
            self.trace.usage = self.trace.usage.plus(usage)
        if cost is None:
            self.trace.cost_complete = False
        else:
            self.trace.cost += cost
        # request.wire() and its hash, from each message's dump made once per attempt
        wire, request_hash = self.recorder.wire(request)
        self.trace.exchanges.append(
            Exchange(
                index=len(self.trace.exchanges),
                request_hash=request_hash,
                request=wire,
                response=response.record(),
                latency_s=round(latency, 6),
                usage=usage,
                cost_usd=cost,
            )
        )


__all__ = ["ENTRANT_EXCEPTION", "Attempt", "EntrantFault", "TraceBuilder", "entrant_fault"]
