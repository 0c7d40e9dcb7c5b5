"""Wilson intervals and clustered standard errors (docs/SCORING.md)."""

from __future__ import annotations

import pytest

from bench.stats import clustered_se, naive_se, wilson


@pytest.mark.parametrize(
    ("successes", "n", "lo", "hi"),
    [(0, 50, 0.0, 0.0713), (50, 50, 0.9287, 1.0), (45, 50, 0.7864, 0.9565)],
)
def test_wilson_known_answers(successes: int, n: int, lo: float, hi: float) -> None:
    got_lo, got_hi = wilson(successes, n)
    assert round(got_lo, 4) == lo
    assert round(got_hi, 4) == hi


def test_wilson_boundaries_are_exact() -> None:
    assert wilson(0, 7)[0] == 0.0
    assert wilson(7, 7)[1] == 1.0


def test_wilson_wider_at_higher_level() -> None:
    lo95, hi95 = wilson(45, 50, 0.95)
    lo99, hi99 = wilson(45, 50, 0.99)
    assert lo99 < lo95 and hi99 > hi95


@pytest.mark.parametrize(
    ("successes", "n", "level"),
    [(0, 0, 0.95), (51, 50, 0.95), (-1, 50, 0.95), (1, 2, 1.0), (1, 2, 0.0)],
)
def test_wilson_rejects_bad_input(successes: int, n: int, level: float) -> None:
    with pytest.raises(ValueError):
        wilson(successes, n, level)


def test_wilson_rejects_non_integer_counts() -> None:
    with pytest.raises(TypeError):
        wilson(2.5, 10)  # type: ignore[arg-type]


VALUES = [1.0, 1.0, 1.0, 0.0, 0.0, 0.0]
CLUSTERS = ["a", "a", "a", "b", "b", "b"]


def test_clustered_se_known_answers() -> None:
    assert round(naive_se(VALUES), 4) == 0.2236
    assert round(clustered_se(VALUES, CLUSTERS, "CR0"), 4) == 0.3536
    assert round(clustered_se(VALUES, CLUSTERS, "CR1"), 4) == 0.5000
    # CR1 here is the SE of the cluster means [1, 0].
    assert clustered_se(VALUES, CLUSTERS, "CR1") == pytest.approx(naive_se([1.0, 0.0]))


def test_cr1_with_singleton_clusters_is_naive() -> None:
    values = [0.2, 0.9, 0.4, 0.4, 1.0, 0.0]
    assert clustered_se(values, list(range(6))) == pytest.approx(naive_se(values), rel=1e-12)


def test_repeat_invariance_of_clustered_se() -> None:
    """Five identical copies of each task, clustered by task, give the per-task SE."""
    tasks = [0.2, 0.9, 0.5, 0.5, 1.0, 0.0, 0.75]
    copies = [v for v in tasks for _ in range(5)]
    clusters = [t for t in range(len(tasks)) for _ in range(5)]
    assert clustered_se(copies, clusters, "CR1") == pytest.approx(naive_se(tasks), rel=1e-12)
    # Treating the copies as independent would shrink the SE by about sqrt(5).
    assert naive_se(copies) < 0.5 * naive_se(tasks)


def test_se_validation() -> None:
    with pytest.raises(ValueError):
        naive_se([0.5])
    with pytest.raises(ValueError):
        naive_se([0.5, float("nan")])
    with pytest.raises(ValueError):
        clustered_se([1.0, 0.0], ["a"])
    with pytest.raises(ValueError):
        clustered_se([1.0, 0.0], ["a", "a"], "CR1")
    with pytest.raises(ValueError):
        clustered_se([1.0, 0.0], ["a", "b"], "CR2")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        clustered_se([], [])
