"""Cohen's kappa (docs/JUDGE.md, "Calibration")."""

from __future__ import annotations

import pytest

from bench.stats import cohen_kappa


@pytest.mark.parametrize(
    ("a", "b", "kappa"),
    [
        ([1, 1, 0, 0], [1, 0, 0, 0], 0.5),
        ([1, 1, 1, 1], [1, 1, 0, 0], 0.0),
        ([1, 0, 1, 0], [0, 1, 0, 1], -1.0),
    ],
)
def test_known_answers(a: list[int], b: list[int], kappa: float) -> None:
    result = cohen_kappa(a, b)
    assert result.kappa is not None
    assert round(result.kappa, 4) == kappa


def test_identical_constant_raters_are_undefined_never_one() -> None:
    result = cohen_kappa([1, 1, 1, 1], [1, 1, 1, 1])
    assert result.kappa is None
    assert result.p_o == 1.0
    assert result.p_e == 1.0


def test_constant_rater_against_varying_one_is_exactly_zero() -> None:
    assert cohen_kappa([0, 1, 1, 0, 1], [1, 1, 1, 1, 1]).kappa == 0.0
    assert cohen_kappa(["x"] * 3, ["x", "y", "z"]).kappa == 0.0


def test_kappa_paradox() -> None:
    a = [1] * 90 + [1] * 5 + [0] * 5
    b = [1] * 90 + [0] * 5 + [1] * 5
    result = cohen_kappa(a, b)
    assert result.kappa is not None
    assert round(result.kappa, 4) == -0.0526
    assert round(result.p_o, 4) == 0.90
    assert round(result.p_e, 4) == 0.905
    assert round(result.pabak, 4) == 0.80
    assert result.n == 100


def test_labels_need_not_be_numbers() -> None:
    result = cohen_kappa(["pass", "pass", "fail", "fail"], ["pass", "fail", "fail", "fail"])
    assert result.kappa == pytest.approx(0.5)
    assert result.pabak == pytest.approx(0.5)


def test_validation() -> None:
    with pytest.raises(ValueError):
        cohen_kappa([1, 0], [1])
    with pytest.raises(ValueError):
        cohen_kappa([], [])
