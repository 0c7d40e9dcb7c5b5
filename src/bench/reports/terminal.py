"""Plain-text renderings for the terminal: ``bench show`` and ``bench compare``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bench.core.clock import iso_z
from bench.records.run import AttemptRecord

if TYPE_CHECKING:
    from .compare import Comparison
from .order import shown
from .summary import COUNTED, RunSummary, scope_lines
from .tracetext import attempt_lines

WIDTH = 100


P95_FEW = 20  # below this many timed attempts the p95 is the maximum
SAFETY_SHOWN = 10  # safety violations listed before the score; the rest are counted


def _clip(text: str, width: int = WIDTH) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def score_line(summary: RunSummary) -> str:
    head = summary.headline
    if head is None:
        return "score: not scorable (no task could be scored)"
    score = head.score
    families = len(head.family_means)
    return (
        f"score {shown(score.value)} [{shown(score.interval.lo)}, {shown(score.interval.hi)}] "
        f"({score.interval.level:.0%} interval) over {score.n} task(s): mean of {families} "
        f"family mean(s); pooled {head.pooled:.3f}"
    )


def p95_text(summary: RunSummary) -> str:
    """The run's p95 latency as every report says it: ``1.234s``, with ``(the slowest of N
    attempt(s): fewer than 20)`` below 20 timed attempts, or ``not measured`` when no attempt
    counts in the score (none ran, or all were not scorable, harness faults or skipped), with
    the why when attempts ran, as the cost says it."""
    if summary.p95_latency_s is None:
        ran = " (no attempt counts in the score)" if summary.records else ""
        return f"not measured{ran}"
    p95 = f"{summary.p95_latency_s:.3f}s"
    timed = sum(1 for r in summary.records if r.outcome in COUNTED)
    if timed < P95_FEW:
        # Below 20 attempts the inverted-CDF p95 is the slowest attempt: say so.
        p95 += f" (the slowest of {timed} attempt(s): fewer than {P95_FEW})"
    return p95


def render_summary(summary: RunSummary) -> list[str]:
    config, status = summary.config, summary.status
    model = config.target.get("model")
    lines = [f"{config.run_id}   {config.display_name}   ({config.entrant}, model {model})"]
    # An unfinished run's wall time is what its status last said (every status write says it);
    # a run killed before its first status write never said any.
    measured = status.elapsed_s > 0 or status.status != "started"
    wall = f"{status.elapsed_s:.3f}s" if measured else "not measured"
    lines.append(
        f"  status {status.status}   started {iso_z(status.started_at)}   "
        f"wall {wall}   {config.repeats} repeat(s)   "
        f"concurrency {config.concurrency}"
    )
    split = config.task_set.split or "all splits"
    lines.append(
        f"  task set {config.task_set.path} (suite {config.task_set.suite_label()}, {split}, "
        f"{len(config.task_set.task_ids)} tasks, "
        f"hash {config.task_set.content_hash[:12]})   config fingerprint {config.fingerprint()}"
    )
    lines.extend(f"  {line}" for line in scope_lines(config))
    if status.partial_reason:
        lines.append(f"  PARTIAL: {status.partial_reason}")
    if summary.harness_faults:
        lines.append(
            f"  HARNESS FAULTS: {summary.harness_faults} attempt(s) failed on our side; "
            "this run is not publishable until re-run"
        )
    if summary.safety:
        lines.append(f"  SAFETY VIOLATIONS ({len(summary.safety)}):")
        # First, before the score, but not so many that the score scrolls away: the Markdown
        # report and JSON list every one.
        lines.extend(
            f"    {task_id}#{repeat}: {_clip(text)}"
            for task_id, repeat, text in summary.safety[:SAFETY_SHOWN]
        )
        if len(summary.safety) > SAFETY_SHOWN:
            more = len(summary.safety) - SAFETY_SHOWN
            lines.append(
                f"    … and {more} more: every one is in the run's report "
                f"(bench report {config.run_id} --format markdown)"
            )
    o = summary.outcomes
    lines.append(
        f"  attempts {status.attempts_total}: {o.get('scored', 0)} scored · "
        f"{o.get('errored', 0)} errored · {o.get('over_budget', 0)} over budget · "
        f"{o.get('not_scorable', 0)} not scorable · {len(status.skipped)} skipped · "
        f"{o.get('harness_fault', 0)} harness fault"
    )
    lines.append("  " + score_line(summary))
    errored_tasks = sum(1 for s in summary.task_scores if s.outcomes.get("errored"))
    p95 = p95_text(summary)
    lines.append(
        f"  passed {summary.passed_tasks}/{summary.scored_tasks} task(s)   errored "
        f"{errored_tasks} task(s)   cost {summary.cost_note}   tokens {summary.tokens_note}   "
        f"p95 latency {p95}"
    )
    if summary.cost_usd is None and config.target.get("pricing") is None and summary.scored_tasks:
        # Without rates there is no cost to measure, whatever the endpoint reports: say the fix.
        lines.append(
            "  cost is not measured: the target file sets no `pricing:` "
            "(dollars per million tokens, docs/TARGETS.md)"
        )
    if summary.headline is not None:
        head = summary.headline
        parts = [
            f"{name} {mean:.3f} ({head.family_sizes[name]})"
            for name, mean in sorted(head.family_means.items())
        ]
        lines.append("  family means: " + " · ".join(parts))
    calls = summary.endpoint_warnings.get("calls", 0)
    for warning, count in sorted(summary.endpoint_warnings.items()):
        if warning == "calls":
            continue
        said = ENDPOINT_WARNINGS.get(warning, warning)
        lines.append(f"  endpoint warning: {said} in {count} of {calls} model call(s)")
    if len(summary.languages) > 1:
        parts = [f"{lang} {mean:.3f} ({n})" for lang, (mean, n) in summary.languages.items()]
        lines.append("  languages (plain means): " + " · ".join(parts))
    axes = summary.axes
    if axes.score is not None:
        parts = [f"{axis} {value:.3f} ({axes.counts[axis]})" for axis, value in axes.axes.items()]
        lines.append(f"  axis view {axes.score:.3f}: " + " · ".join(parts))
    if summary.headline is not None:  # with or without an axis view (the notes were inside it)
        lines.extend(f"  note: {warning}" for warning in summary.headline.warnings)
    return lines


ENDPOINT_WARNINGS = {
    "tool_choice_not_enforced": "tool_choice=required was not enforced (the model answered "
    "without a tool call)",
    "stream_not_served": "a streamed call came back empty (no event, or neither content nor "
    "tool calls), so it was asked again without streaming",
    "stream_options_refused": "the server refused stream_options, so the call was sent again "
    "without them (and so was every later call of the run)",
}


def render_show(summary: RunSummary) -> str:
    lines = render_summary(summary)
    if summary.failures:
        lines.append("")
        lines.append(f"failed tasks ({len(summary.failures)}):")
        for failure in summary.failures:
            value = "n/a" if failure.value is None else f"{failure.value:.3f}"
            lines.append(f"  {failure.task_id}  {failure.family}  score {value}")
            lines.extend(f"    - {_clip(line, WIDTH + 20)}" for line in failure.lines)
    if summary.not_scorable:
        lines.append("")
        lines.append(f"not scorable, left out of the score ({len(summary.not_scorable)}):")
        lines.extend(f"  {tid}  {_clip(why)}" for tid, why in summary.not_scorable)
    if summary.status.skipped:
        lines.append("")
        skipped = ", ".join(f"{k.task_id}#{k.repeat}" for k in summary.status.skipped)
        lines.append(f"skipped, left out of the score ({len(summary.status.skipped)}): {skipped}")
    if not summary.failures and not summary.not_scorable:
        lines.append("")
        lines.append("no failed tasks")
    return "\n".join(lines) + "\n"


def render_attempt(record: AttemptRecord) -> list[str]:
    return attempt_lines(record, width=160, indent="  ")


def render_task(summary: RunSummary, task_id: str) -> str | None:
    records = [r for r in summary.records if r.task_id == task_id]
    if not records:
        return None
    lines: list[str] = []
    for record in records:
        lines.extend(render_attempt(record))
        lines.append("")
    return "\n".join(lines)


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def render_compare(comparison: Comparison) -> str:
    """Two runs side by side, the paired difference, its decision and the flipped tasks."""
    c = comparison
    rows = [
        (
            side.display_name,
            _num(side.headline),
            "" if side.lo is None or side.hi is None else f"[{side.lo:.3f}, {side.hi:.3f}]",
            f"{side.passed}/{side.scored}",
            str(side.errored),
            side.cost,
            side.tokens,
            side.run_id,
        )
        for side in (c.first, c.second)
    ]
    header = ("entry", "score", "95% interval", "passed", "errored", "cost", "tokens", "run")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip()
        for row in [header, *rows]
    ]
    if c.difference is None or c.lo is None or c.hi is None:
        lines.append("no task was scored in both runs: nothing to compare")
    else:
        lines.append(
            f"difference (second − first): {c.difference:+.3f} [{c.lo:+.3f}, {c.hi:+.3f}] "
            f"({c.level:.0%} interval) on {c.shared_tasks} shared task(s)"
        )
        lines.append(f"  method: {c.method}")
        reason = c.decided_by or c.method
        if c.verdict == "not comparable":
            reason = f"different cohorts, whatever the test says; {reason}"
        lines.append(f"verdict: {c.verdict} ({reason})")
    if c.comparable:
        lines.append(f"comparable: yes (cohort {c.first.cohort_key})")
    else:
        lines.append(
            "NOT COMPARABLE: different task sets, splits, harness versions or repeats; "
            "a difference here is not a regression"
        )
    if c.differences:
        lines.append("config differences (first → second):")
        lines.extend(f"  {d.field}: {d.first} → {d.second}" for d in c.differences)
    for label, names in (("only in first", c.only_first), ("only in second", c.only_second)):
        if names:
            lines.append(f"{label} ({len(names)}): {', '.join(names)}")
    groups = (
        ("passed in first, failed in second", c.regressed),
        ("failed in first, passed in second", c.fixed),
        ("score changed, same pass/fail", c.changed),
    )
    for title, tasks in groups:
        if not tasks:
            continue
        lines.append("")
        lines.append(f"{title} ({len(tasks)}):")
        for task in tasks:
            lines.append(f"  {task.task_id}  {_num(task.before)} → {_num(task.after)}")
            lines.extend(f"    - {_clip(line, WIDTH + 20)}" for line in task.sentences)
    if not (c.regressed or c.fixed or c.changed):
        lines.append("")
        lines.append("no task changed")
    return "\n".join(lines) + "\n"


__all__ = [
    "p95_text",
    "render_attempt",
    "render_compare",
    "render_show",
    "render_summary",
    "render_task",
]
