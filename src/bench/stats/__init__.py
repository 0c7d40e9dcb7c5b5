"""Statistics for the board: intervals, the shared stratified bootstrap, the stratified
headline, pass@k / pass^k, flakiness, Cohen's kappa, paired differences and tie-aware
ranks. Methods and their reasons: docs/METHODOLOGY.md (the board), docs/SCORING.md
(aggregation, pass@k) and docs/REPORTS.md (ranks, compare); known answers are in
``tests/stats/``.

Only this package imports numpy and scipy; nothing outside it may import them at module
import time (``bench --help`` must stay fast). The names below are imported from their modules
when first used (PEP 562): a run's summary needs the numpy-free ones (``axes``, ``passk``,
``headline`` for a run of ordinary size, ``intervals.wilson``) and must not load numpy through
this ``__init__``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bench.core.lazy import lazy_exports

if TYPE_CHECKING:
    from .axes import AXIS_WEIGHTS, AxisView, axis_view
    from .bootstrap import family_columns, headline_bootstrap, resample_matrix, task_weights
    from .headline import SMALL_FAMILY, HeadlineResult, small_family_note, stratified_headline
    from .intervals import clustered_se, naive_se, wilson
    from .kappa import KappaResult, cohen_kappa
    from .paired import SMALL_N, PairedDifference, paired_difference, sign_flip_pvalue
    from .pareto import (
        frontier_probability,
        non_dominated,
        staircase,
        upper_hull,
        weighted_quantile_rows,
    )
    from .passk import (
        expected_max_of_k,
        expected_min_of_k,
        pairwise_disagreement,
        pass_at_k,
        pass_hat_k,
    )
    from .ranks import TieRanks, beats_matrix, ranks_from_beats, tie_ranks
    from .studentized import pivot_cap, studentized_bounds

_WHERE = {
    "AXIS_WEIGHTS": "axes",
    "AxisView": "axes",
    "axis_view": "axes",
    "SMALL_FAMILY": "headline",
    "small_family_note": "headline",
    "SMALL_N": "paired",
    "PairedDifference": "paired",
    "TieRanks": "ranks",
    "beats_matrix": "ranks",
    "paired_difference": "paired",
    "ranks_from_beats": "ranks",
    "sign_flip_pvalue": "paired",
    "tie_ranks": "ranks",
    "HeadlineResult": "headline",
    "KappaResult": "kappa",
    "clustered_se": "intervals",
    "cohen_kappa": "kappa",
    "expected_max_of_k": "passk",
    "expected_min_of_k": "passk",
    "family_columns": "bootstrap",
    "headline_bootstrap": "bootstrap",
    "naive_se": "intervals",
    "pairwise_disagreement": "passk",
    "pass_at_k": "passk",
    "pass_hat_k": "passk",
    "resample_matrix": "bootstrap",
    "stratified_headline": "headline",
    "studentized_bounds": "studentized",
    "pivot_cap": "studentized",
    "task_weights": "bootstrap",
    "wilson": "intervals",
    "frontier_probability": "pareto",
    "non_dominated": "pareto",
    "staircase": "pareto",
    "upper_hull": "pareto",
    "weighted_quantile_rows": "pareto",
}


__getattr__ = lazy_exports(__name__, _WHERE, globals())


__all__ = [
    "AXIS_WEIGHTS",
    "AxisView",
    "axis_view",
    "SMALL_FAMILY",
    "small_family_note",
    "SMALL_N",
    "PairedDifference",
    "TieRanks",
    "beats_matrix",
    "paired_difference",
    "ranks_from_beats",
    "sign_flip_pvalue",
    "tie_ranks",
    "HeadlineResult",
    "KappaResult",
    "clustered_se",
    "cohen_kappa",
    "expected_max_of_k",
    "expected_min_of_k",
    "family_columns",
    "headline_bootstrap",
    "naive_se",
    "pairwise_disagreement",
    "pass_at_k",
    "pass_hat_k",
    "resample_matrix",
    "stratified_headline",
    "studentized_bounds",
    "pivot_cap",
    "task_weights",
    "wilson",
    "frontier_probability",
    "non_dominated",
    "staircase",
    "upper_hull",
    "weighted_quantile_rows",
]
