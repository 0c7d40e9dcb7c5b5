"""``board.json``: the rows of the board as a versioned, strict model (the page's data too).

Every number the page prints is here; the page adds nothing but layout.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from bench.core.models import Strict

BOARD_FORMAT_VERSION: Literal[1] = 1


class Estimate(Strict):
    """A value with its interval (percentile of the shared resamples unless ``method`` says)."""

    value: float
    lo: float
    hi: float
    method: str = "stratified bootstrap percentile"


class FamilyScore(Strict):
    family: str
    n: int
    score: Estimate


class CategoryScore(Strict):
    """One category of an imported suite (BFCL's ``simple_python`` ... ``live_relevance``) on
    one row: the mean over the category's scored tasks with its interval, drawn as the run's
    headline is (its recorded seed; ``bench suite scores`` prints the same figures)."""

    category: str = Field(description="as the suite spells it, e.g. simple_python")
    tasks: int = Field(ge=0, description="tasks of this category the run attempted; 0: not run")
    scored: int = Field(ge=0, description="of those, the tasks in the mean (not scored: left out)")
    score: Estimate | None = Field(
        description="mean with its interval; None when the run did not attempt the category "
        "(tasks 0: 'not run', never 0) or scored none of its tasks"
    )


class LanguageScore(Strict):
    """Plain mean task value of one language's tasks (not stratified, no interval)."""

    language: str
    n: int = Field(description="scorable tasks in this language")
    mean: float


class FailedTask(Strict):
    task_id: str
    family: str
    value: float | None
    lines: list[str] = Field(description="failing sentences; empty for private-split tasks")
    private: bool = False
    transcript: str | None = Field(
        None,
        description="the attempts' source on GitHub (https link), or None without --repo-url; "
        "the page's own viewer is transcript.html#<row's transcripts>/<task_id>",
    )


class NotScoredTask(Strict):
    """A task left out of the row's mean and named: no expectation could decide it, or none
    of its attempts counted (docs/SCORING.md)."""

    task_id: str
    family: str
    reason: str | None = Field(description="why, as bench show prints it; None for private tasks")
    private: bool = False


class EntrantInfo(Strict):
    """What ``submissions/<entrant>.yaml`` says about the entrant (registry files are reviewed
    in the pull request that adds the key). ``description`` is the Markdown source; the page
    renders it with raw HTML off, https: links only and no images."""

    organisation: str
    model: str
    links: list[str]
    contact: str
    license: str
    description: str | None = None


class EntryRow(Strict):
    key: str = Field(description="entrant/fingerprint: unique within a cohort")
    entrant: str
    display_name: str
    run_id: str
    created: str = Field(description="the run's creation date (UTC, YYYY-MM-DD)")
    source: Literal["run", "bundle"]
    source_path: str
    verified: bool
    verified_note: str
    fingerprint: str
    config: dict[str, object] = Field(description="what the fingerprint hashes")
    status: str
    ranked: bool
    reference: str | None = Field(
        None,
        description="a no-model baseline's name: a reference row, listed apart, never ranked and "
        "in no rank, frontier or staircase computation",
    )
    subset: str | None = Field(
        None, description="'subset: 43 of 86 public tasks' when the run left out tasks of its split"
    )
    rank: int | None = Field(
        None, description="printed rank: 1 + rows of the cohort that certainly beat it"
    )
    rank_hi: int | None = None
    headline: Estimate | None = Field(
        description="the run's own headline: its scored tasks, its recorded seed (the interval "
        "bench run, show, leaderboard and compare print)"
    )
    analytic_se: float | None
    pooled: float | None
    families: list[FamilyScore]
    categories: list[CategoryScore] = Field(
        default_factory=list,
        exclude_if=lambda value: not value,
        description="one per category of the cohort (CohortRows.categories), in its order; "
        "absent for a suite without categories and for an unranked row",
    )
    headline_note: str | None = Field(
        None,
        description="'every family is constant: the interval is a single point' when the "
        "headline's interval is the point [value, value], as bench show says it; else None",
    )
    tasks: int
    attempts: int = Field(
        0,
        ge=0,
        description="counted attempts (scored, errored, over budget): the error rate's "
        "denominator and the attempts the p95 latency is over",
    )
    pass_hat_k: Estimate | None = Field(
        None, description="pass^k at k = repeats; None with one repeat (it needs two or more)"
    )
    flakiness: Estimate | None = Field(
        None, description="pairwise disagreement of repeats; None with one repeat"
    )
    error_rate: float | None = Field(
        description="errored + over-budget attempts / counted attempts; None when no attempt "
        "counted (attempts 0: the page says '—', never 0 %)"
    )
    harness_faults: int = Field(
        0, ge=0, description="attempts the harness broke: out of the denominator, each reproduced"
    )
    cost_usd: float | None = Field(description="dollars per run (one pass); None = not measured")
    cost_note: str
    p95_latency_s: float | None
    p95_note: str | None = Field(
        None,
        description="'the slowest of N attempt(s): fewer than 20' when the p95 rests on fewer "
        "than 20 attempts (the inverted-CDF p95 of so few is their maximum); else None",
    )
    frontier_probability: float | None = None
    on_frontier: bool = False
    dominated_95: bool = False
    axes: dict[str, float]
    safety: list[str]
    judge_excluded: list[str] = Field(description="families with judged checks left out")
    failed: list[FailedTask]
    not_scored: list[NotScoredTask] = Field(
        default_factory=list,
        description="tasks of the run left out of its mean, each named (the card lists them); "
        "tasks + len(not_scored) is how many the run attempted to score",
    )
    engine: str | None = Field(
        None,
        description="what the run's inference server declared (config.server): in the "
        "fingerprint, not the cohort key, so it tells an entrant's rows of one cohort apart",
    )
    note: str | None = None
    languages: list[LanguageScore] = Field(
        default_factory=list, description="per-language plain means, sorted by language"
    )
    entrant_info: EntrantInfo | None = Field(
        None, description="from submissions/<entrant>.yaml; None when the entrant has none"
    )
    config_label: str | None = Field(
        None,
        description="the run's own display name when the registry's name replaced it (tells "
        "two configurations of one entrant apart)",
    )
    transcripts: str | None = Field(
        None,
        description="key of the row's attempts beside the page (transcripts/<key>.jsonl.gz): "
        "each failed task that is not private opens transcript.html#<key>/<task_id>; None: "
        "no failed task to show, or the row was not read from --runs or --results",
    )


class CohortRows(Strict):
    cohort_key: str
    title: str
    suite: str | None = Field(
        None,
        exclude_if=lambda value: value is None,
        description="the suite, 'bfcl-v4 2026.3.23', when not this project's own (bench-suite)",
    )
    task_set_hash: str
    split: str | None
    subset: str | None = Field(
        None, description="'subset: 43 of 86 public tasks': the cohort's runs left out tasks"
    )
    repeats: int
    harness: str
    ranked_on: int = Field(description="tasks every ranked entry scored")
    families: list[str]
    family_notes: dict[str, str] = Field(
        default_factory=dict,
        exclude_if=lambda value: not value,
        description="family -> its note when it has fewer than 10 of the tasks the cohort is "
        "ranked on ('family x has 6 tasks (< 10): too few to trust its interval, whatever its "
        "width'; also in warnings); absent when no family is that small",
    )
    categories: list[str] = Field(
        default_factory=list,
        exclude_if=lambda value: not value,
        description="the suite's categories, one column each (BFCL's, as it spells them); "
        "absent for a suite without categories (bench-suite's own)",
    )
    rank_mode: str
    order: str = Field(description="the rule the rows are listed by")
    entries: list[EntryRow]
    cost_view: list[str] = Field(description="entry keys on the cost/quality staircase")
    latency_view: list[str] = Field(description="entry keys on the latency/quality staircase")
    cost_not_measured: list[str]
    warnings: list[str]


class SuiteInfo(Strict):
    """The suite a board page shows, and its methodology note (from the suite's suite.json,
    Markdown; None when the build was not given the suite's task set)."""

    name: str
    versions: list[str | None] = Field(description="every version of the suite on the page")
    title: str
    source: str | None = None
    licence: str | None = None
    methodology: str | None = None


class SuitePage(Strict):
    """One entry of the suite switcher: a suite and the page that shows it."""

    name: str
    title: str
    page: str = Field(description="the page's file name: index.html or suite-<name>.html")
    rows: int


class Board(Strict):
    format_version: Literal[1] = BOARD_FORMAT_VERSION
    inputs_hash: str
    seed: int
    resamples: int
    frontier_resamples: int
    level: float = 0.95
    suite: SuiteInfo | None = Field(
        None,
        exclude_if=lambda value: value is None,
        description="the one suite this page shows; absent when the board holds only "
        "bench-suite's runs (the page then is as it was before suites were named)",
    )
    suites: list[SuitePage] = Field(
        default_factory=list,
        exclude_if=lambda value: not value,
        description="every suite on the board, one page each (the switcher); absent: one suite",
    )
    cohorts: list[CohortRows]
    warnings: list[str]


__all__ = [
    "BOARD_FORMAT_VERSION",
    "Board",
    "CategoryScore",
    "CohortRows",
    "EntrantInfo",
    "EntryRow",
    "Estimate",
    "FailedTask",
    "LanguageScore",
    "NotScoredTask",
    "SuiteInfo",
    "SuitePage",
]
