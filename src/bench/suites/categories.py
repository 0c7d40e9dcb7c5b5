"""A BFCL run's tasks by BFCL category (``bench suite scores``).

Every imported task is one family (``tool-trajectory``), so a run's family means say nothing
per category, and BFCL is read category by category. The category is in each task's
``bfcl:category=`` tag, and also in its id, which maps back to BFCL's reversibly
(:func:`bench.suites.bfcl.bfcl_id`: ``live-simple-0--0--0`` is ``live_simple_0-0-0``): a run's
records carry ids, not tags, and the task set they were run on need not be at hand.

The board shows these categories as columns of a BFCL page (``bench.board.categories``), with
the same figures ``bench suite scores`` prints: :func:`suite_categories` says which suite has
categories, and which.
"""

from __future__ import annotations

from collections.abc import Iterable

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


__all__ = ["by_category", "category_of", "suite_categories"]
