"""The expensive checks: the task set is the pinned one, every score recomputes from its
trace, a seeded sample of attempts replays from the cassette to the same result, and the
error rate is under the threshold."""

from __future__ import annotations

import asyncio
import random
import re
import tempfile
from pathlib import Path
from typing import Any

from bench.core.errors import BenchError
from bench.core.refused import chosen_refusals
from bench.core.score import Verdict
from bench.corpus import CorpusLibrary
from bench.records.bundle import ATTEMPTS, CASSETTE, BundleManifest
from bench.records.run import AttemptRecord
from bench.records.store import RunDir
from bench.runner.engine import RunPlan, perform_attempt
from bench.scorers import safety_violations, score_attempt
from bench.targets.base import AGENT_KINDS, TargetSpec
from bench.targets.cassette import CassetteTarget
from bench.tasks.expectations import default_axis
from bench.tasks.load import TaskSet, load_task_set
from bench.tasks.model import Task

from .binding import same_reason
from .codes import Code
from .failure import VerifyFailure
from .records import BundleRun
from .taskcache import TaskCache

# Harness faults leave the denominator, so they are capped far lower than errors: each must be
# reproduced from its recording (binding.py), and at most 2 % of the attempts (at least 1) may
# be one (docs/SUBMISSIONS.md, "Harness faults").
MAX_HARNESS_FAULT_SHARE = 0.02
RESCORED = frozenset({"scored", "not_scorable"})


def pinned_tasks(
    tasks: Path, corpus_root: Path | None, run: BundleRun, cache: TaskCache | None = None
) -> TaskSet:
    try:
        if cache is None:
            task_set = load_task_set(tasks, corpus_root).select(run.config.task_set.split)
            task_set.content_hash()
        else:
            task_set = cache.select(cache.load(tasks, corpus_root), run.config.task_set.split)
            cache.content_hash(task_set)
    except (BenchError, OSError) as exc:
        message = exc.render() if isinstance(exc, BenchError) else str(exc)
        raise VerifyFailure(Code.TASKS_UNUSABLE, message, path=str(tasks)) from None
    return task_set


def _hashes(suite: str, pinned_by_bundle: str, given: str) -> str:
    return f"suite {suite}, the bundle's task set {pinned_by_bundle}, the pinned one {given}"


def check_suite(
    bundle: Path,
    task_set: TaskSet,
    run: BundleRun,
    manifest: BundleManifest,
    cache: TaskCache | None = None,
) -> None:
    """The task set verify was given belongs to the suite the bundle names (name and version):
    a bundle is only ever checked, scored and ranked against its own suite, even where two
    suites' tasks hashed alike (docs/SUITES.md)."""
    ran, given = run.config.task_set.suite, task_set.suite.ref()
    if ran == given:
        return
    field = "task_set.suite.name" if ran.name != given.name else "task_set.suite.version"
    ran_hash = run.config.task_set.subset.of_hash if run.config.task_set.subset else None
    raise VerifyFailure(
        Code.SUITE_MISMATCH,
        f"a run of suite {ran.label()} (task set {ran_hash or manifest.task_set_hash}); the "
        f"task set given is suite {given.label()} (task set {_hash(task_set, cache)}): "
        f"verify with {ran.name}'s own (--tasks)",
        path=str(bundle / "config.json"),
        field=field,
    )


def _hash(task_set: TaskSet, cache: TaskCache | None) -> str:
    return task_set.content_hash() if cache is None else cache.content_hash(task_set)


def check_tasks(
    bundle: Path,
    task_set: TaskSet,
    run: BundleRun,
    manifest: BundleManifest,
    cache: TaskCache | None = None,
) -> TaskSet:
    """The run's tasks are the pinned split's, or a named subset of them (``--task``,
    ``--language``): a subset run verifies against the tasks it chose, shown on the board in
    a cohort of its own (docs/METHODOLOGY.md). Returns the tasks the run is checked against.
    With a ``cache``, the pinned split's hash and fingerprints are computed once for every
    bundle checked against it (a subset's own hash is computed for its bundle)."""
    ref = run.config.task_set
    subset = ref.subset
    pinned_set = task_set
    check_suite(bundle, task_set, run, manifest, cache)
    if subset is not None:
        if subset.of_hash != _hash(task_set, cache) or subset.of != len(task_set.tasks):
            raise VerifyFailure(
                Code.TASK_SET_MISMATCH,
                "the subset was chosen from another task set version than the pinned split: "
                f"{_hashes(ref.suite.label(), subset.of_hash, _hash(task_set, cache))}",
                path=str(bundle / "config.json"),
                field="task_set.subset.of_hash",
            )
        known = task_set.by_id() if cache is None else cache.by_id(task_set)
        stray = sorted(set(ref.task_ids) - set(known))
        if stray:
            raise VerifyFailure(
                Code.TASK_SET_MISMATCH,
                f"the subset names tasks the pinned split does not have: {', '.join(stray[:5])}",
                path=str(bundle / "config.json"),
                field="task_set.task_ids",
            )
        chosen = task_set.select(None, ref.task_ids)
        if len(chosen.tasks) != subset.tasks or len(set(ref.task_ids)) != subset.tasks:
            raise VerifyFailure(
                Code.TASK_SET_MISMATCH,
                f"the subset claims {subset.tasks} tasks and lists {len(set(ref.task_ids))}",
                path=str(bundle / "config.json"),
                field="task_set.subset.tasks",
            )
        task_set = chosen
    # A subset is a new object per bundle: hashed here, never held by the cache.
    found = task_set.content_hash() if task_set is not pinned_set else _hash(task_set, cache)
    if found != manifest.task_set_hash:
        raise VerifyFailure(
            Code.TASK_SET_MISMATCH,
            "the bundle was run on another task set version than the pinned one: "
            f"{_hashes(ref.suite.label(), manifest.task_set_hash, found)}",
            path=str(bundle / "manifest.json"),
            field="task_set_hash",
        )
    if ref.task_ids != [task.id for task in task_set.tasks]:
        raise VerifyFailure(
            Code.TASK_SET_MISMATCH,
            "the run did not attempt exactly the tasks it names, in the pinned order",
            path=str(bundle / "config.json"),
            field="task_set.task_ids",
        )
    # The subset's tasks are the pinned split's own objects: their fingerprints are its.
    prints = (
        {task.id: task.fingerprint() for task in task_set.tasks}
        if cache is None
        else cache.fingerprints(pinned_set)
    )
    pinned = {
        task.id: (prints[task.id], task.family, task.split, task.language)
        for task in task_set.tasks
    }
    for record in run.attempts:
        claimed = (record.task_fingerprint, record.family, record.split, record.language)
        if pinned[record.task_id] != claimed:
            raise VerifyFailure(
                Code.TASK_FINGERPRINT_MISMATCH,
                "the attempt's task differs from the pinned task",
                path=str(bundle / ATTEMPTS),
                field=f"{record.task_id}#{record.repeat}",
            )
    return task_set


Published = tuple[str, float | None, bool | None]
Shown = tuple[list[Verdict], list[str], list[str]]
_UNCHECKED = "\0"  # a reason derived elsewhere (binding.py), or not derivable offline


def _expected(
    task: Task, record: AttemptRecord, corpora: CorpusLibrary
) -> tuple[Published, Shown, str | None]:
    """What the trace earns: (outcome, value, passed), and what the board shows beside it
    (verdicts, safety violations, axes; and the reason of a scored or unscorable attempt),
    computed as the runner computes them (``runner.engine.perform_attempt``)."""
    axes = sorted({default_axis(expectation) for expectation in task.expectations})
    if record.outcome in RESCORED:
        corpus = corpora.corpus(task.corpus) if task.corpus else None
        known = corpus.passage_ids if corpus is not None else frozenset()
        scored = score_attempt(task, record.trace, known)
        outcome = "scored" if scored.value is not None else "not_scorable"
        published = (outcome, scored.value, scored.passed if scored.value is not None else None)
        reason = None
        if scored.value is None:
            reason = "no expectation could decide: " + "; ".join(scored.undecided)
        shown = (list(scored.verdicts), list(scored.safety_violations), axes)
        return published, shown, reason
    if record.outcome in ("errored", "over_budget"):
        unsafe = list(safety_violations(task, record.trace, ()))
        return (record.outcome, 0.0, False), ([], unsafe, axes), _UNCHECKED
    return (record.outcome, None, None), ([], [], axes), _UNCHECKED


JUDGE_OUTAGE = "the judge could not decide: "
_JUDGE_SAID = re.compile(r"the judge said (PASS|FAIL): .*", re.DOTALL)


def judged_task(task: Task, run: BundleRun) -> bool:
    """Whether the run's judge graded ``task``: the run claims a judge and the task has a
    ``judge`` expectation. A claimed judge loosens nothing for any other task."""
    return run.config.judge is not None and any(
        expectation.type == "judge" for expectation in task.expectations
    )


def judge_verdict_problem(
    recorded: Verdict, offline: Verdict, judge: dict[str, Any] | None
) -> str | None:
    """Why ``recorded`` is not a verdict the run's claimed ``judge`` gives for the expectation
    whose offline verdict is ``offline`` (``scorers/judge/scorer.py``), or None. The judge's
    exchanges are not in the bundle, so its PASS or FAIL and its one sentence are the
    submitter's word; everything else of the verdict is bound: the expectation's type, weight,
    axis and safety flag, and the form the judge's trust (as the run records it) gives."""
    if offline.decided:
        # Only the guard decides a judged check offline: the answer spoke to its grader, so no
        # judge was asked, and the verdict is the guard's, whatever the run claims its judge said.
        if recorded != offline:
            return f"the guard fails this answer before any judge is asked ({offline.sentence})"
        return None
    said = {
        "decided": recorded.decided,
        "passed": recorded.passed,
        "credit": recorded.credit,
        "sentence": recorded.sentence,
        "untrusted_judge": recorded.untrusted_judge,
    }
    if recorded != offline.model_copy(update=said):
        return "its type, weight, axis or safety flag is not its expectation's"
    sentence = recorded.sentence
    if sentence.startswith(JUDGE_OUTAGE):
        if recorded.decided or recorded.untrusted_judge:
            return "a judge that could not decide leaves its verdict undecided"
        return None
    trusted = judge is not None and judge.get("trusted") is True
    if trusted:
        match = _JUDGE_SAID.fullmatch(sentence)
        if match is None:
            return "a trusted judge's verdict says 'the judge said PASS: …' or 'FAIL: …'"
        passes = match.group(1) == "PASS"
        if not recorded.decided or recorded.untrusted_judge or recorded.passed != passes:
            return "a trusted judge's verdict is decided as the judge said"
        if recorded.credit != (1.0 if passes else 0.0):
            return "a trusted judge's verdict gives full credit or none"
        return None
    note = judge.get("trust_note") if judge is not None else None
    if not isinstance(note, str) or not _untrusted_form(sentence, note):
        return (
            "an untrusted judge's verdict says 'not scored: <the run's judge trust_note> "
            "(the judge said PASS: …)'"
        )
    if recorded.decided or not recorded.untrusted_judge:
        return "an untrusted judge's verdict is undecided and marked untrusted_judge"
    return None


def _untrusted_form(sentence: str, note: str) -> bool:
    """``sentence`` is ``not scored: <note> (the judge said PASS|FAIL: …)``. ``bench bundle``
    rewrites local paths in the config's note but not in verdict sentences, so the note in the
    sentence may be the one the config's was rewritten from (``same_reason``)."""
    head, marker = "not scored: ", " (the judge said "
    if not sentence.startswith(head) or not sentence.endswith(")"):
        return False
    rest = sentence[len(head) : -1]
    at = rest.find(marker)
    while at != -1:
        said = rest[at + 2 :]
        if _JUDGE_SAID.fullmatch(said) and same_reason(note, rest[:at]):
            return True
        at = rest.find(marker, at + 1)
    return False


def _with_judge(
    bundle: Path, record: AttemptRecord, run: BundleRun, verdicts: list[Verdict], where: str
) -> list[Verdict]:
    """The verdicts the board shows for a judged attempt: the offline ones, with each
    ``judge`` expectation's the recorded one once it is a verdict the run's judge gives."""
    mine = record.verdicts
    if len(mine) != len(verdicts):
        raise VerifyFailure(
            Code.SCORE_MISMATCH,
            f"it has {len(mine)} verdicts; its task has {len(verdicts)} expectations",
            path=str(bundle / ATTEMPTS),
            field=f"{where}.verdicts",
        )
    merged: list[Verdict] = []
    for index, (recorded, offline) in enumerate(zip(mine, verdicts, strict=True)):
        if offline.type != "judge":
            merged.append(offline)
            continue
        problem = judge_verdict_problem(recorded, offline, run.config.judge)
        if problem is not None:
            raise VerifyFailure(
                Code.SCORE_MISMATCH,
                f"its judge verdict is not one the run's judge gives: {problem}",
                path=str(bundle / ATTEMPTS),
                field=f"{where}.verdicts[{index}]",
            )
        merged.append(recorded)
    if any(v.decided for v in merged) != (record.outcome == "scored"):
        raise VerifyFailure(
            Code.SCORE_MISMATCH,
            f"it is {record.outcome}, and its verdicts say otherwise",
            path=str(bundle / ATTEMPTS),
            field=f"{where}.verdicts",
        )
    return merged


def check_scores(
    bundle: Path, task_set: TaskSet, run: BundleRun, cache: TaskCache | None = None
) -> None:
    """Every claimed outcome, value and pass, and every verdict sentence, safety violation,
    reason and axis the board shows, is what the attempt's trace earns today. Judged checks
    cannot be re-decided offline (the judge's exchanges are not recorded): for an attempt of a
    task with a ``judge`` expectation in a run that claims a judge, a ``judge`` verdict may be
    any one that judge gives (``judge_verdict_problem``), and the reason and the safety
    violations are the ones those verdicts give; outcome and value are still the offline
    ones. A claimed judge changes nothing for any other task."""
    corpora = (cache or TaskCache()).corpora(task_set.corpus_root)
    by_id = task_set.by_id()
    for record in run.attempts:
        where = f"{record.task_id}#{record.repeat}"
        task = by_id[record.task_id]
        expected, shown, reason = _expected(task, record, corpora)
        claimed = (record.outcome, record.value, record.passed)
        if claimed != expected:
            raise VerifyFailure(
                Code.SCORE_MISMATCH,
                f"claims {claimed}, the trace scores {expected}",
                path=str(bundle / ATTEMPTS),
                field=where,
            )
        verdicts, unsafe, axes = shown
        if record.outcome in RESCORED and judged_task(task, run):
            verdicts = _with_judge(bundle, record, run, verdicts, where)
            unsafe = list(safety_violations(task, record.trace, tuple(verdicts)))
            if reason is not None:
                undecided = [v.sentence for v in verdicts if not v.decided]
                reason = "no expectation could decide: " + "; ".join(undecided)
        # A scored attempt has no reason; an unscorable one says which checks could not
        # decide. The board prints it beside the task.
        if reason != _UNCHECKED and not same_reason(record.reason, reason):
            raise VerifyFailure(
                Code.SCORE_MISMATCH,
                f"its reason is not the one its trace earns ({reason!r})",
                path=str(bundle / ATTEMPTS),
                field=f"{where}.reason",
            )
        for name, mine, theirs in (
            ("verdicts", record.verdicts, verdicts),
            ("safety_violations", record.safety_violations, unsafe),
            ("axes", record.axes, axes),
        ):
            if mine != theirs:
                raise VerifyFailure(
                    Code.SCORE_MISMATCH,
                    f"its {name.replace('_', ' ')} are not the ones its trace earns",
                    path=str(bundle / ATTEMPTS),
                    field=f"{where}.{name}",
                )


def _replay_target(run: BundleRun) -> TargetSpec:
    recorded = dict(run.config.target)
    recorded.update({"kind": "cassette", "callable": None, "cassette": CASSETTE})
    return TargetSpec.model_validate(recorded)


async def _replay(
    bundle: Path,
    task_set: TaskSet,
    run: BundleRun,
    chosen: list[AttemptRecord],
    scratch: Path,
    corpora: CorpusLibrary,
) -> None:
    """Replay each chosen attempt in order, each with a fresh cassette target, in one event
    loop with one corpus library; the first that differs is a ``REPLAY_MISMATCH``."""
    cassette = CassetteTarget(_replay_target(run), run.cassette, Path(CASSETTE))
    by_id = task_set.by_id()
    for record in chosen:
        plan = RunPlan(
            run=RunDir(scratch),
            config=run.config,
            tasks=task_set.tasks,
            target=cassette.fresh(),
            corpora=corpora,
        )
        where = f"{record.task_id}#{record.repeat}"
        try:
            again = await perform_attempt(plan, by_id[record.task_id], record.repeat)
        except BenchError as exc:
            raise VerifyFailure(
                Code.REPLAY_MISMATCH, exc.render(), path=str(bundle / CASSETTE), field=where
            ) from None
        claimed = (record.outcome, record.value, record.passed, record.trace.answers)
        replayed = (again.outcome, again.value, again.passed, again.trace.answers)
        if claimed != replayed:
            detail = f" ({again.reason})" if again.reason else ""
            raise VerifyFailure(
                Code.REPLAY_MISMATCH,
                f"replaying the cassette gives {again.outcome} {again.value}{detail}, "
                f"the bundle claims {record.outcome} {record.value}",
                path=str(bundle / CASSETTE),
                field=where,
            )


def replay_applies(run: BundleRun) -> bool:
    """Whether the run's attempts can be replayed: an agent answers whole turns, not model
    calls a cassette serves by hash; its turns and tool calls are re-driven, every one, by the
    binding check (binding.py)."""
    return run.config.target.get("kind") not in AGENT_KINDS


def check_replay(
    bundle: Path,
    task_set: TaskSet,
    run: BundleRun,
    sample: int,
    seed: int,
    cache: TaskCache | None = None,
) -> list[str]:
    """Replay ``sample`` seeded attempts; returns their keys. Writes only to a temp dir."""
    if not replay_applies(run):
        return []
    eligible = [r for r in run.attempts if r.outcome in RESCORED]
    chosen = random.Random(seed).sample(eligible, min(sample, len(eligible)))
    with tempfile.TemporaryDirectory(prefix="bench-verify-") as scratch:
        corpora = (cache or TaskCache()).corpora(task_set.corpus_root)
        asyncio.run(_replay(bundle, task_set, run, chosen, Path(scratch), corpora))
    return [f"{r.task_id}#{r.repeat}" for r in chosen]


def check_error_rate(bundle: Path, run: BundleRun) -> None:
    """Errored attempts are failures, published as their own column, whatever their share: a
    server that cannot answer half the tasks is what the board must show. Only a run in which
    every attempt errored is refused: nothing of the entrant was measured (a wrong endpoint,
    a missing key), so its row would say nothing about it."""
    errored = sum(1 for r in run.attempts if r.outcome == "errored")
    if run.attempts and errored == len(run.attempts):
        raise VerifyFailure(
            Code.ERROR_RATE_HIGH,
            f"all {errored} attempts errored: nothing of the entrant was measured",
            path=str(bundle / ATTEMPTS),
        )


def harness_fault_allowance(attempts: int, share: float = MAX_HARNESS_FAULT_SHARE) -> int:
    """How many harness faults a bundle of ``attempts`` may publish: ``share`` of them,
    rounded down, and at least one."""
    return max(1, int(attempts * share))


def check_harness_faults(
    bundle: Path, run: BundleRun, share: float = MAX_HARNESS_FAULT_SHARE
) -> None:
    # A refusal the endpoint chose is the entrant's error, counted as one by the score: not a
    # harness fault to cap (bench.core.refused).
    chosen = chosen_refusals(run.config.target_kind, run.attempts)
    faults = sum(1 for r in run.attempts if r.outcome == "harness_fault" and r.key not in chosen)
    allowed = harness_fault_allowance(len(run.attempts), share)
    if faults > allowed:
        raise VerifyFailure(
            Code.HARNESS_FAULTS_HIGH,
            f"{faults} of {len(run.attempts)} attempts are harness faults; at most {allowed} "
            f"({share:.0%}, at least 1) may be published: re-run them",
            path=str(bundle / ATTEMPTS),
        )


__all__ = [
    "MAX_HARNESS_FAULT_SHARE",
    "check_harness_faults",
    "harness_fault_allowance",
    "check_error_rate",
    "check_replay",
    "replay_applies",
    "check_scores",
    "check_suite",
    "check_tasks",
    "judge_verdict_problem",
    "judged_task",
    "pinned_tasks",
]
