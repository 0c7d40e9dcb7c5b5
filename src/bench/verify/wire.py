"""Every model call of an HTTP target bound to the bodies it recorded from the wire.

An ``openai`` or ``anthropic`` target records, for each call, the parsed answer (``content``,
``tool_calls``, ``usage``: what the re-drive serves, what the attempt is scored on and what the
transcript page shows) and, in ``raw``, the bodies the wire carried: ``raw.request``, the body
the harness sent, and ``raw.response``, the (assembled) body the server answered. The re-drive
reads the parsed answer only, so without this check a recording could say one thing in its
parsed answer and another in its own response body: an answer rewritten after the run (or
fewer tokens, a lower cost) beside the body the model really sent, published in the same
transcript file. Here, for every successful call (a failed call records no body), the target's
own parser (``parse_completion``, ``parse_message``) must read exactly the recorded answer from
``raw.response``, and ``raw.request`` must be the body the target builds for the recorded
request (``request_body``; with the neutral changes a server's refusal asks, when the run sent
it again so: ``STREAM_OPTIONS_REFUSED``, ``CAP_RENAMED``, ``TOOL_CHOICE_DROPPED``
(``targets.refusals``); without streaming, ``STREAM_NOT_SERVED``; with the reasoning of earlier
answers once a server asked for it: ``REASONING_ASKED``). Otherwise
``RECORDING_MISMATCH``.

A recording forged consistently, bodies and all, still passes (docs/LIMITS.md, "A recording
written by hand"): this holds the recording to one story, the one a reader of the raw file sees.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bench.core.errors import EntrantError, HarnessFault
from bench.core.trace import FAILED_CALL
from bench.records.bundle import ATTEMPTS
from bench.records.run import AttemptRecord
from bench.targets import anthropic, openai
from bench.targets.base import ModelRequest, ModelResponse, TargetSpec
from bench.targets.refusals import CAPS, variants

from .codes import Code
from .failure import VerifyFailure
from .records import BundleRun

Builder = Callable[[ModelRequest, TargetSpec], dict[str, Any]]
Parser = Callable[[dict[str, Any]], ModelResponse]

_TARGETS: dict[str, tuple[str, Builder, Parser]] = {
    "openai": (openai.PATH, openai.request_body, openai.parse_completion),
    "anthropic": (anthropic.PATH, anthropic.request_body, anthropic.parse_message),
}
# What the harness may have left out of a request it sent again unstreamed (``post_parsed``).
_UNSTREAMED = ("stream", "stream_options")


def _sent_bodies(request: dict[str, Any], spec: TargetSpec, build: Builder) -> list[Any]:
    """Every body the harness may have sent for ``request``: as built, with the neutral changes
    a server's refusal asks (``refusals.variants``: ``stream_options`` dropped, the token cap
    under its other name, ``tool_choice: auto`` dropped; each subset of them), and each of
    those as sent again without streaming; all of them also with the reasoning of the earlier
    answers that called tools, which goes back once a server asked for it
    (``openai.REASONING_ASKED``, ``anthropic.UNSIGNED_ASKED``: every later request of that run
    carries it). Nothing else: a body the harness never makes is not taken."""
    model_request = ModelRequest.model_validate(request)
    built = [build(model_request, spec)]
    rebuild = {"openai": openai.request_body, "anthropic": anthropic.request_body}.get(spec.kind)
    if rebuild is not None:
        with_reasoning = rebuild(model_request, spec, reasoning=True)
        if with_reasoning != built[0]:
            built.append(with_reasoning)
    bodies: list[Any] = []
    for body in built:
        for shaped in variants(body, CAPS if spec.kind == "openai" else ()):
            unstreamed = {k: v for k, v in shaped.items() if k not in _UNSTREAMED}
            bodies += [_loose(shaped), _loose(unstreamed)]
    return bodies


def _loose(body: Any) -> Any:
    """``body`` with each assistant tool call's ``arguments`` text (openai) read as JSON: the
    harness sends them back as the model wrote them (its key order, its spacing), while the
    recorded request holds them parsed. Anything else is compared as it is."""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return body
    messages = []
    for message in body["messages"]:
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        if isinstance(calls, list):
            message = {**message, "tool_calls": [_parsed_arguments(call) for call in calls]}
        messages.append(message)
    return {**body, "messages": messages}


def _parsed_arguments(call: Any) -> Any:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or not isinstance(function.get("arguments"), str):
        return call
    try:
        arguments = json.loads(function["arguments"])
    except ValueError:
        return call
    return {**call, "function": {**function, "arguments": arguments}}


def _problem(response: dict[str, Any], request: dict[str, Any], spec: TargetSpec) -> str | None:
    """Why a successful call's answer is not what its own recorded bodies say (None: it is)."""
    path, build, parse = _TARGETS[spec.kind]
    raw = response.get("raw")
    if not isinstance(raw, dict) or not isinstance(raw.get("response"), dict):
        return f"it records no response body (raw.response), which every {spec.kind} call does"
    if raw.get("path") != path:
        return f"its raw.path is not {path}, the path the {spec.kind} target posts to"
    try:
        sent = _sent_bodies(request, spec, build)
    except (ValidationError, ValueError, TypeError, KeyError) as exc:
        return f"its request cannot be sent by the {spec.kind} target ({type(exc).__name__})"
    if _loose(raw.get("request")) not in sent:
        return (
            "its raw.request is not the body the harness sends for its request (the request "
            "re-driven and hashed)"
        )
    try:
        read = parse(raw["response"]).record()
    except (EntrantError, HarnessFault) as exc:
        return f"its raw.response is not an answer the harness takes ({exc.code})"
    for name in ("content", "tool_calls", "usage"):
        told = read.get(name)
        if name == "tool_calls":
            told = _as_recorded(told, response.get(name))
        if told != response.get(name):
            shown = "tool calls" if name == "tool_calls" else name
            return (
                f"its {shown} is not what its own response body (raw.response) says: the "
                "transcript page shows, and the score reads, the parsed answer"
            )
    return None


def _as_recorded(parsed: Any, recorded: Any) -> Any:
    """The parsed tool calls without the ``provider_state`` of a call recorded without one: a
    harness from before that field read the same body without it (a Gemini thought signature,
    Anthropic thinking before a ``tool_use``), and its bundle is no less what the wire said.
    Leaving the state out of a call it was sent back with changes the next request, which the
    re-drive then finds nowhere in the cassette; on the last answer's calls it is never sent."""
    if not (isinstance(parsed, list) and isinstance(recorded, list)):
        return parsed
    if len(parsed) != len(recorded):
        return parsed
    return [
        _call_as_recorded(mine, theirs)
        if isinstance(mine, dict) and isinstance(theirs, dict)
        else mine
        for mine, theirs in zip(parsed, recorded, strict=True)
    ]


def _call_as_recorded(mine: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any]:
    """One parsed call as a harness from before its state's parts read it: without
    ``provider_state`` when the recorded call has none, and without the answer's reasoning
    (``openai.MESSAGE_STATE``) when the recorded state has no such part (kept since
    2026-12-07's eighth session; the rest of the state is compared as it is)."""
    state = mine.get("provider_state")
    if "provider_state" not in theirs:
        return {key: value for key, value in mine.items() if key != "provider_state"}
    told = theirs.get("provider_state")
    if (
        isinstance(state, dict)
        and isinstance(told, dict)
        and openai.MESSAGE_STATE in state
        and openai.MESSAGE_STATE not in told
    ):
        rest = {key: value for key, value in state.items() if key != openai.MESSAGE_STATE}
        if not rest:
            return {key: value for key, value in mine.items() if key != "provider_state"}
        return {**mine, "provider_state": rest}
    return mine


def check_wire(bundle: Path, run: BundleRun) -> None:
    """Every successful model call of an ``openai`` or ``anthropic`` run is the one its own
    recorded wire bodies give (``RECORDING_MISMATCH`` otherwise); other kinds have no wire
    bodies of the harness's own to read."""
    if run.config.target_kind not in _TARGETS:
        return
    spec = TargetSpec.model_validate(run.config.target)
    for record in run.attempts:
        _check_attempt(bundle, record, spec)


def _check_attempt(bundle: Path, record: AttemptRecord, spec: TargetSpec) -> None:
    for exchange in record.trace.exchanges:
        if FAILED_CALL in exchange.response:
            continue
        problem = _problem(exchange.response, exchange.request, spec)
        if problem is not None:
            raise VerifyFailure(
                Code.RECORDING_MISMATCH,
                f"model call {exchange.index}: {problem}",
                path=str(bundle / ATTEMPTS),
                field=f"{record.task_id}#{record.repeat}",
            )


__all__ = ["check_wire"]
