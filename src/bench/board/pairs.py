"""The board's "is A better than B?" view: paired differences of ranked rows, at build time.

For each cohort, some pairs of its ranked rows (:func:`chosen_pairs`) get the difference of
their headlines over the tasks every ranked row scored, its percentile interval from the
cohort's shared resamples (the same seeded ``W`` the ranks rest on), and the rank's own
decision for that pair (``bench.stats.ranks.beats_matrix``: the paired bootstrap, or the
sign-flip test below 30 shared tasks). Nothing here is new statistics: a pair's verdict is
the one its rows' ranks already count, and its interval is ``bench compare``'s.

Not in ``board.json`` (whose rows are unchanged): the page carries them in a JSON block of
their own, compact (docs/METHODOLOGY.md, "Comparing two rows on the board").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations
from typing import Any

from .entries import EntryInput
from .model import Board, CohortRows

TOP = 30
"""Every pair among a cohort's first ``TOP`` ranked rows (the rows it shows before "show
all"); past them, each row against its neighbours in the listing and against the first row."""


def chosen_pairs(n: int, top: int = TOP) -> list[tuple[int, int]]:
    """The pairs ``(i, j)``, ``i < j``, of ``n`` ranked rows in listing order the page carries:
    all among the first ``top``; then each later row with the one listed before it and with
    the first. For 100 rows 435 + 2 × 70 = 575 of the 4,950 pairs; for 1,000, 2,375."""
    pairs = set(combinations(range(min(n, top)), 2))
    for j in range(max(top, 1), n):
        pairs.add((j - 1, j))
        pairs.add((0, j))
    return sorted(pairs)


def _tasks(ranked: Sequence[EntryInput]) -> list[str]:
    """The tasks every ranked row scored, sorted: the cohort's shared set (``rows._cohort``)."""
    return sorted(set.intersection(*(set(e.values) for e in ranked)))


CHUNK = 128
"""Pairs whose resampled differences are held at once (B x CHUNK floats: 10 MB at B 10,000)."""


def cohort_pairs(
    ranked: Sequence[EntryInput], *, B: int, seed: int, level: float, top: int = TOP
) -> dict[str, Any] | None:
    """The page's comparisons of one cohort: ``ranked`` in the cohort's listing order.

    ``{"keys": [...], "tasks": n, "resamples": B, "test": "bootstrap" | "sign-flip" | "none",
    "pairs": [[i, j, difference, lo, hi, verdict], ...]}``: ``difference`` is row i's headline
    minus row j's over the shared tasks; verdict 1: i is ahead, -1: j is ahead, 0: a tie. None
    for fewer than two rows or no shared task (nothing to compare)."""
    import numpy as np

    from bench.stats import resample_matrix, task_weights
    from bench.stats.paired import SMALL_N
    from bench.stats.ranks import beats_matrix, min_resamples

    if len(ranked) < 2:
        return None
    tasks = _tasks(ranked)
    if not tasks:
        return None
    # M as cohort.py makes it, its columns in the same order (the rows sorted by key), so each
    # column is the ranks' own to the last bit; ``col`` finds a listed row's column
    by_key = sorted(range(len(ranked)), key=lambda k: ranked[k].key)
    col = {k: c for c, k in enumerate(by_key)}
    fams = [ranked[0].families[t] for t in tasks]
    X = np.array([[ranked[k].values[t] for t in tasks] for k in by_key], dtype=np.float64)
    W = resample_matrix(fams, B, seed)
    w = task_weights(fams)
    M = (W * w) @ X.T
    del W
    alpha = 1.0 - level
    a = alpha / 2.0
    pairs = chosen_pairs(len(ranked), top)
    first = [col[i] for i, j in pairs]
    second = [col[j] for i, j in pairs]
    if len(tasks) < SMALL_N:
        test = "sign-flip"
    elif min_resamples(a) > B:
        test = "none"
    else:
        test = "bootstrap"
    verdicts = np.zeros(len(pairs), dtype=np.int8)
    if test == "sign-flip":
        # the ranks' own test (beats_matrix on the pair's two columns: its decision rests on
        # them alone), for the first rows at once, then the rest two at a time
        head = sorted({c for i, j in pairs if j < top for c in (col[i], col[j])})
        where = {c: k for k, c in enumerate(head)}
        b = beats_matrix(M[:, head], alpha, X=X[head], weights=w.tolist())
        for k, (ci, cj) in enumerate(zip(first, second, strict=True)):
            if ci in where and cj in where:
                ahead, behind = b[where[ci], where[cj]], b[where[cj], where[ci]]
            else:
                two = beats_matrix(M[:, [ci, cj]], alpha, X=X[[ci, cj]], weights=w.tolist())
                ahead, behind = two[0, 1], two[1, 0]
            verdicts[k] = 1 if ahead else -1 if behind else 0
    bounds = np.empty((2, len(pairs)))
    for s in range(0, len(pairs), CHUNK):
        # M[b, i] - M[b, j] > 0 exactly when M[b, i] > M[b, j] (finite values): the count
        # beats_matrix compares with (1 - alpha / 2) B
        D = M[:, first[s : s + CHUNK]] - M[:, second[s : s + CHUNK]]
        bounds[:, s : s + CHUNK] = np.quantile(D, [a, 1.0 - a], axis=0)
        if test == "bootstrap":
            need = (1.0 - a) * B
            ahead = np.count_nonzero(D > 0.0, axis=0) > need
            behind = np.count_nonzero(D < 0.0, axis=0) > need
            verdicts[s : s + CHUNK] = np.where(ahead, 1, np.where(behind, -1, 0))
    out = []
    for k, (i, j) in enumerate(pairs):
        value = math.fsum((w * (X[col[i]] - X[col[j]])).tolist())
        lo, hi = min(float(bounds[0, k]), value), max(float(bounds[1, k]), value)
        out.append([i, j, value, lo, hi, int(verdicts[k])])
    return {
        "keys": [e.key for e in ranked],
        "tasks": len(tasks),
        "resamples": B,
        "test": test,
        "pairs": out,
    }


def _ranked_inputs(cohort: CohortRows, entries: Sequence[EntryInput]) -> list[EntryInput]:
    """The cohort's ranked rows as the statistics saw them, in the page's listing order."""
    by_row = {(e.cohort_key, e.key, e.run_id): e for e in entries}
    return [
        by_row[cohort.cohort_key, r.key, r.run_id]
        for r in cohort.entries
        if r.ranked and (cohort.cohort_key, r.key, r.run_id) in by_row
    ]


def board_pairs(
    board: Board, entries: Sequence[EntryInput], top: int = TOP
) -> list[dict[str, Any] | None]:
    """Per cohort of ``board`` (in its order), :func:`cohort_pairs` of its ranked rows;
    ``entries``: what ``build_rows`` was given (the rows name their runs by key and run id).
    A cohort whose ranked rows are not all among ``entries`` gets None: no view, never a
    comparison on other numbers than the ranks'."""
    out: list[dict[str, Any] | None] = []
    for cohort in board.cohorts:
        ranked = _ranked_inputs(cohort, entries)
        if len(ranked) != sum(1 for r in cohort.entries if r.ranked):
            out.append(None)
            continue
        out.append(
            cohort_pairs(ranked, B=board.resamples, seed=board.seed, level=board.level, top=top)
        )
    return out


__all__ = ["TOP", "board_pairs", "chosen_pairs", "cohort_pairs"]
