"""Plain-text renderings of the history list and the local leaderboard. Cost and tokens are
the notes the terminal report prints (``not measured``, never a 0 that was not measured)."""

from __future__ import annotations

from collections.abc import Sequence

from bench.core.suite import DEFAULT_SUITE_NAME

from .board import Cohort, HistoryRow
from .order import shown


def _score(row: HistoryRow) -> str:
    if row.headline is None or row.headline_lo is None or row.headline_hi is None:
        return "n/a"
    return f"{shown(row.headline)} [{shown(row.headline_lo)}, {shown(row.headline_hi)}]"


def _grid(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return [
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip()
        for row in [header, *rows]
    ]


def _suite(label: str | None) -> str | None:
    """``suite bfcl-v4 2026.3.23`` for an imported suite; nothing for the project's own."""
    return None if label is None or label == DEFAULT_SUITE_NAME else f"suite {label}"


def render_history(rows: list[HistoryRow]) -> str:
    if not rows:
        return "no runs in the history\n"
    header = ("created", "run", "entrant", "model", "status", "score [95% interval]", "passed",
              "errored", "cost", "tokens", "fingerprint")  # fmt: skip
    body = [
        (
            r.created_at[:19] + "Z",
            r.run_id,
            r.entrant,
            r.model or "",
            ", ".join(
                x for x in (r.status, _suite(r.suite), r.subset, r.reference and "reference") if x
            ),
            _score(r),
            f"{r.tasks_passed}/{r.tasks_scored}",
            str(r.errored),
            r.cost_note,
            r.tokens_note,
            r.fingerprint,
        )
        for r in rows
    ]
    return "\n".join(_grid(header, body)) + "\n"


def render_leaderboard(cohorts: list[Cohort]) -> str:
    if not cohorts:
        # The rule takes complete runs with a headline: a complete run none of whose tasks
        # could be scored is in the history but not here (docs/REPORTS.md, "Leaderboard rule").
        return "no complete run with a score in the history\n"
    lines: list[str] = []
    for cohort in cohorts:
        entries = cohort.entries
        ranked = [e for e in entries if not e.reference]
        where = cohort.split or "all splits"
        if _suite(cohort.suite):
            where = f"{_suite(cohort.suite)}, {where}"
        if cohort.subset:
            where += f", {cohort.subset}"
        lines.append(
            f"cohort {cohort.cohort_key} ({where}, {cohort.repeats} repeat(s)): {len(ranked)} "
            f"entr{'y' if len(ranked) == 1 else 'ies'}, ranked on {entries[0].ranked_on} shared "
            "task(s)"
            + (
                f"; {len(entries) - len(ranked)} reference run(s), not ranked"
                if ranked != entries
                else ""
            )  # fmt: skip
        )
        lines.append(
            f"  ranks: {cohort.mode}; equal rank = indistinguishable; range = rank_lo-rank_hi; "
            "order: rank_lo, headline as shown, entrant, run id"
        )
        header = ("rank", "range", "entrant", "model", "score [95% interval]", "cost", "tokens",
                  "run", "fingerprint")  # fmt: skip
        body = [
            (
                "ref" if e.rank_lo is None else str(e.rank_lo),
                "reference" if e.rank_lo is None else f"{e.rank_lo}-{e.rank_hi}",
                e.run.entrant,
                e.run.model or "",
                _score(e.run),
                e.run.cost_note,
                e.run.tokens_note,
                e.run.run_id,
                e.run.fingerprint,
            )
            for e in entries
        ]
        lines.extend("  " + line for line in _grid(header, body))
        lines.append("")
    return "\n".join(lines)


__all__ = ["render_history", "render_leaderboard"]
