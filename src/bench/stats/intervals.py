"""Analytic intervals and standard errors: Wilson for binary counts, naive and cluster-robust SEs.

``clustered_se`` is the standard error of a plain mean when observations come in clusters (for
example the repeats of one task): Miller 2024, "Adding Error Bars to Evals" (arXiv:2411.00640).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Hashable, Sequence
from statistics import NormalDist
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # numpy is imported by the functions that need it: wilson needs none
    import numpy as np
    import numpy.typing as npt


def _z(level: float) -> float:
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be in (0, 1), got {level}")
    return NormalDist().inv_cdf(1.0 - (1.0 - level) / 2.0)


def wilson(successes: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for ``successes`` out of ``n`` binary trials.

    The bounds are exactly 0 when there is no success and exactly 1 when every trial succeeds.
    """
    successes, n = operator.index(successes), operator.index(n)
    if n < 1:
        raise ValueError(f"Wilson interval needs at least one trial, got n={n}")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be between 0 and n={n}, got {successes}")
    z = _z(level)
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return lo, hi


def _finite(values: Sequence[float], what: str) -> npt.NDArray[np.float64]:
    import numpy as np

    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{what} must be finite numbers")
    return x


def naive_se(values: Sequence[float]) -> float:
    """Standard error of the mean treating every value as independent: ``s / sqrt(n)``, ddof 1."""
    import numpy as np

    x = _finite(values, "values")
    if x.size < 2:
        raise ValueError(f"a standard error needs at least 2 values, got {x.size}")
    return float(np.std(x, ddof=1) / math.sqrt(x.size))


def clustered_se(
    values: Sequence[float],
    clusters: Sequence[Hashable],
    kind: Literal["CR0", "CR1"] = "CR1",
) -> float:
    """Cluster-robust standard error of the plain mean of ``values``.

    ``CR0`` is ``sqrt(sum_g (sum_{i in g} e_i)^2) / N`` with residuals ``e = x - mean``; ``CR1``
    multiplies the variance by ``G/(G-1) * (N-1)/(N-K)`` with ``K = 1`` (that is, ``G/(G-1)``),
    as Stata does. With one value per cluster, CR1 equals :func:`naive_se`; with identical
    copies inside each cluster it equals the naive SE of the cluster values (repeat invariance).
    """
    import numpy as np

    x = _finite(values, "values")
    if len(clusters) != x.size:
        raise ValueError(f"got {x.size} values but {len(clusters)} cluster labels")
    if x.size == 0:
        raise ValueError("a standard error needs at least one value")
    if kind not in ("CR0", "CR1"):
        raise ValueError(f"kind must be 'CR0' or 'CR1', got {kind!r}")
    codes: dict[Hashable, int] = {}
    index = np.fromiter((codes.setdefault(c, len(codes)) for c in clusters), dtype=np.intp)
    n_clusters = len(codes)
    residual_sums = np.bincount(index, weights=x - x.mean(), minlength=n_clusters)
    variance = float(np.sum(residual_sums**2)) / (x.size * x.size)
    if kind == "CR1":
        if n_clusters < 2:
            raise ValueError("CR1 needs at least 2 clusters")
        variance *= n_clusters / (n_clusters - 1)
    return math.sqrt(variance)


__all__ = ["clustered_se", "naive_se", "wilson"]
