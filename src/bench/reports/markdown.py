"""A run as Markdown: safety first, the headline with its interval, family and axis tables with
the errored and completion columns, then every failed task with its sentences and full traces.

Text written by contributors or agents is escaped (:func:`escape`); traces go in code fences
longer than any run of backticks inside them (:func:`fence`), so no trace can close its fence.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator

from bench.core.clock import iso_z
from bench.records.run import AttemptRecord

from .summary import COUNTED, RunSummary, scope_lines
from .terminal import p95_text
from .tracetext import trace_text

_SIGNIFICANT = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~=])")


def escape(text: str) -> str:
    """One line of inert Markdown: significant characters backslash-escaped, ``&`` as an
    entity, line breaks folded to spaces (table cells and list items stay one line)."""
    flat = " ".join(text.split())
    return _SIGNIFICANT.sub(r"\\\1", flat.replace("&", "&amp;"))


def fence(text: str, info: str = "text") -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    marks = "`" * max(3, longest + 1)
    return f"{marks}{info}\n{text}\n{marks}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out.extend("| " + " | ".join(row) + " |" for row in rows)
    return out


def _headline(summary: RunSummary) -> str:
    head = summary.headline
    if head is None:
        return "**Score:** not scorable (no task could be scored)"
    s = head.score
    return (
        f"**Score:** {s.value:.3f} [{s.interval.lo:.3f}, {s.interval.hi:.3f}] "
        f"({s.interval.level:.0%} interval; {escape(s.interval.method)}) over {s.n} task(s), "
        f"mean of {len(head.family_means)} family mean(s); pooled {head.pooled:.3f}"
    )


def _family_rows(summary: RunSummary) -> list[list[str]]:
    by_family: dict[str, Counter[str]] = {}
    for record in summary.records:
        counter = by_family.setdefault(record.family, Counter())
        counter[record.outcome] += 1
    planned: Counter[str] = Counter()
    fam_of = {s.task_id: s.family for s in summary.task_scores}
    for record in summary.records:
        planned[record.family] += 1
    for key in summary.status.skipped:
        if key.task_id in fam_of:
            planned[fam_of[key.task_id]] += 1
    means = summary.headline.family_means if summary.headline else {}
    rows = []
    for family in sorted(set(by_family) | set(means)):
        scores = [s for s in summary.task_scores if s.family == family]
        counts = by_family.get(family, Counter())
        done = sum(counts[o] for o in COUNTED)
        total = planned[family] or 1
        mean = means.get(family)
        rows.append(
            [
                escape(family),
                str(len(scores)),
                "n/a" if mean is None else f"{mean:.3f}",
                f"{sum(1 for s in scores if s.value is not None and s.passed)}/{len(scores)}",
                str(counts["errored"] + counts["over_budget"]),
                f"{done}/{planned[family]} ({done / total:.0%})",
            ]
        )
    return rows


def render_markdown(summary: RunSummary) -> str:
    return "".join(markdown_pieces(summary))


def markdown_pieces(
    summary: RunSummary, records_of: Callable[[str], Iterable[AttemptRecord]] | None = None
) -> Iterator[str]:
    """``render_markdown``'s text in pieces, as it is made. ``records_of``: a failed task's
    records, transcripts and all (by default its records in ``summary``); ``bench run`` reads
    them from the run's files one task at a time, so a report of many failed transcripts is
    never whole in memory."""
    return _trimmed(_markdown_parts(summary, records_of))


def _trimmed(parts: Iterator[list[str]]) -> Iterator[str]:
    """``"\n".join(lines).rstrip("\n") + "\n"`` of every line of ``parts``, in pieces: the
    newlines at the end of what was given so far are held back until more text follows."""
    held = 0
    first = True
    for lines in parts:
        for line in lines:
            held += 0 if first else 1
            first = False
            text = line.rstrip("\n")
            if text:
                yield "\n" * held + text
                held = len(line) - len(text)
            else:
                held += len(line)
    yield "\n"


def _markdown_parts(
    summary: RunSummary, records_of: Callable[[str], Iterable[AttemptRecord]] | None
) -> Iterator[list[str]]:
    config, status = summary.config, summary.status
    out = [f"# {escape(config.display_name)}: run {escape(config.run_id)}", ""]
    if summary.safety:
        out += [f"## Safety violations ({len(summary.safety)})", ""]
        out += [f"- **{escape(t)}** repeat {r}: {escape(text)}" for t, r, text in summary.safety]
        out.append("")
    model = config.target.get("model")
    out += [
        f"- entrant: {escape(config.entrant)} (model {escape(str(model))})",
        f"- status: {status.status}; started {iso_z(status.started_at)}; "
        f"{config.repeats} repeat(s)",
        f"- task set: {escape(config.task_set.path)} (suite "
        f"{escape(config.task_set.suite_label())}, {config.task_set.split or 'all splits'}, "
        f"{len(config.task_set.task_ids)} tasks, hash `{config.task_set.content_hash[:12]}`)",
        *(f"- **{escape(line)}**" for line in scope_lines(config)),
        f"- config fingerprint `{config.fingerprint()}`; cohort `{config.cohort_key()}`",
        f"- cost {escape(summary.cost_note)}; tokens {escape(summary.tokens_note)}; "
        f"p95 latency {escape(p95_text(summary))}",
        "",
        _headline(summary),
        "",
    ]
    if status.partial_reason:
        out += [f"> **Partial run:** {escape(status.partial_reason)}", ""]
    if summary.harness_faults:
        out += [f"> **Harness faults:** {summary.harness_faults} attempt(s); not publishable", ""]
    out += ["## Families", ""]
    out += _table(
        ["family", "tasks", "mean", "passed", "errored", "completion"], _family_rows(summary)
    )
    if summary.axes.score is not None:
        axes = summary.axes
        out += ["", f"## Axes (view {axes.score:.3f})", ""]
        rows = [
            [a, str(axes.counts[a]), f"{v:.3f}", f"{axes.weights[a]:.2f}"]
            for a, v in axes.axes.items()
        ]
        out += _table(["axis", "tasks", "mean", "weight"], rows)
    out += ["", f"## Failed tasks ({len(summary.failures)})", ""]
    if not summary.failures:
        out += ["No failed tasks.", ""]
    for failure in summary.failures:
        value = "n/a" if failure.value is None else f"{failure.value:.3f}"
        out += [f"### {escape(failure.task_id)} ({escape(failure.family)}), score {value}", ""]
        out += [f"- {escape(line)}" for line in failure.lines]
        out.append("")
        records = (
            (r for r in summary.records if r.task_id == failure.task_id)
            if records_of is None
            else records_of(failure.task_id)
        )
        for record in records:
            out += [fence(trace_text(record)), ""]
        yield out
        out = []
    if summary.not_scorable:
        out += [f"## Not scorable ({len(summary.not_scorable)})", ""]
        out += [f"- {escape(t)}: {escape(why)}" for t, why in summary.not_scorable]
        out.append("")
    if status.skipped:
        out += [f"## Skipped ({len(status.skipped)})", ""]
        out += [f"- {escape(k.task_id)} repeat {k.repeat}" for k in status.skipped]
        out.append("")
    yield out


__all__ = ["escape", "fence", "markdown_pieces", "render_markdown"]
