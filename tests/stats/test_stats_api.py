"""The public face of bench.stats."""

from __future__ import annotations

import bench.stats


def test_public_api_is_pinned() -> None:
    assert sorted(bench.stats.__all__) == [
        "AXIS_WEIGHTS",
        "AxisView",
        "HeadlineResult",
        "KappaResult",
        "PairedDifference",
        "SMALL_FAMILY",
        "SMALL_N",
        "TieRanks",
        "axis_view",
        "beats_matrix",
        "clustered_se",
        "cohen_kappa",
        "expected_max_of_k",
        "expected_min_of_k",
        "family_columns",
        "frontier_probability",
        "headline_bootstrap",
        "naive_se",
        "non_dominated",
        "paired_difference",
        "pairwise_disagreement",
        "pass_at_k",
        "pass_hat_k",
        "pivot_cap",
        "ranks_from_beats",
        "resample_matrix",
        "sign_flip_pvalue",
        "small_family_note",
        "staircase",
        "stratified_headline",
        "studentized_bounds",
        "task_weights",
        "tie_ranks",
        "upper_hull",
        "weighted_quantile_rows",
        "wilson",
    ]
    for name in bench.stats.__all__:
        assert hasattr(bench.stats, name)
