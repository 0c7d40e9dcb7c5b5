"""Shards: one deterministic slice of a run's attempts, so N machines can share a task set.

The selected tasks (after ``--split`` and ``--task``) are sorted by id; task *i* of that order
belongs to shard ``i mod N``. Every repeat of a task stays in its task's shard, so task-level
statistics (pass^k, the per-task mean) stay whole inside one shard.

A shard's ``RunConfig`` lists only its slice in ``task_set.task_ids`` but keeps the content hash
of the whole selection, so every shard of one run has the same config fingerprint. The run
directory also gets ``shard.json`` (written once): which shard it is and the whole selection's
task ids in task-set order, which is what ``bench merge`` checks coverage against.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError

from bench.core.atomic import write_once
from bench.core.errors import InputError, RunStoreError, UsageError
from bench.core.files import parse_json
from bench.core.models import FORMAT_VERSION, Strict
from bench.core.validation import describe

SHARD_FILE = "shard.json"
_SHARD_RE = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (0-based) of ``count``."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def select(self, task_ids: list[str]) -> list[str]:
        """The ids of this shard, in the order given (sorted by id to assign, then kept)."""
        mine = {tid for i, tid in enumerate(sorted(task_ids)) if i % self.count == self.index}
        return [tid for tid in task_ids if tid in mine]


def parse_shard(text: str) -> Shard:
    """``K/N`` with ``0 <= K < N``."""
    match = _SHARD_RE.match(text)
    if match is None:
        raise UsageError(
            f"--shard takes K/N (e.g. 0/3), not '{text}'", code="SHARD_INVALID", field="--shard"
        )
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 0 <= index < count:
        raise UsageError(
            f"--shard {text}: K/N needs N >= 1 and 0 <= K < N (shards count from 0)",
            code="SHARD_INVALID",
            field="--shard",
        )
    return Shard(index, count)


class ShardInfo(Strict):
    """``shard.json``: what a shard run is a slice of."""

    format_version: Literal[1] = FORMAT_VERSION
    index: int = Field(ge=0)
    count: int = Field(ge=1)
    task_set_hash: str = Field(description="content hash of the whole selection")
    task_ids: list[str] = Field(description="this shard's task ids")
    all_task_ids: list[str] = Field(description="the whole selection's task ids, task-set order")

    @property
    def shard(self) -> Shard:
        return Shard(self.index, self.count)


def write_shard_info(run_path: Path, info: ShardInfo) -> Path:
    target = run_path / SHARD_FILE
    text = info.model_dump_json(indent=2) + "\n"
    try:
        write_once(target, text.encode("utf-8"))
    except FileExistsError:
        raise RunStoreError(
            "shard file already written", code="ATTEMPT_EXISTS", path=target
        ) from None
    return target


def read_shard_info(run_path: Path) -> ShardInfo | None:
    """The run's ``shard.json``, or None when the run is not a shard."""
    file = run_path / SHARD_FILE
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        return ShardInfo.model_validate(parse_json(text, file))
    except ValidationError as exc:
        field, message = describe(exc)
        raise RunStoreError(message, code="RUN_CORRUPT", path=file, field=field) from None


def empty_shard(shard: Shard, total: int, source: Path) -> InputError:
    return InputError(
        f"shard {shard} has no tasks: the selection has only {total} task(s) for {shard.count} "
        "shards (use at most as many shards as tasks)",
        code="SHARD_EMPTY",
        path=source,
    )


__all__ = [
    "SHARD_FILE",
    "Shard",
    "ShardInfo",
    "empty_shard",
    "parse_shard",
    "read_shard_info",
    "write_shard_info",
]
