"""A BFCL run's tasks by BFCL category (``bench suite scores``).

Every imported task is one family (``tool-trajectory``), so a run's family means say nothing
per category, and BFCL is read category by category. The category is in each task's
``bfcl:category=`` tag, and also in its id, which maps back to BFCL's reversibly
(:func:`bench.suites.bfcl.bfcl_id`: ``live-simple-0--0--0`` is ``live_simple_0-0-0``): a run's
records carry ids, not tags, and the task set they were run on need not be at hand.

The board shows these categories as columns of a BFCL page (``bench.board.categories``), with
the same figures ``bench suite scores`` prints: :func:`suite_categories` says which suite has
categories, and which. :func:`tally` gives the command each category's counts as every surface
publishes them (docs/SCORING.md): errored attempts as their own count beside the passes (they
are failures in the mean), and every task left out of the mean named with the reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bench.core.score import TaskScore

from .bfcl import CATEGORIES, bfcl_id
from .bfcl_suite import SUITE_NAME


def category_of(task_id: str) -> str | None:
    """The BFCL category of a task ``bench suite import bfcl`` wrote, from its id alone
    (``parallel-multiple-7`` → ``parallel_multiple``); ``None`` for any other id."""
    name, _, index = bfcl_id(task_id).rpartition("_")
    if name in CATEGORIES and index[:1].isdigit():
        return name
    return None


def suite_categories(suite: str) -> tuple[str, ...]:
    """The categories of ``suite`` in the importer's order, as BFCL spells them (``simple_python``
    ... ``live_relevance``); empty for a suite without categories (bench-suite's own)."""
    return tuple(CATEGORIES) if suite == SUITE_NAME else ()


def by_category(task_ids: Iterable[str]) -> tuple[dict[str, list[str]], list[str]]:
    """``task_ids`` grouped by category, in the importer's category order, and the ids that
    are no BFCL task's (in their given order)."""
    groups: dict[str, list[str]] = {}
    other: list[str] = []
    for task in task_ids:
        category = category_of(task)
        if category is None:
            other.append(task)
        else:
            groups.setdefault(category, []).append(task)
    order = list(CATEGORIES)
    return {name: groups[name] for name in sorted(groups, key=order.index)}, other


@dataclass(frozen=True)
class CategoryTally:
    """One category of a run: what ``bench suite scores`` prints for it, before the interval."""

    category: str
    tasks: int
    """Tasks of the category the run has attempts of (scored or not)."""
    values: tuple[float, ...]
    """The scored tasks' values (repeats averaged; errors count 0), in the run's task order."""
    passed: int
    errored: int
    """Errored attempts: failures in the mean, published as their own count."""
    errored_tasks: int
    """Tasks with at least one errored attempt."""
    not_scored: tuple[tuple[str, str], ...]
    """(task id, why) for every task left out of the mean: no check decided, or no attempt
    counted (a harness fault)."""


def tally(
    task_scores: Iterable[TaskScore], not_scorable: Iterable[tuple[str, str]] = ()
) -> tuple[list[CategoryTally], list[str]]:
    """A run's task scores per category (in the importer's order) and the ids of no BFCL
    category. ``not_scorable``: the run's (task id, why) pairs (``RunSummary.not_scorable``);
    a task without a value and without a reason there is said to have no counted attempt."""
    scores = {score.task_id: score for score in task_scores}
    why = dict(not_scorable)
    groups, other = by_category(scores)
    out = []
    for category, ids in groups.items():
        mine = [scores[task] for task in ids]
        out.append(
            CategoryTally(
                category=category,
                tasks=len(mine),
                values=tuple(s.value for s in mine if s.value is not None),
                passed=sum(1 for s in mine if s.value is not None and s.passed),
                errored=sum(s.outcomes.get("errored", 0) for s in mine),
                errored_tasks=sum(1 for s in mine if s.outcomes.get("errored")),
                not_scored=tuple(
                    (s.task_id, why.get(s.task_id, "no attempt could be scored"))
                    for s in mine
                    if s.value is None
                ),
            )
        )
    return out, other


__all__ = ["CategoryTally", "by_category", "category_of", "suite_categories", "tally"]
