"""``bench merge``: the shards of one run, checked and joined into one new run directory.

Refusals, each naming the offending runs:

* ``MERGE_NOT_SHARD`` — a run has no ``shard.json`` (it was not started with ``--shard``);
* ``MERGE_FINGERPRINT`` — the runs do not share one config fingerprint (or one selection);
* ``MERGE_OVERLAP`` — a task is in more than one run;
* ``MERGE_GAP`` — a task of the selection is in none of them;
* ``MERGE_FOREIGN`` — a run holds an attempt file that is not one of its slice's, or that
  another run (or config) recorded;
* ``MERGE_INCOMPLETE`` — a run is not ``complete`` or lacks an attempt of its slice.

Every check runs before anything is written; a merge that fails while writing (a full disk)
removes the directory it was making.

The merged run gets a new run id; its config is the first shard's with the whole selection's
task ids (in task-set order), so it is exactly the config an unsharded run would have had
(same fingerprint). Every attempt record is copied with ``run_id`` rewritten to the new id;
nothing else in it changes. The cassette is rebuilt from the merged traces, and ``merge.json``
lists the source runs.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.core.atomic import write_once
from bench.core.clock import utc_now
from bench.core.errors import RunStoreError, UsageError
from bench.core.ids import new_run_id
from bench.records.run import AttemptRecord, RunConfig, RunStatus, attempt_filename
from bench.records.store import RunDir, RunStore

from .shards import ShardInfo, read_shard_info

MERGE_FILE = "merge.json"


class MergeError(RunStoreError):
    """The runs given to ``bench merge`` do not make one whole run."""

    default_code = "MERGE_REFUSED"


@dataclass(frozen=True)
class _Source:
    run: RunDir
    config: RunConfig
    status: RunStatus
    shard: ShardInfo
    attempts: list[AttemptRecord]


def _names(sources: list[_Source]) -> str:
    return ", ".join(source.run.run_id for source in sources)


def _load(run: RunDir) -> _Source:
    shard = read_shard_info(run.path)
    if shard is None:
        raise MergeError(
            f"run {run.run_id} is not a shard (no shard.json; start shards with --shard K/N)",
            code="MERGE_NOT_SHARD",
            path=run.path,
        )
    return _Source(run, run.config(), run.status(), shard, run.attempts())


_SAME_IN_EVERY_SHARD = ("attempt_timeout_s", "task_budget", "seed", "judge")

# What may differ between the targets of two shards run on other machines: where the endpoint
# is and the variable its key is read from. Everything else of the target (the entrant's code,
# its pricing, the transport settings, the entrant and display name) is the merged config's,
# taken from the first shard, so it must be every shard's.
_MACHINE_LOCAL = frozenset({"base_url", "endpoint_id", "api_key_env"})


def _target_differs(mine: dict[str, Any], theirs: dict[str, Any]) -> list[str]:
    keys = (set(mine) | set(theirs)) - _MACHINE_LOCAL
    return [f"target.{key}" for key in sorted(keys) if mine.get(key) != theirs.get(key)]


def _check_own_attempts(source: _Source) -> None:
    """Every attempt file of a shard is one of its slice's, recorded by that shard's run: an
    attempt copied in from another run (another try at the same slice, or another shard) is
    refused here, where its ``run_id`` still says where it came from; the merge rewrites it."""
    config = source.config
    planned = {(tid, r) for tid in config.task_set.task_ids for r in range(config.repeats)}
    fingerprint = config.fingerprint()
    for record in source.attempts:
        name = f"attempts/{attempt_filename(record.task_id, record.repeat)}"
        problem = None
        if record.run_id != config.run_id:
            problem = f"was recorded by run {record.run_id}, not by this one"
        elif record.config_fingerprint != fingerprint:
            problem = "was recorded under another config fingerprint"
        elif record.key not in planned:
            problem = f"is not an attempt of its slice ({config.repeats} repeat(s) of its tasks)"
        if problem is not None:
            raise MergeError(
                f"shard {source.run.run_id}'s {name} {problem}; merge only what each shard ran",
                code="MERGE_FOREIGN",
                path=source.run.path / name,
            )


def check_shards(sources: list[_Source]) -> None:
    """Raise ``MergeError`` unless the runs are the complete, disjoint shards of one run."""
    fingerprints: dict[str, list[_Source]] = {}
    for source in sources:
        fingerprints.setdefault(source.config.fingerprint(), []).append(source)
    if len(fingerprints) > 1:
        groups = "; ".join(f"{fp}: {_names(group)}" for fp, group in fingerprints.items())
        raise MergeError(
            f"the runs do not share one config fingerprint ({groups})", code="MERGE_FINGERPRINT"
        )
    first = sources[0]
    for source in sources[1:]:
        # What a resume may not change, a merge may not mix: the merged config records the
        # first shard's, and verify cannot see another shard's (its attempts' timeouts, budgets
        # and the seed its headline and replay sample draw from). The target may differ in its
        # endpoint only (shards on other machines): the fingerprint already holds the rest.
        mine, theirs = first.config.resume_key(), source.config.resume_key()
        differ = [key for key in _SAME_IN_EVERY_SHARD if mine[key] != theirs[key]]
        differ += _target_differs(first.config.target, source.config.target)
        if differ:
            raise MergeError(
                f"runs {first.run.run_id} and {source.run.run_id} were run with other "
                f"settings ({', '.join(differ)}): merge shards of one command only",
                code="MERGE_FINGERPRINT",
            )
        if source.shard.all_task_ids != first.shard.all_task_ids:
            raise MergeError(
                f"runs {first.run.run_id} and {source.run.run_id} are shards of different "
                "task selections",
                code="MERGE_FINGERPRINT",
            )
    owners: dict[str, list[str]] = {}
    for source in sources:
        for task_id in source.config.task_set.task_ids:
            owners.setdefault(task_id, []).append(source.run.run_id)
    overlap = {tid: runs for tid, runs in sorted(owners.items()) if len(runs) > 1}
    if overlap:
        detail = "; ".join(f"{tid} in {', '.join(runs)}" for tid, runs in overlap.items())
        raise MergeError(f"a task is in more than one run: {detail}", code="MERGE_OVERLAP")
    missing = [tid for tid in first.shard.all_task_ids if tid not in owners]
    extra = sorted(set(owners) - set(first.shard.all_task_ids))
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"no run has task(s) {', '.join(missing)}")
        if extra:
            parts.append(f"task(s) {', '.join(extra)} are not in the selection")
        counts = sorted({s.shard.count for s in sources})
        raise MergeError(
            f"the runs ({_names(sources)}) do not cover the task set: {'; '.join(parts)} "
            f"(shard counts seen: {', '.join(map(str, counts))})",
            code="MERGE_GAP",
        )
    for source in sources:
        _check_own_attempts(source)
        planned = {
            (tid, r)
            for tid in source.config.task_set.task_ids
            for r in range(source.config.repeats)
        }
        have = {record.key for record in source.attempts}
        counted = source.status.attempts_done
        if len(have) < counted:
            # Its status counted files that are gone: a resume would re-run finished attempts
            # (and refuses to: ATTEMPT_REMOVED), so only a new run of the shard mends it.
            raise MergeError(
                f"run {source.run.run_id} has {len(have)} attempt file(s) but its status "
                f"counts {counted}: a finished attempt's file was removed (a finished attempt "
                "is never run again); run the shard again",
                code="MERGE_INCOMPLETE",
                path=source.run.path,
            )
        if source.status.status != "complete" or not planned <= have:
            lacking = len(planned - have)
            raise MergeError(
                f"run {source.run.run_id} is not complete (status {source.status.status}, "
                f"{lacking} attempt(s) missing); resume it first (bench run --resume)",
                code="MERGE_INCOMPLETE",
                path=source.run.path,
            )


def _sum_usage(sources: list[_Source]) -> dict[str, Any] | None:
    usages = [s.status.judge_usage for s in sources if s.status.judge_usage is not None]
    if not usages:
        return None
    total: dict[str, Any] = {}
    for usage in usages:
        for key, value in usage.items():
            if key == "cost_usd":
                # None: nothing priced was bought in that shard (all cache hits, or no
                # pricing: the same judge config in every shard, so then None in all).
                known = total.get(key)
                total[key] = value if known is None else known if value is None else known + value
            elif isinstance(value, int | float) and not isinstance(value, bool):
                total[key] = total.get(key, 0) + value
            else:
                total.setdefault(key, value)
    return total


def merge_runs(
    refs: list[str], runs_dir: Path, *, run_id: str | None = None
) -> tuple[RunDir, RunStatus]:
    """Check the shards and write one new run directory holding all of their attempts."""
    if len(refs) < 1:
        raise UsageError("give the shard runs to merge", code="USAGE")
    store = RunStore(runs_dir)
    runs = [store.resolve(ref) for ref in refs]
    seen: dict[Path, str] = {}
    for run, ref in zip(runs, refs, strict=True):
        key = run.path.resolve()
        if key in seen:
            raise MergeError(
                f"run {run.run_id} is given twice ({seen[key]} and {ref})",
                code="MERGE_OVERLAP",
                path=run.path,
            )
        seen[key] = ref
    sources = sorted((_load(run) for run in runs), key=lambda s: (s.shard.index, s.run.run_id))
    check_shards(sources)
    first = sources[0]
    now = utc_now()
    merged_id = run_id or new_run_id(now)
    config = first.config.model_copy(
        update={
            "run_id": merged_id,
            "task_set": first.config.task_set.model_copy(
                update={"task_ids": list(first.shard.all_task_ids)}
            ),
        }
    )
    records = sorted(
        (
            record.model_copy(update={"run_id": merged_id})
            for source in sources
            for record in source.attempts
        ),
        key=lambda r: (r.task_id, r.repeat),
    )
    started: datetime = min(s.status.started_at for s in sources)
    finished = max((s.status.finished_at or s.status.updated_at) for s in sources)
    status = RunStatus(
        run_id=merged_id,
        status="complete",
        config_fingerprint=config.fingerprint(),
        started_at=started,
        updated_at=now,
        finished_at=finished,
        sessions=sum(s.status.sessions for s in sources),
        elapsed_s=round(sum(s.status.elapsed_s for s in sources), 6),
        attempts_total=len(config.task_set.task_ids) * config.repeats,
        attempts_done=len(records),
        judge_usage=_sum_usage(sources),
    )
    run = store.create(config, status.model_copy(update={"status": "started"}))
    try:
        _write(run, config, status, records, _provenance(now, config, sources))
    except BaseException:
        # A directory this merge made under a new id, half-written: nothing else is in it.
        shutil.rmtree(run.path, ignore_errors=True)
        raise
    return run, status


def _write(
    run: RunDir,
    config: RunConfig,
    status: RunStatus,
    records: list[AttemptRecord],
    provenance: dict[str, Any],
) -> None:
    for record in records:
        run.write_attempt(record)
    if config.record_cassette:
        run.write_cassette(
            (record.task_id, record.repeat, exchange)
            for record in records
            for exchange in record.trace.exchanges
        )
    write_once(run.path / MERGE_FILE, (json.dumps(provenance, indent=2) + "\n").encode())
    run.write_status(status)


def _provenance(now: datetime, config: RunConfig, sources: list[_Source]) -> dict[str, Any]:
    return {
        "format_version": 1,
        "merged_at": now.isoformat(),
        "config_fingerprint": config.fingerprint(),
        "sources": [
            {
                "run_id": s.run.run_id,
                "shard": str(s.shard.shard),
                "task_ids": s.config.task_set.task_ids,
                "attempts": len(s.attempts),
            }
            for s in sources
        ],
    }


__all__ = ["MERGE_FILE", "MergeError", "check_shards", "merge_runs"]
