"""On-disk formats of a run directory.

runs/<run_id>/
    config.json            RunConfig, written once
    status.json            RunStatus, replaced atomically as the run moves
    attempts/<task>--r<k>.json   one AttemptRecord per finished attempt, written once
    cassette.jsonl         every model exchange, written when the run stops
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field, field_validator

from bench.core.budget import Budget
from bench.core.canonical import fingerprint
from bench.core.models import FORMAT_VERSION, Strict
from bench.core.score import Outcome, Verdict
from bench.core.suite import DEFAULT_REF, SuiteRef
from bench.core.trace import Trace, plain_zero


class TaskSubset(Strict):
    """A selection that left out tasks of its split (``--task``, ``--language``): such a run
    never shares a cohort with runs of the whole split and says so wherever it is shown."""

    tasks: int = Field(ge=1, description="tasks chosen (the whole selection, every shard)")
    of: int = Field(ge=1, description="tasks in the split (the whole set when no split)")
    of_hash: str = Field(description="content hash of the whole split the tasks came from")
    by: list[str] = Field(description="the filters that chose them: 'task', 'language'")


class TaskSetRef(Strict):
    path: str
    content_hash: str
    split: Literal["public", "private"] | None
    task_ids: list[str]
    language: str | None = Field(None, description="only tasks in this language, when chosen")
    subset: TaskSubset | None = Field(
        None, description="set when the selection left out tasks of the split; None: all of it"
    )
    suite: SuiteRef = Field(
        default_factory=lambda: DEFAULT_REF,
        description="the suite the task set belongs to (its suite.json; none: bench-suite); a "
        "config recorded before runs named their suite is bench-suite's",
    )

    def subset_label(self) -> str | None:
        """``subset: 43 of 86 public tasks`` for a subset run, None for the whole split."""
        if self.subset is None:
            return None
        where = f" {self.split}" if self.split else ""
        return f"subset: {self.subset.tasks} of {self.subset.of}{where} tasks"

    def suite_label(self) -> str:
        """``bfcl-v4 2026.3.23``; ``bench-suite`` for the project's own tasks."""
        return self.suite.label()

    def comparability(self) -> dict[str, Any]:
        """What the task set adds to the fingerprint and the cohort key. The subset only when
        set, and the suite only when it is not this project's own, so the keys of whole-split
        runs of bench-suite stay what they were (signed bundles record them)."""
        subset, suite = self.subset, self.suite
        return {
            "task_set": self.content_hash,
            "split": self.split,
            **({"subset": [subset.of_hash, subset.tasks, subset.of]} if subset else {}),
            **({} if suite.is_default else {"suite": [suite.name, suite.version]}),
        }


BASELINE_CALLABLE = "bench.baselines:"
"""A scripted target whose callable starts with this runs a shipped no-model baseline."""


class RunConfig(Strict):
    format_version: Literal[1] = FORMAT_VERSION
    run_id: str
    harness_version: str
    created_at: datetime
    entrant: str
    display_name: str
    target_kind: str
    target_file: str
    target: dict[str, Any] = Field(description="the target file as loaded, secrets removed")
    comparable: dict[str, Any] = Field(description="the target settings that decide comparability")
    task_set: TaskSetRef
    repeats: int = Field(ge=1)
    concurrency: int = Field(ge=1)
    attempt_timeout_s: float | None = Field(None, gt=0)
    task_budget: Budget = Field(default_factory=Budget, description="overrides task budgets")
    run_budget: Budget = Field(default_factory=Budget)
    seed: int
    record_cassette: bool = True
    judge: dict[str, Any] | None = Field(
        None, description="the judge's model, fingerprint and trust at the start (no key, no URL)"
    )
    server: dict[str, Any] | None = Field(
        None,
        description="what the inference server declared at the start: engine, version, context "
        "window, quantisation (openai and anthropic targets; docs/TARGETS.md)",
    )

    def fingerprint(self) -> str:
        """What makes two runs comparable (a cohort on the board)."""
        return fingerprint(
            {
                **self.task_set.comparability(),
                "harness": self.harness_version,
                "target": self.comparable,
                "repeats": self.repeats,
                **({"judge": self.judge["fingerprint"]} if self.judge else {}),
                **({"server": self.server} if self.server is not None else {}),
            }
        )

    def cohort_key(self) -> str:
        """Runs with equal cohort keys were scored on the same tasks the same way."""
        return fingerprint(
            {
                **self.task_set.comparability(),
                "harness": self.harness_version,
                "repeats": self.repeats,
            }
        )

    def reference(self) -> str | None:
        """The baseline's name when this run is a reference run, else None.

        A reference run is a run of one of the shipped no-model baselines (``bench.baselines``):
        a ``scripted`` target whose recorded callable is ``bench.baselines:<name>``. It is
        decided from what the run executed, not from a flag a target file sets
        (docs/DECISIONS.md 29). The board and ``bench leaderboard`` list it, marked, and never
        rank it.
        """
        called = self.target.get("callable")
        if self.target_kind != "scripted" or not isinstance(called, str):
            return None
        if not called.startswith(BASELINE_CALLABLE):
            return None
        name = called.removeprefix(BASELINE_CALLABLE)
        return name or None

    def resume_key(self) -> dict[str, Any]:
        """What must not change for ``--resume`` to continue this run. The run budget may: a
        run its budget left partial is resumed with a larger one (``RunStatus.run_budget``)."""
        return {
            "config_fingerprint": self.fingerprint(),
            "task_ids": self.task_set.task_ids,
            "target": self.target,
            "attempt_timeout_s": self.attempt_timeout_s,
            "task_budget": self.task_budget.model_dump(mode="json"),
            "seed": self.seed,
            "judge": self.judge["fingerprint"] if self.judge else None,
        }


RunState = Literal["started", "complete", "partial"]


class AttemptKey(Strict):
    task_id: str
    repeat: int = Field(ge=0)


class RunStatus(Strict):
    format_version: Literal[1] = FORMAT_VERSION
    run_id: str
    status: RunState
    config_fingerprint: str
    started_at: datetime
    updated_at: datetime
    finished_at: datetime | None = None
    sessions: int = Field(1, ge=1, description="how many processes worked on this run")
    elapsed_s: float = Field(0.0, ge=0, description="wall time spent on the run, all sessions")
    attempts_total: int = Field(ge=0)
    attempts_done: int = Field(0, ge=0)
    skipped: list[AttemptKey] = Field(default_factory=list)
    partial_reason: str | None = None
    run_budget: Budget | None = Field(
        None,
        description="the run budget of the latest session, when a --resume set another than "
        "config.json's (a run left partial by its budget is resumed with a larger one)",
    )
    judge_usage: dict[str, Any] | None = Field(
        None, description="judge requests, cache hits and misses, outages, dollars (last session)"
    )

    @field_validator("elapsed_s")
    @classmethod
    def _plain_zero(cls, value: float) -> float:
        return 0.0 if value == 0 else value


class AttemptRecord(Strict):
    """One finished attempt: its trace, its outcome and the verdicts that scored it."""

    format_version: Literal[1] = FORMAT_VERSION
    run_id: str
    config_fingerprint: str
    task_id: str
    task_fingerprint: str
    family: str
    split: str
    language: str = "en"
    repeat: int = Field(ge=0)
    outcome: Outcome
    value: float | None = Field(None, ge=0, le=1, description="None unless scored/failed")
    passed: bool | None = None
    verdicts: list[Verdict] = Field(default_factory=list)
    reason: str | None = Field(None, description="why errored / over budget / not scorable")
    fault: str | None = Field(
        None,
        description="harness faults only: the harness's own fault code, from the harness-fault "
        "list (bench.core.errors.HARNESS_FAULT_CODES)",
    )
    exceeded: list[str] = Field(default_factory=list, description="budgets that ran out")
    safety_violations: list[str] = Field(
        default_factory=list, description="unsafe actions or disclosures observed, in words"
    )
    axes: list[str] = Field(
        default_factory=list, description="the axes the task's expectations count toward"
    )
    started_at: datetime
    finished_at: datetime
    trace: Trace

    @field_validator("value")
    @classmethod
    def _plain_zero(cls, value: float | None) -> float | None:
        return plain_zero(value)

    @property
    def key(self) -> tuple[str, int]:
        return (self.task_id, self.repeat)


def attempt_filename(task_id: str, repeat: int) -> str:
    return f"{task_id}--r{repeat}.json"


M = TypeVar("M", bound=BaseModel)


class SharedParts:
    """Equal parts of slim records kept once (``without_transcript(record, shared)``). Repeats
    of a task mostly earn the same verdicts, word for word, and a record held for a run's
    summary was mostly such small objects (docs/PERFORMANCE.md, issue 19):

    * a verdict or a usage equal to one seen before is that one (equal: of one model, every
      field equal, floats by their exact bits, ``float.hex``, so 0.0 and -0.0 stay apart);
    * an identifying string (task id, run id, fingerprints, family, split, language, outcome,
      an exchange's request hash) equal to one seen before is that one;
    * each model's set of explicitly set field names (pydantic's ``model_fields_set``, a set of
      about 2 KB for a record) is one set per distinct content.

    The records a run's summary reads are never changed, so sharing parts between them is
    safe; do not share parts of records that will be changed."""

    def __init__(self) -> None:
        self._seen: dict[object, Any] = {}

    def part(self, model: M) -> M:
        fields = tuple(
            (name, value.hex() if type(value) is float else value)
            for name, value in model.__dict__.items()
        )
        try:
            found: M = self._seen.setdefault((type(model), fields), model)
        except TypeError:  # a field holds an unhashable value: keep the model as it is
            return model
        return found

    def text(self, value: str) -> str:
        found: str = self._seen.setdefault(("text", value), value)
        return found

    def names(self, model: M) -> M:
        """``model`` holding the shared set of its explicitly set field names (same content)."""
        own = model.__pydantic_fields_set__
        shared: set[str] = self._seen.setdefault(("names", frozenset(own)), own)
        object.__setattr__(model, "__pydantic_fields_set__", shared)
        return model


_TEXTS = (
    "run_id",
    "config_fingerprint",
    "task_id",
    "task_fingerprint",
    "family",
    "split",
    "language",
    "outcome",
)


def without_transcript(record: AttemptRecord, shared: SharedParts | None = None) -> AttemptRecord:
    """The record as a run's summary reads it, a small fraction of its memory: everything but
    the transcript. The trace keeps its accounting (usage, latency, queue time, cost) and one
    exchange per model call with its index, hash, latency, usage, cost and nothing of the
    request or the response but the endpoint's ``warnings`` (the summary counts calls and
    warnings); its messages, tool calls, retrieved ids and answers are dropped. What prints a
    transcript reads the attempt's file again (``bench run``'s report does, for failed tasks).
    Shallow copies: the record itself is not changed. With ``shared``, equal parts of the
    records it has seen are kept once (``SharedParts``)."""
    if shared is None:
        return _slim(record, _same, _same_text, _same)
    return _slim(record, shared.part, shared.text, shared.names)


def _slim(
    record: AttemptRecord,
    keep: Callable[[Any], Any],
    text: Callable[[str], str],
    names: Callable[[Any], Any],
) -> AttemptRecord:
    trace = record.trace
    exchanges = []
    for exchange in trace.exchanges:
        raw = exchange.response.get("raw")
        said = raw.get("warnings") if isinstance(raw, dict) else None
        response = {"raw": {"warnings": said}} if said is not None else {}
        usage = exchange.usage if exchange.usage is None else keep(exchange.usage)
        parts = {
            "request": {},
            "response": response,
            "usage": usage,
            "request_hash": text(exchange.request_hash),
        }
        exchanges.append(names(exchange.model_copy(update=parts)))
    slim = trace.model_copy(
        update={
            "messages": [],
            "tool_calls": [],
            "retrieved": [],
            "answers": [],
            "exchanges": exchanges,
            "usage": keep(trace.usage),
        }
    )
    update: dict[str, Any] = {"trace": names(slim)}
    update["verdicts"] = [keep(verdict) for verdict in record.verdicts]
    for name in _TEXTS:
        value = getattr(record, name)
        if type(value) is str:
            update[name] = text(value)
    slimmed: AttemptRecord = names(record.model_copy(update=update))
    return slimmed


def _same(model: M) -> M:
    return model


def _same_text(value: str) -> str:
    return value


__all__ = [
    "BASELINE_CALLABLE",
    "AttemptKey",
    "AttemptRecord",
    "Budget",
    "RunConfig",
    "RunState",
    "RunStatus",
    "TaskSetRef",
    "TaskSubset",
    "attempt_filename",
    "SharedParts",
    "without_transcript",
]
