"""One engine for every interval: a shared, seeded, family-stratified resample matrix.

Draw ``W`` (B x T resample counts) once; for each family ``f`` every row of its columns counts
``n_f`` uniform picks of its tasks (``multinomial(n_f, 1/n_f)``), so each resample keeps every
family's size. Weighting task ``t`` by
``1/(F * n_f(t))`` makes ``(W * w) @ X.T`` (B x E) the bootstrap distribution of every entrant's
stratified headline at once, and ``M[:, i] - M[:, j]`` the paired bootstrap of a difference.

The unit is the task: ``X`` holds one value per task (repeats already averaged).
The same ``(families, B, seed)`` always gives the same ``W``; callers that need ``W`` itself
(for a non-linear statistic) call :func:`resample_matrix` with the same seed.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .plainboot import plain_columns


def family_columns(families: Sequence[str]) -> dict[str, npt.NDArray[np.intp]]:
    """Column indices of each family, families in sorted order (the order draws are made in)."""
    return {f: np.asarray(cols, dtype=np.intp) for f, cols in plain_columns(families).items()}


def _check_b(B: int) -> int:
    B = operator.index(B)
    if B < 1:
        raise ValueError(f"the number of resamples B must be at least 1, got {B}")
    return B


def resample_matrix(families: Sequence[str], B: int, seed: int) -> npt.NDArray[np.float64]:
    """B x T resample counts; within each family each row is ``multinomial(n_f, 1/n_f)``.

    A row of family ``f`` counts ``n_f`` tasks picked uniformly with replacement: one call
    ``rng.integers(0, n_f, size=(B, n_f))`` per family, families in sorted name order, from
    ``numpy.random.default_rng(seed)``, so the matrix depends only on the family labels, ``B``
    and ``seed``. (Until 2026-12-06 each row was one ``rng.multinomial`` call: the same
    distribution, other draws. Picks can be replayed without numpy, ``draws.Draws``, so a
    run's summary needs no numpy; docs/DECISIONS.md 46.) The counts are held as float64
    (whole numbers, exact): every use multiplies them by floats, which would cast an integer
    matrix to this one first.
    """
    B = _check_b(B)
    columns = family_columns(families)
    rng = np.random.default_rng(operator.index(seed))
    W = np.zeros((B, len(families)), dtype=np.float64)
    for cols in columns.values():
        n_f = cols.size
        picks = rng.integers(0, n_f, size=(B, n_f))
        picks += (np.arange(B) * n_f)[:, np.newaxis]
        W[:, cols] = np.bincount(picks.ravel(), minlength=B * n_f).reshape(B, n_f)
    return W


def task_weights(families: Sequence[str]) -> npt.NDArray[np.float64]:
    """Weight of each task in the stratified headline: ``1 / (F * n_f(t))``; they sum to 1."""
    columns = family_columns(families)
    w = np.empty(len(families), dtype=np.float64)
    for cols in columns.values():
        w[cols] = 1.0 / (len(columns) * cols.size)
    return w


def headline_bootstrap(
    X: npt.ArrayLike, families: Sequence[str], B: int, seed: int
) -> npt.NDArray[np.float64]:
    """B x E bootstrap headlines ``(W * w) @ X.T`` for an E x T matrix of task values."""
    x = np.asarray(X, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"X must be entrants x tasks (2-D), got shape {x.shape}")
    if x.shape[1] != len(families):
        raise ValueError(f"X has {x.shape[1]} task columns but {len(families)} family labels")
    if not np.all(np.isfinite(x)):
        raise ValueError("X must hold finite task values (average repeats; no missing tasks)")
    W = resample_matrix(families, B, seed)
    result: npt.NDArray[np.float64] = (W * task_weights(families)) @ x.T
    return result


__all__ = ["family_columns", "headline_bootstrap", "resample_matrix", "task_weights"]
