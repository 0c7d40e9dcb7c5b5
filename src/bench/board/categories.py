"""An imported suite's categories as columns of its page: BFCL's ``simple_python`` ...
``live_relevance`` beside the headline.

A BFCL run is one family (``tool-trajectory``), so its family means say nothing per category.
The category of a task comes from its id (``bench.suites.categories``, what ``bench suite
scores`` reads), and each row's category score is that command's figure for the run: the mean
over the category's scored tasks (repeats averaged first; errored and over-budget attempts
count as failures; a task no check decided, or with no counted attempt, leaves the
denominator), with the interval :func:`bench.stats.stratified_headline` gives those tasks as
one family, B = 2,000, the run's recorded seed. A category the run did not attempt (a subset
run) has no score and is shown "not run", never 0.

Rows of a cohort whose category has the same number of scored tasks and whose runs recorded the
same seed share one resample matrix and one matrix product
(:func:`bench.stats.headline.stratified_headlines`): for 100 entrants on the whole suite, thirteen
products rather than 1,300 bootstraps.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from bench.core.suite import DEFAULT_SUITE_NAME

from .entries import EntryInput
from .model import CategoryScore, Estimate


def category_scores(
    entries: Sequence[EntryInput], level: float = 0.95
) -> tuple[list[str], list[list[CategoryScore]]]:
    """The suite's categories (empty for a suite without any: bench-suite's own) and, for
    each entry in order, one :class:`CategoryScore` per category in that order."""
    if not entries:
        return [], []
    if entries[0].suite == DEFAULT_SUITE_NAME:  # no categories, and no importer code to load
        return [], [[] for _ in entries]
    from bench.suites.categories import category_of, suite_categories

    names = suite_categories(entries[0].suite)
    if not names:
        return [], [[] for _ in entries]
    from bench.stats.headline import stratified_headlines

    category: dict[str, str | None] = {}  # one lookup per task of the cohort, not per row
    # Rows of one cohort mostly scored the same tasks in the same order: where each category's
    # values sit in such a row is worked out once.
    layouts: dict[tuple[str, ...], dict[str, list[int]]] = {}
    attempted: list[Counter[str]] = []
    groups: dict[tuple[str, int, int], list[tuple[int, list[float]]]] = {}
    for i, e in enumerate(entries):
        order = tuple(e.values)  # the run's task order: the order the command reads them in
        layout = layouts.get(order)
        if layout is None:
            layout = {}
            for position, task in enumerate(order):
                if task not in category:
                    category[task] = category_of(task)
                if (name := category[task]) is not None:
                    layout.setdefault(name, []).append(position)
            layouts[order] = layout
        in_order = list(e.values.values())
        values = {name: [in_order[p] for p in where] for name, where in layout.items()}
        counted: Counter[str] = Counter({name: len(v) for name, v in values.items()})
        for left_out in e.not_scored:
            if left_out.task_id not in category:
                category[left_out.task_id] = category_of(left_out.task_id)
            if (name := category[left_out.task_id]) is not None:
                counted[name] += 1
        attempted.append(counted)
        for name, v in values.items():
            groups.setdefault((name, len(v), e.seed), []).append((i, v))
    scores: dict[tuple[int, str], tuple[int, Estimate]] = {}
    for (name, n, seed), members in sorted(groups.items(), key=lambda group: group[0]):
        heads = stratified_headlines(
            [v for _, v in members], [name] * n, seed=seed, level=level, label=name
        )
        for (i, _), head in zip(members, heads, strict=True):
            interval = head.score.interval
            scores[(i, name)] = (
                n,
                Estimate(
                    value=head.score.value, lo=interval.lo, hi=interval.hi, method=interval.method
                ),
            )
    rows = []
    for i in range(len(entries)):
        row = []
        for name in names:
            scored, estimate = scores.get((i, name), (0, None))
            row.append(
                CategoryScore(
                    category=name, tasks=attempted[i][name], scored=scored, score=estimate
                )
            )
        rows.append(row)
    return list(names), rows


__all__ = ["category_scores"]
