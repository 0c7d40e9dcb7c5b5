"""The board's "rank by" view: tie-aware ranks per family and per suite category, at build time.

The headline's ranks say nothing about one category: a row can lead BFCL overall and trail on
``live_relevance``. For each cohort, each family of the task set (when it has more than one)
and each category of an imported suite (BFCL's) gets every ranked row's rank on that stratum
alone (:func:`bench.stats.standings.stratum_ranks`), by the headline's rule on the stratum's
tasks every ranked row scored:

* a family's resamples are its columns of the cohort's shared ``W`` (the one its family
  intervals and the headline's ranks rest on: same seed, same tasks);
* a category is not a stratum of that ``W`` (BFCL is one family), so its tasks are resampled
  as one stratum of their own, ``resample_matrix([category] * n, B, seed)``, with the cohort's
  seed and ``B``: the figures the category cells show (each run's own, ``categories.py``) are
  drawn the same way;
* below 30 tasks the exact sign-flip test decides, as for the headline.

Rows keep the figures their cells show; only the ranks are new. Not in ``board.json`` (whose
rows are unchanged): the page carries them in its data block beside the rows
(``page.page_context``; docs/METHODOLOGY.md, "Ranks by family or category").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .entries import EntryInput
from .model import Board, CohortRows
from .pairs import _ranked_inputs


def _test(n: int, B: int, alpha: float) -> str:
    from bench.stats.paired import SMALL_N
    from bench.stats.ranks import min_resamples

    if n < SMALL_N:
        return "sign-flip"
    return "none" if min_resamples(alpha / 2.0) > B else "bootstrap"


def cohort_standings(
    cohort: CohortRows, ranked: Sequence[EntryInput], *, B: int, seed: int, level: float
) -> dict[str, Any] | None:
    """The page's per-stratum ranks of one cohort: ``ranked`` in the cohort's listing order.

    ``{"keys": [...], "resamples": B, "by": [{"kind": "family" | "category", "name": ...,
    "tasks": n, "test": "bootstrap" | "sign-flip" | "none", "lo": [...], "hi": [...]}, ...]}``,
    ``lo[k]``-``hi[k]`` the rank range of ``keys[k]``. None for fewer than two ranked rows or
    no stratum to rank by (one family and no category)."""
    if len(ranked) < 2:
        return None
    tasks = sorted(set.intersection(*(set(e.values) for e in ranked)))
    if not tasks:
        return None
    import numpy as np

    from bench.stats import family_columns, resample_matrix
    from bench.stats.standings import stratum_ranks

    alpha = 1.0 - level
    X = np.array([[e.values[t] for t in tasks] for e in ranked], dtype=np.float64)
    views: list[dict[str, Any]] = []

    def add(kind: str, name: str, x: Any, w: Any) -> None:
        ranks = stratum_ranks(x, w, alpha)
        views.append(
            {
                "kind": kind,
                "name": name,
                "tasks": int(x.shape[1]),
                "test": _test(int(x.shape[1]), B, alpha),
                "lo": list(ranks.rank_lo),
                "hi": list(ranks.rank_hi),
            }
        )

    fams = [ranked[0].families[t] for t in tasks]
    columns = family_columns(fams)
    if len(columns) > 1:
        W = resample_matrix(fams, B, seed)  # cohort.py's W: the same labels, B and seed
        for family, cols in columns.items():
            add("family", family, X[:, cols], W[:, cols])
        del W
    if cohort.categories:
        from bench.suites.categories import category_of

        where: dict[str, list[int]] = {}
        for k, t in enumerate(tasks):
            name = category_of(t)
            if name is not None:
                where.setdefault(name, []).append(k)
        for name in cohort.categories:
            cols_of = where.get(name)
            if not cols_of:  # no task of it every ranked row scored: no rank
                continue
            add("category", name, X[:, cols_of], resample_matrix([name] * len(cols_of), B, seed))
    if not views:
        return None
    return {"keys": [e.key for e in ranked], "resamples": B, "by": views}


def board_standings(board: Board, entries: Sequence[EntryInput]) -> list[dict[str, Any] | None]:
    """Per cohort of ``board`` (in its order), :func:`cohort_standings` of its ranked rows;
    ``entries``: what ``build_rows`` was given. A cohort whose ranked rows are not all among
    ``entries`` gets None: no view, never ranks on other numbers than the rows'."""
    out: list[dict[str, Any] | None] = []
    for cohort in board.cohorts:
        ranked = _ranked_inputs(cohort, entries)
        if len(ranked) != sum(1 for r in cohort.entries if r.ranked):
            out.append(None)
            continue
        out.append(
            cohort_standings(cohort, ranked, B=board.resamples, seed=board.seed, level=board.level)
        )
    return out


__all__ = ["board_standings", "cohort_standings"]
