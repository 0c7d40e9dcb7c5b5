from __future__ import annotations

import pytest

from bench.stats import AXIS_WEIGHTS, axis_view


def test_weights_are_the_tacet_weights() -> None:
    assert AXIS_WEIGHTS == {"irrelevance": 0.40, "tool": 0.30, "step": 0.20, "answer": 0.10}


def test_all_four_axes() -> None:
    view = axis_view({"irrelevance": [1.0], "tool": [0.5], "step": [0.0], "answer": [1.0]})
    assert view.score == pytest.approx(0.4 + 0.15 + 0.0 + 0.1)
    assert view.counts == {"irrelevance": 1, "tool": 1, "step": 1, "answer": 1}


def test_axes_without_cases_are_dropped_and_the_rest_renormalised() -> None:
    view = axis_view({"tool": [1.0, 0.0], "answer": [1.0], "step": []})
    assert view.weights == pytest.approx({"tool": 0.75, "answer": 0.25})
    assert view.score == pytest.approx(0.75 * 0.5 + 0.25 * 1.0)
    only = axis_view({"irrelevance": [1.0, 1.0, 0.0]})
    assert only.score == pytest.approx(2 / 3)


def test_firing_a_tool_at_an_irrelevance_case_cannot_be_bought_back() -> None:
    # A: fires tools at every irrelevance case, perfect on every tool case.
    # B: stays quiet when it should, fails every tool case.
    fires = axis_view({"irrelevance": [0.0] * 10, "tool": [1.0] * 30})
    quiet = axis_view({"irrelevance": [1.0] * 10, "tool": [0.0] * 30})
    assert fires.score is not None and quiet.score is not None
    assert fires.score < quiet.score
    assert fires.score == pytest.approx(0.3 / 0.7)
    # ...and perfect answers and steps on top still do not buy it back.
    everything_else = axis_view(
        {"irrelevance": [0.0], "tool": [1.0], "step": [1.0], "answer": [1.0]}
    )
    assert everything_else.score == pytest.approx(0.6)
    assert everything_else.score < 1 - AXIS_WEIGHTS["irrelevance"] + 1e-9


def test_no_cases_at_all() -> None:
    assert axis_view({}).score is None


def test_refuses_unknown_axes_and_values_out_of_range() -> None:
    with pytest.raises(ValueError, match="unknown axis vibes"):
        axis_view({"vibes": [1.0]})
    with pytest.raises(ValueError, match="outside"):
        axis_view({"tool": [1.5]})
