"""A refused request is ours only when the server refuses its shape (docs/SCORING.md,
"Refused requests").

``REQUEST_REFUSED`` (a harness fault, out of the denominator) is read from the server's own
words: a 400, 422 or 500 that says the request does not fit its schema. The words are the
endpoint's, so the endpoint picks which requests get them: a 422 to the requests of the tasks
it would fail took them out of its score. But the harness sends every request of a run in the
same shape: a server whose schema cannot take that shape refuses every request of it (Mistral
refusing ``stream_options``, llama-cpp-python refusing ``content: null`` beside tool calls),
while a refusal of a shape the same endpoint answered elsewhere in the run was its choice.

So, over the whole run (order-free, so ``bench run``, the board and ``bench verify`` agree
from the recording alone, however the attempts interleaved): a ``REQUEST_REFUSED`` attempt
whose refused request has the shape of a request the endpoint answered in the run is the
entrant's error (*errored*, a failure). So is every ``REQUEST_REFUSED`` of an entrant that is
not a model server (``scripted``, ``http-agent``): there is no request schema of ours to fit.

The shape of a request is its keys and the kinds of its values, not their text: each message's
role and which fields it carries, whether tools are offered, the sampling parameters' names. A
tool's JSON Schema (``parameters``) and a call's arguments (``arguments``) are data, counted as
one object whatever they hold: one is the task's, the other the model's own, and a shape the
entrant could vary by its own arguments would let it mark the attempts it means to refuse.
A list is the set of its items' shapes (its length and order are text).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from .trace import FAILED_CALL, Exchange

REQUEST_REFUSED = "REQUEST_REFUSED"
MODEL_SERVER_KINDS = frozenset({"openai", "anthropic", "cassette"})
"""Target kinds whose requests go to a model server with a request schema of its own (a
cassette replays one). Any other entrant's ``REQUEST_REFUSED`` is its own error."""

OPAQUE_KEYS = frozenset({"parameters", "arguments"})
IGNORED_KEYS = frozenset({"arguments_error"})  # the harness's note on a call; never sent
NAMED_KEYS = frozenset({"role"})  # a value that says what a message is, not what it says


def _shape(value: Any, key: str | None = None) -> Any:
    if key in OPAQUE_KEYS:
        return "object" if isinstance(value, Mapping) else type(value).__name__
    if isinstance(value, Mapping):
        return {
            str(k): _shape(v, str(k)) for k, v in sorted(value.items()) if k not in IGNORED_KEYS
        }
    if isinstance(value, list):
        items = {json.dumps(_shape(item), sort_keys=True) for item in value}
        return ["list", *sorted(items)]
    if key in NAMED_KEYS and isinstance(value, str):
        return f"={value}"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if value is None:
        return "null"
    return type(value).__name__


def request_shape(request: Mapping[str, Any]) -> str:
    """The shape of a recorded model request (an exchange's ``request``), as one string."""
    return json.dumps(_shape(request), sort_keys=True, separators=(",", ":"))


class _Traced(Protocol):
    @property
    def exchanges(self) -> Sequence[Exchange]: ...


class _Attempt(Protocol):
    """What is read of an attempt record (``bench.records.run.AttemptRecord``)."""

    @property
    def task_id(self) -> str: ...
    @property
    def repeat(self) -> int: ...
    @property
    def outcome(self) -> str: ...
    @property
    def fault(self) -> str | None: ...
    @property
    def trace(self) -> _Traced: ...


def _refused(exchanges: Sequence[Exchange]) -> Exchange | None:
    last = exchanges[-1] if exchanges else None
    failure = last.response.get(FAILED_CALL) if last is not None else None
    if isinstance(failure, dict) and failure.get("code") == REQUEST_REFUSED:
        return last
    return None


def chosen_refusals(kind: str, attempts: Iterable[_Attempt]) -> dict[tuple[str, int], str]:
    """(task id, repeat) → why, for every ``REQUEST_REFUSED`` harness fault of the run that is
    the entrant's error instead (the module docstring): counted as *errored*, with that
    reason, by every surface that folds a run (``bench.reports.summary``) and by ``bench
    verify``'s harness-fault cap."""
    attempts = list(attempts)
    faults = [a for a in attempts if a.outcome == "harness_fault" and a.fault == REQUEST_REFUSED]
    if not faults:
        return {}
    if kind not in MODEL_SERVER_KINDS:
        why = (
            f"the entrant refused the harness's request: a {kind} entrant has no request "
            "schema of ours to refuse, so REQUEST_REFUSED is its own error"
        )
        return {(a.task_id, a.repeat): why for a in faults}
    answered: dict[str, str] = {}
    for attempt in attempts:
        for exchange in attempt.trace.exchanges:
            if FAILED_CALL not in exchange.response:
                where = f"{attempt.task_id}#{attempt.repeat}"
                answered.setdefault(request_shape(exchange.request), where)
    found: dict[tuple[str, int], str] = {}
    for attempt in faults:
        refused = _refused(attempt.trace.exchanges)
        if refused is None:
            continue
        twin = answered.get(request_shape(refused.request))
        if twin is not None:
            found[(attempt.task_id, attempt.repeat)] = (
                "the endpoint refused as malformed a request of the same shape as one it "
                f"answered in this run ({twin}): its choice, not a malformed request"
            )
    return found


__all__ = ["MODEL_SERVER_KINDS", "chosen_refusals", "request_shape"]
