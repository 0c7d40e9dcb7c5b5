"""The axis view of a run (from the tacet format): irrelevance 0.40, tool 0.30, step 0.20,
answer 0.10, renormalised over the axes that have cases.

Irrelevance is heaviest on purpose: an agent that fires a tool at "thanks, that's all" must not
be able to buy that back with tool accuracy. An axis with no cases is left out, not scored as
zero, so a task set made only of irrelevance cases is a legitimate one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

AXIS_WEIGHTS: dict[str, float] = {"irrelevance": 0.40, "tool": 0.30, "step": 0.20, "answer": 0.10}


@dataclass(frozen=True)
class AxisView:
    score: float | None
    """Weighted mean of the axis means over the axes that have cases; None when none has."""
    axes: dict[str, float]
    """Axis → mean of its task values (only axes with cases)."""
    counts: dict[str, int]
    """Axis → number of tasks with a check on that axis."""
    weights: dict[str, float]
    """Axis → the weight actually applied after renormalisation."""


def axis_view(values: Mapping[str, Sequence[float]]) -> AxisView:
    """``values``: axis → one value in [0, 1] per task that has a check on that axis."""
    unknown = sorted(set(values) - set(AXIS_WEIGHTS))
    if unknown:
        raise ValueError(f"unknown axis {', '.join(unknown)} (known: {', '.join(AXIS_WEIGHTS)})")
    present = {axis: list(v) for axis, v in values.items() if len(v) > 0}
    for axis, items in present.items():
        if any(not (0.0 <= x <= 1.0) for x in items):
            raise ValueError(f"axis {axis} has a value outside [0, 1]")
    if not present:
        return AxisView(score=None, axes={}, counts={}, weights={})
    means = {axis: math.fsum(items) / len(items) for axis, items in present.items()}
    total = math.fsum(AXIS_WEIGHTS[axis] for axis in present)
    weights = {axis: AXIS_WEIGHTS[axis] / total for axis in present}
    # Divide once at the end: a constant run scores exactly its constant.
    score = math.fsum(AXIS_WEIGHTS[axis] * means[axis] for axis in present) / total
    ordered = [a for a in AXIS_WEIGHTS if a in present]
    return AxisView(
        score=min(max(score, 0.0), 1.0),
        axes={a: means[a] for a in ordered},
        counts={a: len(present[a]) for a in ordered},
        weights={a: weights[a] for a in ordered},
    )


__all__ = ["AXIS_WEIGHTS", "AxisView", "axis_view"]
