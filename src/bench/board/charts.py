"""Plotly figures of a cohort as plain JSON (drawn in the page by ``Plotly.newPlot``).

Two views: quality against dollars per run, and quality against p95 latency; each with the
interval as an error bar and the staircase frontier. Entries whose cost is not measured are
never plotted on the cost axis (the page lists them apart). Contributor strings are
HTML-escaped for plotly, which reads a few tags in hover text.
"""

from __future__ import annotations

import html
import json
from typing import Any

from .model import CohortRows, EntryRow


def _hover(r: EntryRow) -> str:
    assert r.headline is not None
    cost = f"${r.cost_usd:.6f} per run" if r.cost_usd is not None else "cost not measured"
    latency = f"{r.p95_latency_s:.3f} s p95" if r.p95_latency_s is not None else "latency unknown"
    h = r.headline
    return "<br>".join(
        [
            html.escape(r.display_name, quote=False),
            f"headline {h.value:.3f} [{h.lo:.3f}, {h.hi:.3f}]",
            cost,
            latency,
        ]
    )


def _figure(rows: list[EntryRow], x_of: str, frontier: list[str], title: str, x_title: str) -> Any:
    import plotly.graph_objects as go

    points = [r for r in rows if r.headline is not None and getattr(r, x_of) is not None]
    by_key = {r.key: r for r in points}
    fig = go.Figure()
    for dominated in (False, True):
        chosen = [r for r in points if r.dominated_95 == dominated]
        if not chosen:
            continue
        fig.add_trace(
            go.Scatter(
                x=[getattr(r, x_of) for r in chosen],
                y=[r.headline.value for r in chosen if r.headline],
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": [r.headline.hi - r.headline.value for r in chosen if r.headline],
                    "arrayminus": [r.headline.value - r.headline.lo for r in chosen if r.headline],
                },
                mode="markers",
                marker={"symbol": "x" if dominated else "circle", "size": 10},
                name="dominated (95 %)" if dominated else "entries",
                hovertext=[_hover(r) for r in chosen],
                hovertemplate="%{hovertext}<extra></extra>",
            )
        )
    stair = [by_key[k] for k in frontier if k in by_key]
    if stair:
        fig.add_trace(
            go.Scatter(
                x=[getattr(r, x_of) for r in stair],
                y=[r.headline.value for r in stair if r.headline],
                mode="lines",
                line={"shape": "hv", "dash": "dot"},
                name="frontier (staircase)",
                hoverinfo="skip",
            )
        )
    fig.update_layout(
        title={"text": title},
        xaxis={"title": {"text": x_title}},
        yaxis={"title": {"text": "headline (mean of family means)"}, "range": [0, 1.05]},
        height=380,
        margin={"l": 60, "r": 20, "t": 50, "b": 50},
        template="none",
    )
    return json.loads(fig.to_json(validate=True))


def cohort_charts(cohort: CohortRows) -> dict[str, Any]:
    ranked = [r for r in cohort.entries if r.ranked]
    return {
        "cost": _figure(
            ranked, "cost_usd", cohort.cost_view, "Quality vs dollars per run", "dollars per run"
        ),
        "latency": _figure(
            ranked,
            "p95_latency_s",
            cohort.latency_view,
            "Quality vs p95 latency",
            "p95 latency per attempt (s)",
        ),
    }


__all__ = ["cohort_charts"]
