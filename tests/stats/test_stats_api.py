"""The public face of bench.stats."""

from __future__ import annotations

import bench.stats


def test_public_api_is_pinned() -> None:
    assert sorted(bench.stats.__all__) == [
        "AXIS_WEIGHTS",
        "AxisView",
        "HeadlineResult",
        "KappaResult",
        "SMALL_FAMILY",
        "axis_view",
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
        "task_weights",
        "wilson",
    ]
    for name in bench.stats.__all__:
        assert hasattr(bench.stats, name)
