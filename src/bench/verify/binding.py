"""Every answer bound to its recording, for every attempt, offline.

Two checks, run on every attempt of a bundle (not a sample):

1. **The recording** (``check_recording``): the attempt's model calls (``trace.exchanges``) are
   exactly the cassette's lines for that attempt, in order, and each call's ``request_hash`` is
   the SHA-256 of its own canonical request; the cassette holds no call of no attempt
   (``RECORDING_MISMATCH``).
2. **The re-drive** (``check_binding``): the attempt is run again through the harness's own
   agent loop (``bench.runner.attempt.Attempt``) in a fresh mock world of its task, with a
   target that serves the attempt's own recorded responses strictly in order and refuses any
   request whose hash differs from the recorded one. The re-driven trace's messages, tool
   calls, retrieved passages, answers, exchanges, tokens and cost must equal the recorded ones,
   and its ending must agree with the recorded outcome (``REPLAY_MISMATCH``):

   * *scored* / *not scorable*: the loop ends with an answer and every recorded call used;
   * *errored* / *over budget*: the loop ends where the recording ends (a failed call leaves
     no exchange), or on the same budget or entrant error;
   * *harness fault*: the loop raises the harness fault the attempt records in ``fault`` (a
     code from ``HARNESS_FAULT_CODES``), after every recorded call; an unexplained or
     unreproduced fault is ``HARNESS_FAULT_UNEXPLAINED``.

An agent that runs its own tool loop (``kind: http-agent``) has no model calls to re-drive: its
tool calls are the agent's own requests. For it, each turn's recorded tool calls are sent again,
in order, to the attempt's tool session in a fresh world, and the recorded answer of the turn
is the turn's exchange's ``answer``; the results, messages and answers must come out the same.

Scores are recomputed from the (now bound) traces by ``scores.check_scores``.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bench.baselines import BASELINES, Baseline
from bench.core.canonical import canonical_json, sha256_hex
from bench.core.errors import HARNESS_FAULT_CODES, EntrantError, HarnessFault, fault_code
from bench.core.trace import FAILED_CALL, Message, ToolDef, Trace
from bench.corpus import Corpus, CorpusLibrary
from bench.records.bundle import ATTEMPTS, CASSETTE
from bench.records.run import AttemptRecord
from bench.runner.agent import ToolServer, ToolSession
from bench.runner.attempt import Attempt, EntrantFault
from bench.runner.budget import Meter, OverBudget, effective_budget
from bench.runner.recording import RequestRecorder
from bench.targets.agent import TOKEN_REDACTED, agent_reply, wire_messages
from bench.targets.base import (
    AGENT_KINDS,
    AgentReply,
    ModelRequest,
    ModelResponse,
    TargetSpec,
    raise_recorded_failure,
)
from bench.tasks.load import TaskSet
from bench.tasks.model import Task
from bench.world import World

from .codes import Code
from .failure import VerifyFailure
from .records import BundleRun
from .taskcache import TaskCache
from .timing import check_time_limit

_KEY_FIELDS = ("task_id", "repeat")
# What the re-drive must reproduce exactly (latency is the entrant's clock, never re-derived).
_COMPARED = ("messages", "tool_calls", "retrieved", "answers", "usage", "usage_measured")


class _RecordingEnds(EntrantError):
    """The re-drive asked for a call after the last recorded one (where an errored attempt's
    failed call, which leaves no exchange, would have been)."""

    default_code = "RECORDING_ENDS"


class _Recorded:
    """A target that serves one attempt's recorded responses, strictly in order."""

    def __init__(self, spec: TargetSpec, exchanges: list[dict[str, Any]]) -> None:
        self.spec = spec
        self._exchanges = exchanges
        self.used = 0
        self.diverged: str | None = None
        self.ended = False
        # The attempt's own: its hash of a request is ``request.request_hash()``, from
        # parts made once per attempt, and the attempt records the same request next.
        self.recorder = RequestRecorder()

    async def complete(self, request: ModelRequest) -> ModelResponse:
        if self.used >= len(self._exchanges):
            self.ended = True
            raise _RecordingEnds("the recording ends here")
        recorded = self._exchanges[self.used]
        if self.recorder.wire(request)[1] != recorded["request_hash"]:
            self.diverged = (
                f"model call {self.used}: the harness would send another request than the one "
                "recorded (the recorded conversation was not produced by this loop)"
            )
            raise _RecordingEnds("diverged")
        self.used += 1
        raise_recorded_failure(recorded["response"])  # a recorded failure fails again
        return ModelResponse.model_validate(recorded["response"])

    async def aclose(self) -> None:
        return None


REFUSED = "the arguments are not a JSON object: "


class _RecordedAgent:
    """An ``http-agent`` seen through its recording. Each turn: the request the harness would
    send must be the recorded one (the per-attempt tools URL aside); the turn's recorded tool
    calls are sent again, in order, to the attempt's tool session (as the tool server would);
    the reply is the turn's recorded one."""

    def __init__(self, spec: TargetSpec, record: AttemptRecord, tools: _Tools) -> None:
        self.spec = spec
        self._exchanges = [e.model_dump(mode="json") for e in record.trace.exchanges]
        self._calls = record.trace.tool_calls
        self._tools = tools
        self.used = 0
        self.diverged: str | None = None
        self.ended = False

    async def complete(self, request: ModelRequest) -> ModelResponse:
        raise AssertionError("an agent answers turns")

    async def run_turn(
        self, task_id: str, turn: int, messages: list[Message], tools: list[ToolDef], tools_url: str
    ) -> AgentReply:
        session = self._tools.session
        assert session is not None
        for call in (c for c in self._calls if c.turn == turn):
            if call.error is not None and call.error.startswith(REFUSED) and not call.arguments:
                session.refuse(call.name, call.error)
            else:
                session.call(call.name, canonical_json(call.arguments))
            if session.failure is not None:
                return AgentReply(answer="", request={}, response={})  # the loop raises it
        if self.used >= len(self._exchanges):
            self.ended = True
            raise _RecordingEnds("the recording ends here")
        recorded = self._exchanges[self.used]
        expected = {
            "task_id": task_id,
            "turn": turn,
            "messages": wire_messages(messages),
            "tools": [tool.model_dump(mode="json") for tool in tools],
        }
        request = recorded["request"]
        sent = {k: v for k, v in request.items() if k != "tools_url"}
        url = request.get("tools_url")
        if sent != expected or not isinstance(url, str) or not url.endswith(_TOKEN_TAIL):
            self.diverged = (
                f"turn {turn}: the harness would send the agent another request than the one "
                "recorded"
            )
            raise _RecordingEnds("diverged")
        self.used += 1
        # The agent's error, recorded with its reply, is raised as the run raised it, word for
        # word (the attempt's reason, which the board shows, is its text).
        return agent_reply(request, recorded["response"])

    async def aclose(self) -> None:
        return None


_TOKEN_TAIL = "/attempt/" + TOKEN_REDACTED


class _Tools(ToolServer):
    """The run's tool server without a socket: the re-drive hands calls to the session."""

    def __init__(self) -> None:
        super().__init__()
        self.session: ToolSession | None = None

    async def start(self) -> _Tools:
        return self

    def open(self, session: ToolSession) -> tuple[str, str]:
        self.session = session
        return "replay", "http://127.0.0.1:0/attempt/replay"

    def release(self, token: str) -> None:
        self.session = None


def _where(record: AttemptRecord) -> str:
    return f"{record.task_id}#{record.repeat}"


def check_recording(bundle: Path, run: BundleRun) -> None:
    """Each attempt's exchanges are exactly its cassette lines, in order; nothing else is."""
    cassette_path = str(bundle / CASSETTE)
    by_attempt: dict[tuple[Any, Any], list[dict[str, Any]]] = defaultdict(list)
    for entry in run.cassette:
        key = (entry.get("task_id"), entry.get("repeat"))
        rest = {k: v for k, v in entry.items() if k not in _KEY_FIELDS}
        by_attempt[key].append(rest)
    for record in run.attempts:
        where = _where(record)
        recorded = [e.model_dump(mode="json") for e in record.trace.exchanges]
        in_cassette = by_attempt.pop(record.key, [])
        if len(in_cassette) != len(recorded):
            raise VerifyFailure(
                Code.RECORDING_MISMATCH,
                f"the attempt made {len(recorded)} model call(s), the cassette holds "
                f"{len(in_cassette)} for it",
                path=cassette_path,
                field=where,
            )
        for index, (mine, theirs) in enumerate(zip(recorded, in_cassette, strict=True)):
            if mine != theirs:
                raise VerifyFailure(
                    Code.RECORDING_MISMATCH,
                    f"model call {index} differs between the attempt and the cassette",
                    path=cassette_path,
                    field=where,
                )
            if sha256_hex(canonical_json(mine["request"])) != mine["request_hash"]:
                raise VerifyFailure(
                    Code.RECORDING_MISMATCH,
                    f"model call {index}: request_hash is not the hash of its request",
                    path=str(bundle / ATTEMPTS),
                    field=where,
                )
    if by_attempt:
        task_id, repeat = sorted(by_attempt, key=lambda k: json.dumps(k))[0]
        raise VerifyFailure(
            Code.RECORDING_MISMATCH,
            "the cassette holds model calls of no attempt in the bundle",
            path=cassette_path,
            field=f"{task_id}#{repeat}",
        )


class _Worlds:
    """One checked world per task, a fresh copy per attempt (as the runner does)."""

    def __init__(self, corpora: CorpusLibrary) -> None:
        self._corpora = corpora
        # id(task) -> (the task, kept so that its id is not reused; its world): shared by
        # every bundle verified against the same task objects (taskcache.py)
        self._worlds: dict[int, tuple[Task, World]] = {}

    def fresh(self, task: Task) -> World:
        held = self._worlds.get(id(task))
        if held is None:
            corpus: Corpus | None = self._corpora.corpus(task.corpus) if task.corpus else None
            held = self._worlds[id(task)] = (task, World(task, corpus))
        assert held[0] is task
        return held[1].fresh()


@dataclass(frozen=True)
class _Redriven:
    ending: str  # answered | errored | over_budget | harness_fault
    fault: str | None
    trace: Trace
    diverged: str | None
    used: int
    ended: bool
    reason: str | None = None  # the reason the runner writes for this ending (engine.py)
    exceeded: tuple[str, ...] = ()  # the budgets the re-drive ran out of (OverBudget)


async def _redrive(
    record: AttemptRecord, task: Task, spec: TargetSpec, run: BundleRun, worlds: _Worlds
) -> _Redriven:
    """Run one attempt again from its recording alone, through the harness's own loop."""
    budget = effective_budget(task.budget, run.config.task_budget)
    meter = Meter(budget.model_copy(update={"seconds": None}))  # time is the entrant's clock
    tools: _Tools | None = None
    target: _Recorded | _RecordedAgent
    if spec.kind in AGENT_KINDS:
        tools = _Tools()
        target = _RecordedAgent(spec, record, tools)
    else:
        target = _Recorded(spec, [e.model_dump(mode="json") for e in record.trace.exchanges])
    attempt = Attempt(
        task=task,
        target=target,
        world=worlds.fresh(task),
        meter=meter,
        pricing=spec.pricing,
        tools=tools,
    )
    if isinstance(target, _Recorded):
        attempt.recorder = target.recorder
    ending, fault, reason = "answered", None, None
    exceeded: tuple[str, ...] = ()
    try:
        await attempt.run()
    except OverBudget as exc:
        ending, reason, exceeded = "over_budget", exc.detail, tuple(exc.exceeded)
    except EntrantFault as exc:
        ending, reason = "errored", exc.reason
    except HarnessFault as exc:
        ending, fault, reason = "harness_fault", fault_code(exc), f"{exc.code}: {exc.render()}"
    except Exception as exc:  # a bug of ours, reproduced from the recording
        ending, fault = "harness_fault", fault_code(exc)
        reason = f"{type(exc).__name__}: {exc}"
    trace = attempt.trace.build()
    last = trace.exchanges[-1].response.get(FAILED_CALL) if trace.exchanges else None
    if target.ended and isinstance(last, dict) and last.get("code") == _RecordingEnds.default_code:
        # The re-drive's own call past the recording's end (an attempt stopped by its timeout
        # while a call was in flight recorded none): not a call of the attempt's.
        trace = trace.model_copy(update={"exchanges": trace.exchanges[:-1]})
    return _Redriven(
        ending, fault, trace, target.diverged, target.used, target.ended, reason, exceeded
    )


def _mismatch(bundle: Path, record: AttemptRecord, message: str) -> VerifyFailure:
    return VerifyFailure(
        Code.REPLAY_MISMATCH, message, path=str(bundle / ATTEMPTS), field=_where(record)
    )


def _unexplained(bundle: Path, record: AttemptRecord, message: str) -> VerifyFailure:
    return VerifyFailure(
        Code.HARNESS_FAULT_UNEXPLAINED, message, path=str(bundle / ATTEMPTS), field=_where(record)
    )


def _compare(bundle: Path, record: AttemptRecord, again: _Redriven) -> None:
    claimed, redriven = record.trace, again.trace
    if again.diverged is not None:
        raise _mismatch(bundle, record, again.diverged)
    for name in _COMPARED:
        if getattr(claimed, name) != getattr(redriven, name):
            raise _mismatch(
                bundle,
                record,
                f"re-driving the attempt from its own recording gives other "
                f"{name.replace('_', ' ')} than the trace records",
            )
    if again.used != len(claimed.exchanges):
        raise _mismatch(
            bundle,
            record,
            f"the attempt's loop ends after {again.used} of its {len(claimed.exchanges)} "
            "recorded model calls",
        )
    mine = [(e.request_hash, e.request, e.response, e.usage, e.cost_usd) for e in claimed.exchanges]
    theirs = [
        (e.request_hash, e.request, e.response, e.usage, e.cost_usd) for e in redriven.exchanges
    ]
    if mine != theirs:
        raise _mismatch(bundle, record, "the recorded model calls are not the ones re-driven")
    if claimed.cost_usd != redriven.cost_usd:
        raise _mismatch(bundle, record, "the trace's cost is not what its model calls cost")


_ENDINGS: dict[str, frozenset[str]] = {
    "scored": frozenset({"answered"}),
    "not_scorable": frozenset({"answered"}),
    "errored": frozenset({"errored", "over_budget"}),
    "over_budget": frozenset({"errored", "over_budget"}),
    "harness_fault": frozenset({"harness_fault"}),
}


def _check_outcome(bundle: Path, record: AttemptRecord, again: _Redriven) -> None:
    if record.outcome == "harness_fault":
        if record.fault not in HARNESS_FAULT_CODES:
            raise _unexplained(
                bundle,
                record,
                f"a harness fault needs the harness's own fault code (one of "
                f"{', '.join(sorted(HARNESS_FAULT_CODES))}); it has {record.fault!r}",
            )
        if again.ending != "harness_fault" or again.fault != record.fault:
            raise _unexplained(
                bundle,
                record,
                f"re-driving the attempt from its recording does not reproduce the harness "
                f"fault {record.fault} (it ends: {again.ending})",
            )
        return
    if record.fault is not None:
        raise _mismatch(bundle, record, f"a fault code on an attempt that is {record.outcome}")
    allowed = _ENDINGS.get(record.outcome)
    if allowed is None:
        raise _mismatch(bundle, record, f"an attempt cannot be recorded as {record.outcome}")
    if again.ending not in allowed:
        raise _mismatch(
            bundle,
            record,
            f"the bundle says {record.outcome}, re-driving its recording ends {again.ending}",
        )


_SEPARATORS = re.compile(r"[/\\]")
# what ``bench bundle`` writes for a path that is a directory alone (the working directory, the
# home directory, a user's home): no last name is kept
_BARE_ROOTS = frozenset({"", "~", "<local>"})


def _rewritten_path(mine: str, theirs: str) -> bool:
    """Whether the word ``mine`` may be ``bench bundle``'s rewriting of the path ``theirs``
    (docs/SUBMISSIONS.md, "Secrets and local paths"): the rewriting keeps a path's last name
    (relative to the working directory, ``~/…``, ``<local>/<its last name>``) or writes a bare
    root, and never touches a URL (other than ``file:``). Any other word in a path's place is
    a different message (``harness/fault``, another URL)."""
    if "://" in theirs and "file:" not in theirs.lower():
        return False
    tail = _SEPARATORS.split(mine)[-1].strip("'\"")
    bare = _SEPARATORS.sub("", mine).strip("'\"():,;.")
    return tail == _SEPARATORS.split(theirs)[-1].strip("'\"") or bare in _BARE_ROOTS


def same_reason(claimed: str | None, derived: str | None) -> bool:
    """``claimed`` is ``derived``, but for the paths ``bench bundle`` may have rewritten: word
    for word, a word naming a path (holding ``/`` or ``\\``) in ``derived`` may be its
    rewriting in ``claimed``, and nothing else may differ."""
    if claimed == derived:
        return True
    if claimed is None or derived is None:
        return False
    mine, theirs = claimed.split(" "), derived.split(" ")
    return len(mine) == len(theirs) and all(
        m == t or (_SEPARATORS.search(t) is not None and _rewritten_path(m, t))
        for m, t in zip(mine, theirs, strict=True)
    )


def _time_limit(task: Task, run: BundleRun) -> float:
    """The seconds ``perform_attempt`` gives the attempt: its limit (``--timeout``, else the
    task's own), or its seconds budget when that is the tighter."""
    config = run.config
    limit = config.attempt_timeout_s or task.limits.timeout_s
    seconds_cap = effective_budget(task.budget, config.task_budget).seconds
    return limit if seconds_cap is None else min(limit, seconds_cap)


def _timeout_reason(task: Task, run: BundleRun) -> str:
    """The reason ``perform_attempt`` writes when the attempt's time ran out (its limit, or its
    seconds budget when that is the tighter): a stop the recording shows only by ending."""
    config = run.config
    limit = config.attempt_timeout_s or task.limits.timeout_s
    seconds_cap = effective_budget(task.budget, config.task_budget).seconds
    if seconds_cap is not None and seconds_cap <= limit:
        return f"over budget: seconds > {seconds_cap}"
    return f"no final answer within {_time_limit(task, run):g}s (attempt timeout)"


def _check_reason(
    bundle: Path, record: AttemptRecord, again: _Redriven, task: Task, run: BundleRun
) -> None:
    """An errored or over-budget attempt's ``reason`` (the board prints it on the row's
    failed tasks) is the one its ending gives, as ``perform_attempt`` words it: the recorded
    failure's code and message, the budget that ran out, or, when the recording just ends,
    the attempt's time limit. Otherwise a submitter could write any text there, e.g. blame
    the harness for the entrant's failures. A harness fault's reason is the fault the re-drive
    raises (``HARNESS_FAULT_UNEXPLAINED`` otherwise). Not derivable, so not checked: an
    http-agent's turn that failed before its agent replied (an HTTP error leaves no exchange),
    and the words of a harness fault that are not the fault's own: its code and message are (the
    re-drive raises it again), not a path in it that names a file of the verifier's machine."""
    if record.outcome not in ("errored", "over_budget", "harness_fault"):
        return
    if record.outcome == "harness_fault":
        if again.reason is not None and not same_reason(record.reason, again.reason):
            raise _unexplained(
                bundle,
                record,
                f"its reason is not the harness fault re-driving it raises "
                f"({again.reason[:200]!r}): the board shows it beside the task",
            )
        return
    if again.ended:  # the recording ends: the attempt's time ran out (or an agent's HTTP error)
        if run.config.target_kind in AGENT_KINDS:
            return
        derived = [_timeout_reason(task, run)]
    elif again.reason is not None:
        derived = [again.reason]
        last = record.trace.exchanges[-1].response if record.trace.exchanges else {}
        failure = last.get(FAILED_CALL)
        if isinstance(failure, dict) and failure.get("code") == "ENTRANT_EXCEPTION":
            # What the entrant's own code raised: the runner words it without the code.
            derived.append(str(failure.get("message", "")))
    else:
        return
    if not any(same_reason(record.reason, text) for text in derived):
        raise _mismatch(
            bundle,
            record,
            f"its reason is not the one its ending gives ({derived[0][:200]!r}): the board "
            "shows it beside the failed task",
        )


def _check_exceeded(
    bundle: Path, record: AttemptRecord, again: _Redriven, task: Task, run: BundleRun
) -> None:
    """An over-budget attempt ran out of a budget its recording shows, and the budgets it ran
    out of (``exceeded``; the transcript page prints them as "budgets run out") are the ones
    its ending gives: the caps the re-drive's meter found exceeded, or ``seconds`` when the
    recording just ends and the seconds budget is the attempt's tighter limit
    (``perform_attempt``); none for any other attempt. Otherwise an entrant that errored could
    relabel its attempts over budget (each keeps its reason), which ``ERROR_RATE_HIGH`` does
    not count, and any text could stand in ``exceeded``."""
    derived: list[str] = []
    if record.outcome == "over_budget":
        if again.ending == "over_budget":
            derived = list(again.exceeded)
        elif again.ended and _timeout_reason(task, run).startswith("over budget"):
            derived = ["seconds"]
        else:
            raise VerifyFailure(
                Code.REPLAY_MISMATCH,
                f"the bundle says over_budget, and re-driving its recording runs out of no "
                f"budget (it ends: {again.ending})",
                path=str(bundle / ATTEMPTS),
                field=_where(record),
            )
    if record.exceeded != derived:
        raise VerifyFailure(
            Code.REPLAY_MISMATCH,
            f"its budgets run out ({record.exceeded!r}) are not the ones its ending gives "
            f"({derived!r}): the transcript page shows them",
            path=str(bundle / ATTEMPTS),
            field=f"{_where(record)}.exceeded",
        )


async def _check_all(bundle: Path, task_set: TaskSet, run: BundleRun, cache: TaskCache) -> None:
    spec = TargetSpec.model_validate(run.config.target)
    root = task_set.corpus_root
    worlds = cache.shared("worlds", root, lambda: _Worlds(cache.corpora(root)))
    by_id = task_set.by_id()
    for record in run.attempts:
        task = by_id[record.task_id]
        again = await _redrive(record, task, spec, run, worlds)
        _check_outcome(bundle, record, again)
        _compare(bundle, record, again)
        _check_reason(bundle, record, again, task, run)
        _check_exceeded(bundle, record, again, task, run)
        check_time_limit(bundle, record, _time_limit(task, run), _timeout_reason(task, run))


def _baseline(name: str) -> Baseline | None:
    """The shipped baseline a reference run's callable names (``bench.baselines:<function>``),
    or None when it names none."""
    return {baseline.__name__: baseline for baseline in BASELINES.values()}.get(name)


def check_reference(bundle: Path, run: BundleRun) -> None:
    """A run the board lists as a reference row (``RunConfig.reference``: a ``scripted`` target
    whose callable is ``bench.baselines:<name>``) must be that baseline's: every recorded
    response is what the shipped baseline answers to its recorded request. The callable is a
    claim of the target file, never run by the re-drive (which serves the recorded responses),
    so without this any entrant could publish its own agent's answers as a no-model
    baseline's row, with a name of its choosing and outside the registry (REPLAY_MISMATCH).
    Baselines have no state, randomness, network or clock: their answers are recomputed here,
    call by call. Run after ``check_binding``, so every request is one the harness sent."""
    name = run.config.reference()
    if name is None:
        return
    baseline = _baseline(name)
    if baseline is None:
        raise VerifyFailure(
            Code.REPLAY_MISMATCH,
            f"the target's callable names no shipped baseline ('{name[:60]}'), so the run "
            "cannot be a reference row",
            path=str(bundle / "config.json"),
            field="target.callable",
        )
    for record in run.attempts:
        for exchange in record.trace.exchanges:
            try:
                request = ModelRequest.model_validate(exchange.request)
                answer = baseline(request).record()
            except (ValidationError, ValueError, TypeError, KeyError, IndexError):
                answer = None
            if answer != exchange.response:
                raise _mismatch(
                    bundle,
                    record,
                    f"model call {exchange.index}: the recorded response is not what the "
                    f"no-model baseline {name} answers (a reference row must be the shipped "
                    "baseline's own run)",
                )


def check_binding(
    bundle: Path, task_set: TaskSet, run: BundleRun, cache: TaskCache | None = None
) -> None:
    """Re-drive every attempt from its recording; the first that differs fails. Each task's
    world is built once per ``cache`` (a fresh copy per attempt, as the runner does)."""
    asyncio.run(_check_all(bundle, task_set, run, cache or TaskCache()))


__all__ = ["check_binding", "check_recording", "check_reference", "same_reason"]
