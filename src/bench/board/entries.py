"""Stage 1b: one loaded run (a ``RunSummary``) becomes an :class:`EntryInput`, plain data.

Everything after this stage (rows, statistics, page) sees only these values, so the rows can be
golden-tested from hand-made inputs without run directories.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from bench.core.rng import DEFAULT_SEED
from bench.core.suite import DEFAULT_SUITE_NAME
from bench.core.text import display_text

if TYPE_CHECKING:
    from bench.records.run import RunConfig
    from bench.reports.summary import RunSummary
    from bench.stats import HeadlineResult


@dataclass(frozen=True)
class RunHeadline:
    """A run's own headline, as ``bench run``, ``show``, ``leaderboard`` and ``compare`` print
    it: :func:`bench.stats.stratified_headline` over the run's scored tasks, in the run's task
    order, with the run's recorded seed (``config.seed``)."""

    value: float
    lo: float
    hi: float
    method: str
    level: float
    pooled: float
    analytic_se: float

    @classmethod
    def of(cls, head: HeadlineResult) -> RunHeadline:
        interval = head.score.interval
        return cls(
            value=head.score.value,
            lo=interval.lo,
            hi=interval.hi,
            method=interval.method,
            level=interval.level,
            pooled=head.pooled,
            analytic_se=head.analytic_se,
        )


@dataclass(frozen=True)
class FailedInput:
    task_id: str
    family: str
    value: float | None
    lines: tuple[str, ...]
    private: bool
    transcript: str | None


@dataclass(frozen=True)
class NotScoredInput:
    """A task left out of the run's mean: no expectation could decide it, or none of its
    attempts counted (``RunSummary.not_scorable``). ``reason`` is None for a private task: its
    id only, as a private failed task shows no sentence."""

    task_id: str
    family: str
    reason: str | None
    private: bool


@dataclass(frozen=True)
class EntryInput:
    """What the board needs from one run."""

    entrant: str
    display_name: str
    run_id: str
    created_at: str
    cohort_key: str
    fingerprint: str
    config: Mapping[str, object]
    task_set_hash: str
    split: str | None
    repeats: int
    harness: str
    status: str
    values: Mapping[str, float]
    """task id -> mean over counted repeats (scorable tasks only)."""
    families: Mapping[str, str]
    pass_hat: Mapping[str, float] = field(default_factory=dict)
    """task id -> pass^k at k = repeats (tasks with every repeat counted)."""
    flaky: Mapping[str, float] = field(default_factory=dict)
    costs: Mapping[str, float] | None = None
    """task id -> mean dollars per attempt; None when cost is not measured."""
    cost_note: str = "not measured"
    latencies: tuple[tuple[str, float], ...] = ()
    """(task id, seconds) of every counted attempt."""
    counted: int = 0
    errored: int = 0
    harness_faults: int = 0
    """attempts the harness broke (out of the denominator; each reproduced by verify)."""
    axes: Mapping[str, float] = field(default_factory=dict)
    safety: tuple[str, ...] = ()
    judge_excluded: tuple[str, ...] = ()
    failed: tuple[FailedInput, ...] = ()
    not_scored: tuple[NotScoredInput, ...] = ()
    """Tasks of the run left out of its mean, in the run's task order (named on the card)."""
    source: Literal["run", "bundle"] = "run"
    source_path: str = ""
    verified: bool = False
    verified_note: str = "local run, not verified"
    verify_detail: str | None = None
    """Why verification failed, as ``bench verify`` prints it (``render.render_text``): for
    the build's --strict error only, never on a page (the message may quote the bundle)."""
    note: str | None = None
    """Nothing sets it from a run: a recorded target has no ``note`` (``TargetSpec`` forbids
    one, so no verifying bundle carries it), and only a hand-edited config.json of a local
    run did, whose words no check had read. The page's note column stays empty."""
    languages: Mapping[str, tuple[float, int]] = field(default_factory=dict)
    """language -> (plain mean task value, tasks) over scorable tasks (``RunSummary.languages``)."""
    seed: int = DEFAULT_SEED
    """The run's recorded seed: its headline interval is drawn with it, on every surface."""
    headline: RunHeadline | None = None
    """The run's own headline (``RunSummary.headline``); None: computed from ``values``
    (in their order, which is the run's task order) and ``seed`` by :func:`run_headline`."""
    subset: str | None = None
    """``subset: 43 of 86 public tasks`` when the run left out tasks of its split."""
    reference: str | None = None
    """The no-model baseline's name for a reference run: listed, marked, never ranked."""
    suite: str = DEFAULT_SUITE_NAME
    """The suite the run names (``RunConfig.task_set.suite``): the board shows one per page."""
    suite_version: str | None = None
    replay_of: str | None = None
    """What a cassette replay replayed (the run id, or the cassette's target file): never a
    row, since it re-scores answers already recorded, not a new run of an entrant."""

    @property
    def key(self) -> str:
        return f"{self.entrant}/{self.fingerprint}"


def run_headline(e: EntryInput, level: float = 0.95) -> RunHeadline:
    """The entry's own headline (see :class:`RunHeadline`): the one carried from the run's
    summary, or the same function applied to the same values, order and seed."""
    if e.headline is not None and e.headline.level == level:
        return e.headline
    from bench.stats import stratified_headline

    tasks = list(e.values)
    head = stratified_headline(
        [e.values[t] for t in tasks],
        [e.families[t] for t in tasks],
        seed=e.seed,
        level=level,
        label=f"{e.display_name} headline",
    )
    return RunHeadline.of(head)


def transcript_link(
    repo_url: str | None, source_path: str, task_id: str, source: str
) -> str | None:
    """The attempts' source on GitHub (``--repo-url``): a bundle's whole ``attempts.jsonl.gz``
    or a run's first repeat. The page's own viewer (``transcripts.py``) needs no URL."""
    if repo_url is None:
        return None
    base = repo_url.rstrip("/") + "/blob/HEAD/" + source_path.strip("/")
    if source == "bundle":
        return base + "/attempts.jsonl.gz"
    return f"{base}/attempts/{task_id}--r0.json"


def _declared(value: object) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float | str):
        text = display_text(str(value))
        return None if text == "(unnamed)" else text
    return None


def engine_label(config: Mapping[str, object]) -> str | None:
    """What the run's inference server declared (``RunConfig.server``), as the card prints it:
    ``llama-cpp-python 0.3.36, context window 8192, quantisation Q4_K_M``; None when the run
    recorded no server (a scripted or http-agent target)."""
    server = config.get("server")
    if not isinstance(server, Mapping):
        return None
    engine = _declared(server.get("engine")) or "unknown"
    version = _declared(server.get("version"))
    parts = [engine if version is None else f"{engine} {version}"]
    if (window := _declared(server.get("context_window"))) is not None:
        parts.append(f"context window {window}")
    if (quantisation := _declared(server.get("quantisation"))) is not None:
        parts.append(f"quantisation {quantisation}")
    if len(parts) == 1 and version is None:
        parts[0] += " (the server declared no version, context window or quantisation)"
    return ", ".join(parts)


def _overrides(config: RunConfig) -> dict[str, object]:
    """The task budget the run set over every task's own (``--task-budget-*``): its set fields."""
    return {k: v for k, v in config.task_budget.model_dump(mode="json").items() if v is not None}


def _rate(value: object) -> str:
    return f"${value:g}" if isinstance(value, int | float) else "?"


def _with_prices(note: str, pricing: object, measured: bool) -> str:
    """The run's cost note, with the per-token prices it was computed at: the submitter's own
    declaration (verification checks the arithmetic, not the prices), so a reader can see
    what a cheap row claims."""
    if not measured or not isinstance(pricing, dict):
        return note
    rates = f"{_rate(pricing.get('prompt_per_mtok'))} prompt, "
    rates += f"{_rate(pricing.get('completion_per_mtok'))} completion"
    if pricing.get("cached_per_mtok") is not None:
        rates += f", {_rate(pricing.get('cached_per_mtok'))} cached"
    return f"{note}; at the prices its target declares: {rates} per million tokens"


def from_summary(
    summary: RunSummary,
    *,
    source: Literal["run", "bundle"],
    source_path: str,
    verified: bool,
    verified_note: str,
    repo_url: str | None,
) -> EntryInput:
    """Plain values from a run summary (``bench.reports.summarize``)."""
    config = summary.config
    repeats = config.repeats
    scored = [s for s in summary.task_scores if s.value is not None]
    counted = [r for r in summary.records if r.outcome in ("scored", "errored", "over_budget")]
    costs: dict[str, list[float]] = {}
    for record in counted:
        if record.trace.cost_usd is not None:
            costs.setdefault(record.task_id, []).append(record.trace.cost_usd)
    measured = summary.cost_usd is not None
    private = {r.task_id for r in summary.records if r.split == "private"}
    if config.task_set.split == "private":
        private |= {s.task_id for s in summary.task_scores}
    failed = tuple(
        FailedInput(
            task_id=f.task_id,
            family=f.family,
            value=f.value,
            lines=() if f.task_id in private else f.lines,
            private=f.task_id in private,
            transcript=None
            if f.task_id in private
            else transcript_link(repo_url, source_path, f.task_id, source),
        )
        for f in summary.failures
    )
    family_of = {s.task_id: s.family for s in summary.task_scores}
    not_scored = tuple(
        NotScoredInput(
            task_id=task_id,
            family=family_of.get(task_id, ""),
            reason=None if task_id in private else why,
            private=task_id in private,
        )
        for task_id, why in summary.not_scorable
    )
    suite = config.task_set.suite
    replay_of = None
    if config.target_kind == "cassette":
        replay_of = config.target_file.removeprefix("replay:") or "a cassette"
    return EntryInput(
        replay_of=replay_of,
        entrant=config.entrant,
        display_name=display_text(config.display_name),
        run_id=config.run_id,
        created_at=config.created_at.isoformat(),
        cohort_key=config.cohort_key(),
        fingerprint=config.fingerprint(),
        config={
            "task_set": config.task_set.content_hash,
            "split": config.task_set.split,
            "harness": config.harness_version,
            "repeats": repeats,
            "target": config.comparable,
            "judge": config.judge.get("fingerprint") if config.judge else None,
            **({"subset": label} if (label := config.task_set.subset_label()) else {}),
            **({} if suite.is_default else {"suite": suite.label()}),
            # Neither is in the cohort key (a run with its own limits is ranked with the rest),
            # so the card shows them and the cohort notes rows whose limits differ (rows.py).
            **(
                {"time_limit_s": config.attempt_timeout_s}
                if config.attempt_timeout_s is not None
                else {}
            ),
            **({"task_budget": overrides} if (overrides := _overrides(config)) else {}),
            # In the fingerprint, not the cohort key: rows of one entrant that differ only in
            # the engine they declared share a cohort, and the card tells them apart by it.
            **({"server": config.server} if config.server is not None else {}),
        },
        task_set_hash=config.task_set.content_hash,
        split=config.task_set.split,
        repeats=repeats,
        harness=config.harness_version,
        status=summary.status.status,
        values={s.task_id: float(s.value) for s in scored if s.value is not None},
        families={s.task_id: s.family for s in summary.task_scores},
        pass_hat={
            s.task_id: s.pass_hat_k[str(repeats)] for s in scored if str(repeats) in s.pass_hat_k
        },
        flaky={s.task_id: s.flakiness for s in scored if s.flakiness is not None},
        costs={t: math.fsum(c) / len(c) for t, c in costs.items()} if measured else None,
        cost_note=_with_prices(summary.cost_note, config.target.get("pricing"), measured),
        latencies=tuple((r.task_id, r.trace.latency_s) for r in counted),
        counted=len(counted),
        errored=sum(1 for r in counted if r.outcome != "scored"),
        harness_faults=summary.harness_faults,
        axes=dict(summary.axes.axes),
        safety=tuple(f"{task} (repeat {k}): {text}" for task, k, text in summary.safety),
        judge_excluded=tuple(
            sorted({s.family for s in summary.task_scores if not s.judge_trusted})
        ),
        failed=failed,
        not_scored=not_scored,
        source=source,
        source_path=source_path,
        verified=verified,
        verified_note=verified_note,
        languages=dict(summary.languages),
        seed=config.seed,
        headline=None if summary.headline is None else RunHeadline.of(summary.headline),
        subset=config.task_set.subset_label(),
        reference=config.reference(),
        suite=suite.name,
        suite_version=suite.version,
    )


def p95_point(e: EntryInput) -> float:
    """The entry's p95 latency: ``inverted_cdf``, the smallest x with F(x) >= 0.95, in
    integers (the same value as ``np.percentile(..., 95, method="inverted_cdf")``)."""
    ordered = sorted(s for _, s in e.latencies)
    k = -(-95 * len(ordered) // 100)
    return ordered[max(k, 1) - 1]


__all__ = [
    "EntryInput",
    "FailedInput",
    "NotScoredInput",
    "RunHeadline",
    "engine_label",
    "from_summary",
    "p95_point",
    "run_headline",
    "transcript_link",
]
