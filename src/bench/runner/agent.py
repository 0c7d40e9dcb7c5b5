"""Attempts of entrants that run their own tool loop (``kind: http-agent``).

The harness still owns the mock world: it serves each attempt's tools on a loopback HTTP
server, ``POST /attempt/<token>/tools/<name>`` with the JSON arguments as the body, and every
call is run in that attempt's world and recorded in the trace as it arrives (never taken from
the agent's own account). ``GET /attempt/<token>/tools`` lists the tools. One server serves a
run; each attempt gets a fresh random token, dropped when the attempt ends.

Answers (JSON, ``Connection: close``):

* ``200`` with the world's result, or ``{"error": ...}`` when the world refuses the call (an
  unknown tool, arguments the schema rejects): the same text a model would get;
* ``400 {"error": ...}`` for a body that is not a JSON object (recorded as a refused call);
* ``404`` for an unknown or finished attempt, ``409`` once the attempt is over budget or has
  failed on our side (the attempt ends with that outcome; the agent's pending request is
  cancelled), ``413`` for a body over 1 MiB.

Per user turn the target is asked once (``AgentTarget.run_turn``) with the conversation so far:
the system prompt, the input messages and the agent's earlier answers. Observed tool calls go
in the trace's messages (an assistant message with the call, then the tool message), not in
the conversation sent back to the agent.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from bench.core.canonical import canonical_json, sha256_hex
from bench.core.errors import BenchError, EntrantError, HarnessFault
from bench.core.recordtext import showable
from bench.core.trace import Exchange, Message, ToolCall, ToolCallRequest, ToolDef
from bench.targets.agent import AgentReplyError
from bench.targets.base import (
    ARGUMENT_DEPTH,
    REQUEST_REFUSED,
    AgentReply,
    AgentTarget,
    Pricing,
    counted,
    too_deep,
)
from bench.targets.http import loads_strict
from bench.world import World

from .budget import Meter, OverBudget

if TYPE_CHECKING:
    from .attempt import Attempt, TraceBuilder

MAX_BODY = 1024 * 1024
READ_TIMEOUT_S = 30.0
REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed"}
REASONS |= {409: "Conflict", 411: "Length Required", 413: "Payload Too Large", 500: "Error"}


TOOL_NAME_LIMIT = 256
"""The most characters of a tool name an agent's call keeps (no tool is named half as long)."""


def tool_name(name: str) -> str:
    """The tool an agent named in its call's URL, as a record may hold it: percent-decoded,
    the path may spell any text, and a control character, a non-character or a run of
    combining marks recorded as the name made the run's bundle unverifiable (``TEXT_INVALID``,
    ``LIMIT_COMBINING``). Such a name is kept escaped (``core.recordtext.showable``), cut to
    ``TOOL_NAME_LIMIT`` characters: no tool has it, so the call is the agent's unknown tool, as
    before. The same for a call the run took and verify's re-drive of it."""
    kept = showable(name)
    return kept if len(kept) <= TOOL_NAME_LIMIT else kept[:TOOL_NAME_LIMIT] + "…"


@dataclass
class ToolSession:
    """One attempt's side of the tool server: its world, its trace and its meter."""

    world: World
    trace: TraceBuilder
    meter: Meter
    turn: int = 0
    calls: int = 0
    failure: BaseException | None = None
    stopped: asyncio.Event = field(default_factory=asyncio.Event)

    def stop(self, failure: BaseException) -> None:
        if self.failure is None:
            self.failure = failure
        self.stopped.set()

    def tools(self) -> list[ToolDef]:
        return self.world.tool_defs()

    def call(self, name: str, body: bytes) -> tuple[int, Any]:
        if self.failure is not None:
            return 409, {"error": "this attempt is over"}
        name = tool_name(name)
        self.calls += 1
        call_id = f"call-{self.calls}"
        problem: str | None = None
        arguments: Any = None
        try:
            arguments = loads_strict(body or b"{}")
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            problem = f"not JSON ({type(exc).__name__ if isinstance(exc, RecursionError) else exc})"
        if problem is None and not isinstance(arguments, dict):
            problem = f"a JSON {type(arguments).__name__}"
        if problem is None and too_deep(arguments):
            # what a model's call gets (targets.openai.tool_arguments): recording deeper
            # arguments raised inside the harness and stopped the run
            problem = f"nested deeper than {ARGUMENT_DEPTH} levels"
        if problem is not None or not isinstance(arguments, dict):
            return 400, self._refuse(
                call_id, name, f"the arguments are not a JSON object: {problem}"
            )
        self.meter.tool_calls += 1
        try:
            self.meter.check()
        except OverBudget as exc:
            self.stop(exc)
            return 409, {"error": exc.detail}
        try:
            outcome = self.world.call(name, arguments)
        except Exception as exc:  # the world is ours: a harness fault, never the agent's
            self.stop(exc)
            return 500, {"error": "the harness failed to run this tool"}
        self.trace.tool_calls.append(
            ToolCall(
                id=call_id,
                name=name,
                arguments=arguments,
                result=outcome.result,
                error=outcome.error,
                turn=self.turn,
                retrieved=list(outcome.retrieved),
            )
        )
        for passage in outcome.retrieved:
            if passage not in self.trace.retrieved:
                self.trace.retrieved.append(passage)
        payload = {"error": outcome.error} if outcome.error is not None else outcome.result
        self._messages(call_id, name, arguments, payload)
        return 200, payload

    def refuse(self, name: str, error: str) -> None:
        """Record a call whose body was refused (``error`` as ``call`` words it); the verifier
        uses it to re-drive a recorded refusal, whose body the trace does not keep."""
        self.calls += 1
        self._refuse(f"call-{self.calls}", tool_name(name), error)

    def _refuse(self, call_id: str, name: str, error: str) -> dict[str, str]:
        self.trace.tool_calls.append(
            ToolCall(id=call_id, name=name, arguments={}, error=error, turn=self.turn)
        )
        self._messages(call_id, name, {}, {"error": error})
        return {"error": error}

    def _messages(self, call_id: str, name: str, arguments: dict[str, Any], payload: Any) -> None:
        request = ToolCallRequest(id=call_id, name=name, arguments=arguments)
        self.trace.messages.append(Message(role="assistant", tool_calls=[request]))
        self.trace.messages.append(
            Message(
                role="tool",
                content=canonical_json(payload).decode(),
                tool_call_id=call_id,
                name=name,
            )
        )


class ToolServer:
    """The loopback server that serves every agent attempt's tools during a run."""

    def __init__(self) -> None:
        self._server: asyncio.Server | None = None
        self._sessions: dict[str, ToolSession] = {}
        self._writers: set[asyncio.StreamWriter] = set()
        self.port = 0

    async def start(self) -> ToolServer:
        if self._server is None:
            self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
            self.port = self._server.sockets[0].getsockname()[1]
        return self

    def open(self, session: ToolSession) -> tuple[str, str]:
        """Register an attempt; returns its token and its ``tools_url``."""
        token = secrets.token_urlsafe(16)
        self._sessions[token] = session
        return token, f"http://127.0.0.1:{self.port}/attempt/{token}"

    def release(self, token: str) -> None:
        self._sessions.pop(token, None)

    async def aclose(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        for writer in list(self._writers):
            writer.close()
        await server.wait_closed()
        for writer in list(self._writers):
            with contextlib.suppress(Exception):
                await writer.wait_closed()
        self._writers.clear()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            try:
                async with asyncio.timeout(READ_TIMEOUT_S):
                    status, payload = await self._serve(reader)
            except (TimeoutError, ValueError, asyncio.IncompleteReadError, ConnectionError):
                status, payload = 400, {"error": "malformed HTTP request"}
            body = canonical_json(payload)
            head = (
                f"HTTP/1.1 {status} {REASONS.get(status, 'Error')}\r\n"
                "Content-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n"
                "Connection: close\r\n\r\n"
            )
            writer.write(head.encode("ascii") + body)
            with contextlib.suppress(ConnectionError):
                await writer.drain()
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
            self._writers.discard(writer)

    async def _serve(self, reader: asyncio.StreamReader) -> tuple[int, Any]:
        line = (await reader.readline()).decode("latin-1").strip()
        parts = line.split(" ")
        if len(parts) != 3:
            raise ValueError("bad request line")
        method, target, _ = parts
        headers: dict[str, str] = {}
        for _ in range(100):
            raw = (await reader.readline()).decode("latin-1")
            if raw in ("\r\n", "\n", ""):
                break
            name, _, value = raw.partition(":")
            headers[name.strip().lower()] = value.strip()
        else:
            raise ValueError("too many headers")
        if "chunked" in headers.get("transfer-encoding", "").lower():
            return 411, {"error": "send a Content-Length"}
        length = int(headers.get("content-length", "0") or "0")
        if length < 0:
            raise ValueError("negative Content-Length")
        if length > MAX_BODY:
            return 413, {"error": f"the body is over {MAX_BODY} bytes"}
        body = await reader.readexactly(length) if length else b""
        path = target.split("?", 1)[0]
        segments = [unquote(s) for s in path.strip("/").split("/")]
        if len(segments) < 3 or segments[0] != "attempt" or segments[2] != "tools":
            return 404, {"error": f"no such path {path}: POST /attempt/<token>/tools/<name>"}
        session = self._sessions.get(segments[1])
        if session is None:
            return 404, {"error": "no such attempt (it has ended, or the token is wrong)"}
        if len(segments) == 3:
            if method != "GET":
                return 405, {"error": "GET the tool list; POST /tools/<name> to call one"}
            return 200, [tool.model_dump(mode="json") for tool in session.tools()]
        if len(segments) != 4 or method != "POST":
            return 405, {"error": "call a tool with POST /attempt/<token>/tools/<name>"}
        return session.call(segments[3], body)


def _account(
    trace: TraceBuilder,
    meter: Meter,
    pricing: Pricing | None,
    reply: AgentReply,
    response: dict[str, Any],
    latency: float,
) -> None:
    if reply.usage is not None:  # the budgets count what the agent reported
        meter.tokens += reply.usage.total
        if pricing is not None:
            meter.dollars += pricing.cost(reply.usage)
    # the record counts what it can hold (targets.base.counted)
    usage, cost = counted(trace.usage, trace.cost, reply.usage, pricing)
    if usage is None:
        trace.usage_complete = False
    else:
        trace.usage = trace.usage.plus(usage)
    if cost is None:
        trace.cost_complete = False
    else:
        trace.cost += cost
    trace.exchanges.append(
        Exchange(
            index=len(trace.exchanges),
            request_hash=sha256_hex(canonical_json(reply.request)),
            request=reply.request,
            response=response,
            latency_s=round(latency, 6),
            usage=usage,
            cost_usd=cost,
        )
    )


async def run_agent_attempt(attempt: Attempt, server: ToolServer | None) -> None:
    """Drive an ``AgentTarget`` through the task's conversation (one request per user turn)."""
    if server is None:  # called outside a run: a server of its own for this attempt
        own = await ToolServer().start()
        try:
            await run_agent_attempt(attempt, own)
        finally:
            await own.aclose()
        return
    target = attempt.target
    assert isinstance(target, AgentTarget)
    trace = attempt.trace
    session = ToolSession(attempt.world, trace, attempt.meter)
    token, tools_url = server.open(session)
    conversation: list[Message] = []
    try:
        if target.spec.system_prompt:
            system = Message(role="system", content=target.spec.system_prompt)
            trace.messages.append(system)
            conversation.append(system)
        inputs = attempt.task.input
        turn = 0
        tools = attempt.world.tool_defs()
        for index, message in enumerate(inputs):
            trace.messages.append(message)
            conversation.append(message)
            answered_by_input = index + 1 < len(inputs) and inputs[index + 1].role == "assistant"
            if message.role == "user" and not answered_by_input:
                session.turn = turn
                answer = await _turn(attempt, target, session, turn, conversation, tools, tools_url)
                reply = Message(role="assistant", content=answer)
                trace.messages.append(reply)
                conversation.append(reply)
                trace.answers.append(answer)
                turn += 1
    finally:
        server.release(token)


async def _turn(
    attempt: Attempt,
    target: AgentTarget,
    session: ToolSession,
    turn: int,
    conversation: list[Message],
    tools: list[ToolDef],
    tools_url: str,
) -> str:
    from .attempt import ENTRANT_EXCEPTION, EntrantFault, entrant_fault

    began = attempt.trace.mark()
    call = asyncio.ensure_future(
        target.run_turn(attempt.task.id, turn, list(conversation), tools, tools_url)
    )
    stop = asyncio.ensure_future(session.stopped.wait())
    try:
        await asyncio.wait({call, stop}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (call, stop):
            task.cancel()
        await asyncio.gather(call, stop, return_exceptions=True)
    if session.failure is not None:
        raise session.failure
    latency = attempt.trace.since(began)
    try:
        reply = call.result()
    except AgentReplyError as exc:
        trace = attempt.trace
        trace.usage_complete = False
        trace.cost_complete = False
        trace.exchanges.append(
            Exchange(
                index=len(trace.exchanges),
                request_hash=sha256_hex(canonical_json(exc.request)),
                request=exc.request,
                response=exc.response,
                latency_s=round(latency, 6),
            )
        )
        raise EntrantFault(f"{exc.code}: {exc.message}") from None
    except EntrantError as exc:
        raise entrant_fault(exc, attempt.trace.exchanges) from None
    except HarnessFault as exc:
        if exc.code != REQUEST_REFUSED:
            raise
        # The agent refused the harness's turn as malformed: the turn is our own protocol,
        # which the agent serves, so the refusal is its error (bench.core.refused), never a
        # harness fault that its own words could take out of its score.
        raise EntrantFault(f"ENDPOINT_REJECTED: {exc.message}") from None
    except BenchError:
        raise
    except Exception as exc:  # whatever the entrant's side raised is the entrant's failure
        raise EntrantFault(f"{ENTRANT_EXCEPTION}: {type(exc).__name__}: {exc}") from None
    _account(attempt.trace, attempt.meter, attempt.pricing, reply, reply.response, latency)
    attempt.meter.check()
    return reply.answer


__all__ = ["ToolServer", "ToolSession", "run_agent_attempt"]
