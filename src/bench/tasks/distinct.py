"""Plan-level distinctness (``bench task lint``): two tasks that expect the same things are one
task, however differently they are worded.

A task's **plan** is what it checks, with the words taken out: its family and, for every
expectation, the type and the values an agent must produce or avoid — tools required, ordered
and forbidden, each step's and each state check's tool and arguments, the fields of an
extraction, the strings an answer must or must not contain, the passages it must cite, whether
it must refuse or answer. Bookkeeping (``weight``, ``note``, ``axis``, ``safety``) and a judge's
rubric (prose) are left out; text values are compared NFKC-casefolded with spaces collapsed,
and the order of the expectations and of ``required``/``forbidden`` does not matter (the
``order`` list and the steps keep theirs). Rewording the question therefore cannot hide a copy,
while two jobs that differ in any expected value — another order, amount or secret — pass.

:func:`shared_passages` names the private grounded questions whose source a public task also
needs: a published public task then gives the private one's passage away.

A plan with nothing task-specific in it (only "refuse", "answerable: false", a JSON kind or a
call cap) says nothing about which job is meant, so such tasks are left to the n-gram check.
"""

from __future__ import annotations

import json
import unicodedata
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .expectations import Citations, Expectation
from .model import Task

BOOKKEEPING = frozenset({"weight", "note", "axis", "safety"})
# Expectation types (and keys) whose values alone never single out a job.
_GENERIC_TYPES = frozenset({"refusal", "answerable", "json", "judge"})
_UNORDERED = ("required", "forbidden", "flags")


def _norm(value: Any) -> Any:
    if isinstance(value, str):
        return " ".join(unicodedata.normalize("NFKC", value).casefold().split())
    if isinstance(value, dict):
        return {_norm(k): _norm(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_norm(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)  # 49.0 and 49 are the same amount
    return value


def expectation_key(expectation: Expectation) -> str:
    """One expectation as canonical JSON, bookkeeping and prose left out."""
    data = expectation.model_dump(mode="json", by_alias=True, exclude=set(BOOKKEEPING))
    if data["type"] == "judge":
        data.pop("rubric", None)
    if data["type"] == "fields":
        data.pop("weights", None)
    for key in _UNORDERED:
        if isinstance(data.get(key), list):
            data[key] = sorted(data[key])
    return json.dumps(_norm(data), sort_keys=True, ensure_ascii=False)


def _specific(expectation: Expectation) -> bool:
    if expectation.type in _GENERIC_TYPES:
        return False
    if expectation.type == "trajectory":
        plan = expectation.model_dump(include={"required", "order", "forbidden"})
        return any(plan.values())
    if expectation.type == "citations":
        return bool(expectation.model_dump(include={"required"})["required"])
    return True


@dataclass(frozen=True)
class Plan:
    """What a task checks, without its words."""

    family: str
    checks: tuple[str, ...]

    @property
    def specific(self) -> bool:
        return bool(self.checks)


def plan_of(task: Task) -> Plan:
    """The task's plan; ``checks`` is empty when nothing in it singles out a job."""
    if not any(_specific(e) for e in task.expectations):
        return Plan(task.family, ())
    return Plan(task.family, tuple(sorted({expectation_key(e) for e in task.expectations})))


@dataclass(frozen=True)
class PlanCopy:
    """Two tasks with one plan: ``kind`` is ``plan-leak`` across splits, ``plan-duplicate``
    within one."""

    kind: str
    first: str
    second: str
    detail: str


def plan_copies(tasks: Sequence[Task]) -> list[PlanCopy]:
    """Every task whose specific plan an earlier task already has, paired with that first
    task (a group of n copies gives n - 1 findings), in task order."""
    groups: dict[Plan, list[Task]] = defaultdict(list)
    for task in tasks:
        plan = plan_of(task)
        if plan.specific:
            groups[plan].append(task)
    found: list[PlanCopy] = []
    for group in groups.values():
        first = group[0]
        for second in group[1:]:
            kind = "plan-leak" if first.split != second.split else "plan-duplicate"
            found.append(
                PlanCopy(
                    kind,
                    first.id,
                    second.id,
                    f"same tool plan and expected values ({len(first.expectations)} "
                    f"check(s), {first.split}/{second.split})",
                )
            )
    return found


def _cited(task: Task) -> list[str]:
    return [p for e in task.expectations if isinstance(e, Citations) for p in e.required]


def shared_passages(tasks: Sequence[Task], family: str = "grounded-qa") -> list[PlanCopy]:
    """Private ``family`` tasks that need (must cite) a passage a public task also needs: the
    public task, published, gives the private one's source away. One finding per passage,
    paired with the first public task that needs it (kind ``passage-shared``)."""
    needed: dict[str, str] = {}
    for task in tasks:
        if task.split == "public":
            for passage in _cited(task):
                needed.setdefault(passage, task.id)
    return [
        PlanCopy(
            "passage-shared",
            task.id,
            needed[passage],
            f"needs passage {passage}, which the public task needs too",
        )
        for task in tasks
        if task.split == "private" and task.family == family
        for passage in _cited(task)
        if passage in needed
    ]


__all__ = [
    "Plan",
    "PlanCopy",
    "expectation_key",
    "plan_copies",
    "plan_of",
    "shared_passages",
]
