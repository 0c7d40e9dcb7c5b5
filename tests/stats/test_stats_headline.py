"""The stratified headline and its interval (docs/METHODOLOGY.md, "The headline interval")."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.core.score import Score
from bench.stats import small_family_note, stratified_headline

F1 = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0]
F2 = [0.5, 0.25, 0.75, 1.0]
F3 = [0.0, 0.0, 1.0]
VALUES = F1 + F2 + F3
FAMILIES = ["f1"] * 8 + ["f2"] * 4 + ["f3"] * 3


def test_three_families_known_answer() -> None:
    r = stratified_headline(VALUES, FAMILIES, B=10_000, seed=11)
    assert isinstance(r.score, Score)
    assert round(r.score.value, 4) == 0.5278
    assert r.score.n == 15
    assert r.pooled == pytest.approx(8.5 / 15)
    assert r.family_means == pytest.approx({"f1": 0.625, "f2": 0.625, "f3": 1 / 3})
    assert r.family_sizes == {"f1": 8, "f2": 4, "f3": 3}
    # The bootstrap estimates the ddof-0 analytic SE, 0.11686 (ddof 1 would give 0.1377).
    assert round(r.analytic_se, 4) == 0.1169
    # Monte-Carlo SD of the bootstrap SE at B = 10,000 is 0.0008 (200 seeds measured), so
    # +-0.004 is about 5 SDs yet far from the ddof-1 value.
    assert r.bootstrap_se == pytest.approx(0.117, abs=0.004)
    lo, hi = r.score.interval.lo, r.score.interval.hi
    assert lo < r.score.value < hi
    # Studentised interval: about the Welch t interval, headline +- t(4.44 df) * SE(ddof 1)
    # = +- 2.671 * 0.1377, width 0.736 (five seeds gave 0.736-0.761); the old percentile
    # interval was about +- 1.96 * 0.117, width 0.46, and fails this.
    assert hi - lo == pytest.approx(0.75, abs=0.04)
    assert "B=10000" in r.score.interval.method and "seed=11" in r.score.interval.method
    assert "studentised" in r.score.interval.method


def test_small_families_warn() -> None:
    r = stratified_headline(VALUES, FAMILIES, B=200, seed=1)
    assert r.warnings == (
        "family f1 has 8 tasks (< 10): too few to trust its interval, whatever its width",
        "family f2 has 4 tasks (< 10): too few to trust its interval, whatever its width",
        "family f3 has 3 tasks (< 10): too few to trust its interval, whatever its width",
    )
    assert small_family_note("f4", 1) == (
        "family f4 has 1 task (< 10): too few to trust its interval, whatever its width"
    )
    big = stratified_headline([0.0, 1.0] * 10, ["a"] * 20, B=200, seed=1)
    assert big.warnings == ()


def test_constant_families_give_an_exact_point_interval() -> None:
    r = stratified_headline([1, 1, 1, 1, 0, 0], ["a"] * 4 + ["b"] * 2)
    assert r.score.value == 0.5
    assert r.pooled == pytest.approx(2 / 3)
    assert (r.score.interval.lo, r.score.interval.hi) == (0.5, 0.5)
    assert r.bootstrap_se == 0.0 and r.analytic_se == 0.0
    assert "point interval" in r.score.interval.method
    assert "every family is constant: the interval is a single point" in r.warnings


@pytest.mark.parametrize(
    ("values", "lo", "hi"),
    [([1.0] * 50, 0.9287, 1.0), ([0.0] * 50, 0.0, 0.0713)],
)
def test_unanimous_binary_falls_back_to_wilson(values: list[float], lo: float, hi: float) -> None:
    # Also across families: the pooled successes are 0/50 or 50/50 either way.
    for families in (["x"] * 50, ["x"] * 30 + ["y"] * 20):
        r = stratified_headline(values, families)
        assert round(r.score.interval.lo, 4) == lo
        assert round(r.score.interval.hi, 4) == hi
        assert r.score.interval.method.startswith("Wilson")


def test_constant_non_binary_is_a_point() -> None:
    for families in (["x"] * 12, ["x", "y", "z"] * 4):
        r = stratified_headline([0.7] * 12, families)
        assert (r.score.value, r.score.interval.lo, r.score.interval.hi) == (0.7, 0.7, 0.7)
        assert r.pooled == 0.7


def test_equal_family_sizes_headline_is_pooled() -> None:
    values = [0.1, 0.9, 0.4, 1.0, 0.0, 0.3, 0.55, 0.2, 0.8]
    r = stratified_headline(values, ["a", "b", "c"] * 3, B=200, seed=2)
    assert r.score.value == pytest.approx(r.pooled, abs=1e-12)


def test_seed_makes_the_interval_reproducible() -> None:
    a = stratified_headline(VALUES, FAMILIES, B=500, seed=3)
    b = stratified_headline(VALUES, FAMILIES, B=500, seed=3)
    c = stratified_headline(VALUES, FAMILIES, B=500, seed=4)
    assert a == b
    assert a.score.interval != c.score.interval


def test_label_and_level_are_recorded() -> None:
    r = stratified_headline(VALUES, FAMILIES, B=500, seed=3, level=0.8, label="support")
    wide = stratified_headline(VALUES, FAMILIES, B=500, seed=3, level=0.99)
    assert r.score.label == "support" and r.score.interval.level == 0.8
    assert wide.score.interval.lo < r.score.interval.lo
    assert wide.score.interval.hi > r.score.interval.hi


@pytest.mark.parametrize(
    ("values", "families", "kwargs"),
    [
        ([], [], {}),
        ([0.5], [], {}),
        ([0.5, 0.5], ["a"], {}),
        ([1.5], ["a"], {}),
        ([-0.1], ["a"], {}),
        ([float("nan")], ["a"], {}),
        ([0.5], ["a"], {"B": 0}),
        ([0.5], ["a"], {"level": 1.0}),
        ([[0.5]], ["a"], {}),
    ],
)
def test_validation(values: list[float], families: list[str], kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        stratified_headline(values, families, **kwargs)  # type: ignore[arg-type]


def test_empty_input_message_is_clear() -> None:
    with pytest.raises(ValueError, match="no tasks"):
        stratified_headline([], [])


task_value = st.one_of(st.sampled_from([0.0, 1.0]), st.floats(0.0, 1.0))
tasks = st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), task_value), min_size=1, max_size=30)


@settings(max_examples=150, deadline=None, database=None)
@given(tasks=tasks, seed=st.integers(0, 2**32 - 1), level=st.sampled_from([0.5, 0.9, 0.95]))
def test_interval_always_contains_the_value(
    tasks: list[tuple[str, float]], seed: int, level: float
) -> None:
    families = [f for f, _ in tasks]
    values = [v for _, v in tasks]
    r = stratified_headline(values, families, B=100, seed=seed, level=level)
    lo, hi, value = r.score.interval.lo, r.score.interval.hi, r.score.value
    assert 0.0 <= lo <= value <= hi <= 1.0
    assert min(values) - 1e-12 <= value <= max(values) + 1e-12


def test_the_matrix_kept_for_the_next_entrant_is_the_one_a_fresh_draw_gives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A board loads many runs of one task set and seed: the numpy path keeps the last resample
    matrix (read-only) and reuses it for the same families, B and seed only; each headline is
    the one an empty memo gives, and another seed or task set draws its own."""
    from bench.stats import headline as module

    families = [f"f{t % 7}" for t in range(400)]  # 400 x 2,000 draws: the numpy path
    x = [float(t % 3 == 0) for t in range(400)]
    y = [float(t % 5 != 0) for t in range(400)]

    def fresh(values: list[float], fams: list[str], seed: int) -> tuple[object, ...]:
        monkeypatch.setattr(module, "_LAST_MATRIX", [])
        found = stratified_headline(values, fams, seed=seed)
        return (found.score.value, found.score.interval)

    def kept(values: list[float], fams: list[str], seed: int) -> tuple[object, ...]:
        found = stratified_headline(values, fams, seed=seed)
        return (found.score.value, found.score.interval)

    expected = [fresh(y, families, 3), fresh(x, families, 4), fresh(x, families[::-1], 3)]
    monkeypatch.setattr(module, "_LAST_MATRIX", [])
    assert kept(x, families, 3) == fresh(x, families, 3)
    assert kept(y, families, 3) == expected[0]  # reused
    assert kept(x, families, 4) == expected[1]  # another seed: drawn again
    assert kept(x, families[::-1], 3) == expected[2]  # other families: drawn again
    W, weighted = module._LAST_MATRIX[0][1]
    assert not W.flags.writeable and not weighted.flags.writeable
