"""The two charts of a cohort as inline SVG, drawn here at build time (no chart library).

Quality (the headline, its interval as an error bar) against dollars per run, and against p95
latency; the staircase frontier of each view drawn and its points highlighted and labelled;
the other points faded, and only the best ``LABELLED`` of them by headline get a text label, so
a thousand points stay readable. Every point and label carries its row's key (``data-key``: the
page hides those of rows its filters leave out, and names the few a filter leaves). Every point
carries an SVG ``<title>`` (entrant, version, run id and its numbers) that the browser shows on
hover and the page shows on focus. Entries whose cost is not measured are never plotted on the
cost axis (the page lists them apart). The x axis is logarithmic when the values span more than
two orders of magnitude, and its title says so.

Output is byte-stable: every coordinate is printed with one decimal, every string escaped.
Styling comes from classes in ``board.css`` (the CSP allows no ``style`` attribute).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

from bench.reports.terminal import P95_FEW

from .model import CohortRows, EntryRow

WIDTH, HEIGHT = 640, 400
LEFT, RIGHT, TOP, BOTTOM = 56, 18, 48, 50
LABELLED = 10
"""Points besides the frontier that get a visible text label: the best by headline."""
LOG_SPAN = 100.0
"""A log x axis when the largest value is more than this many times the smallest."""
CHAR_W, LABEL_H, LABEL_MAX = 6.1, 13.0, 36
NAME_KEEP = 11
"""Characters of the display name (its ellipsis included) a cut label always keeps."""


@dataclass(frozen=True)
class _Axis:
    lo: float
    hi: float
    log: bool

    def at(self, v: float, a: float, b: float) -> float:
        if self.log:
            lo, hi, v = math.log10(self.lo), math.log10(self.hi), math.log10(v)
        else:
            lo, hi = self.lo, self.hi
        return a + (v - lo) / (hi - lo) * (b - a)


def _n(x: float) -> str:
    text = f"{x:.1f}"
    return "0.0" if text == "-0.0" else text


def _tick_label(v: float) -> str:
    if v == 0:
        return "0"
    if abs(v) >= 1000 or abs(v) < 1e-4:
        return f"{v:.0e}".replace("e-0", "e-").replace("e+0", "e")
    return f"{v:.6f}".rstrip("0").rstrip(".")


def _x_axis(values: list[float]) -> tuple[_Axis, list[float]]:
    lo, hi = min(values), max(values)
    if lo > 0 and hi / lo > LOG_SPAN:
        a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        return _Axis(10.0**a, 10.0**b, True), [10.0**k for k in range(a, b + 1)]
    span = hi - lo if hi > lo else (abs(hi) or 1.0)
    # From zero unless the values sit far from it (then the axis starts at a round value
    # below the smallest, and the tick labels say where).
    start = 0.0 if lo <= 0.3 * hi or lo <= 0 else lo - 0.05 * span
    raw = (hi + 0.05 * span - start) / 5
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.floor(start / step + 1e-9)
    ticks = [round((first + k) * step, 12) for k in range(7)]
    while len(ticks) > 2 and ticks[-2] >= hi:
        ticks.pop()
    return _Axis(ticks[0], ticks[-1], False), ticks


def _name(r: EntryRow) -> str:
    return r.display_name + (f" ({r.config_label})" if r.config_label else "")


def _tooltip(r: EntryRow) -> str:
    assert r.headline is not None
    h = r.headline
    cost = f"${r.cost_usd:.6f} per run" if r.cost_usd is not None else "cost not measured"
    latency = f"{r.p95_latency_s:.3f} s p95" if r.p95_latency_s is not None else "latency unknown"
    if r.p95_latency_s is not None and r.p95_note:
        # p95_note's words without its colon: a name with ": " reads as YAML to the a11y tests
        latency += f" (the slowest of {r.attempts} attempt(s), fewer than {P95_FEW})"
    return "\n".join(
        [
            _name(r),
            f"run {r.run_id}",
            f"headline {h.value:.3f} [{h.lo:.3f}, {h.hi:.3f}]",
            cost,
            latency,
        ]
    )


def _short(r: EntryRow) -> str:
    """The point's label within ``LABEL_MAX`` characters: the display name keeps at least its
    first ``NAME_KEEP`` characters (so rows of different entrants that share a long version
    label stay apart: "Entrant 15 (…-retrieval-k8)", never "Entr… (…-retrieval-k8)"); the
    version label takes the rest, cut from its start (where the entrant id repeats), so two
    versions of one entrant differ in it."""
    text = _name(r)
    if len(text) <= LABEL_MAX:
        return text
    if not r.config_label:
        return text[: LABEL_MAX - 1] + "…"
    name, label = r.display_name, r.config_label
    room = LABEL_MAX - 3 - min(len(name), NAME_KEEP)
    if len(label) > room:
        label = "…" + label[-(room - 1) :]
    room = LABEL_MAX - 3 - len(label)
    if len(name) > room:
        name = name[: room - 1] + "…"
    return name + " (" + label + ")"


Box = tuple[float, float, float, float]


def _place(x: float, y: float, text: str, taken: list[Box], force: bool) -> tuple[str, Box] | None:
    """A label beside the point (right or left; level, a little above or below), inside the
    plot and clear of the labels already placed; ``force`` (a frontier point) tries spots
    farther up and down, then takes the first one regardless."""
    w = len(text) * CHAR_W
    spots = [
        (anchor, tx, y + dy, (tx - w if anchor == "end" else tx, y + dy - 10,
                              tx if anchor == "end" else tx + w, y + dy + 3))
        for dy in ((4, -6, 14, -16, 24) if not force else
                   (4, -6, 14, -16, 24, -26, 34, -36, 44, -46, 54, -56))
        for anchor, tx in (("start", x + 7), ("end", x - 7))
    ]  # fmt: skip
    inside = [
        s
        for s in spots
        if s[3][0] >= LEFT and s[3][2] <= WIDTH - RIGHT and s[3][1] >= TOP - 4
        and s[3][3] <= HEIGHT - BOTTOM
    ]  # fmt: skip
    for anchor, tx, ty, box in inside:
        if not any(_overlap(box, other) for other in taken):
            return f'<text x="{_n(tx)}" y="{_n(ty)}" text-anchor="{anchor}">', box
    if force and (inside or spots):
        anchor, tx, ty, box = (inside or spots)[0]
        return f'<text x="{_n(tx)}" y="{_n(ty)}" text-anchor="{anchor}">', box
    return None


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def chart_svg(rows: list[EntryRow], x_of: str, frontier: list[str], title: str,
              x_title: str, chart_id: str) -> str | None:  # fmt: skip
    """One chart as an ``<svg>`` element, or None when no entry has both values."""
    points = [r for r in rows if r.headline is not None and getattr(r, x_of) is not None]
    if not points:
        return None
    xs: list[float] = [getattr(r, x_of) for r in points]
    axis, ticks = _x_axis(xs)
    y_axis = _Axis(0.0, 1.0, False)
    x0, x1, y0, y1 = LEFT, WIDTH - RIGHT, HEIGHT - BOTTOM, TOP

    def px(r: EntryRow) -> tuple[float, float]:
        assert r.headline is not None
        return axis.at(getattr(r, x_of), x0, x1), y_axis.at(r.headline.value, y0, y1)

    scale = "log scale" if axis.log else "linear scale"
    out = [
        f'<svg class="chart-svg" id="{chart_id}" viewBox="0 0 {WIDTH} {HEIGHT}" role="group" '
        f'aria-labelledby="{chart_id}-title">',
        f'<text class="chart-title" id="{chart_id}-title" x="{LEFT}" y="18">{escape(title)}</text>',
        '<g class="legend" transform="translate(56 34)">'
        '<circle class="mark front" cx="4" cy="-4" r="4"/><text x="12" y="0">frontier</text>'
        '<circle class="mark" cx="78" cy="-4" r="3.5"/><text x="86" y="0">other entries</text>'
        '<path class="mark cross" d="M184 -8l7 7m0 -7l-7 7"/>'
        '<text x="196" y="0">dominated (95 %)</text>'
        '<path class="err" d="M312 -10V2"/><text x="318" y="0">95 % interval</text></g>',
        '<g class="grid">',
    ]
    for t in ticks:
        gx = axis.at(t, x0, x1)
        out.append(f'<path d="M{_n(gx)} {y1}V{y0}"/>')
    for k in range(6):
        gy = y_axis.at(k / 5, y0, y1)
        out.append(f'<path d="M{x0} {_n(gy)}H{x1}"/>')
    # tick numbers and the points' short labels are for the eye: a screen reader gets the
    # title, the legend, the axis titles and each focusable point's own name instead
    out.append('</g><g class="ticks" aria-hidden="true">')
    for t in ticks:
        gx = axis.at(t, x0, x1)
        out.append(f'<text x="{_n(gx)}" y="{y0 + 16}" text-anchor="middle">{_tick_label(t)}</text>')
    for k in range(6):
        gy = y_axis.at(k / 5, y0, y1)
        out.append(f'<text x="{x0 - 6}" y="{_n(gy + 4)}" text-anchor="end">{k / 5:.1f}</text>')
    out.append("</g>")
    out.append(
        f'<text class="axis-title" x="{_n((x0 + x1) / 2)}" y="{HEIGHT - 12}" '
        f'text-anchor="middle">{escape(x_title)} ({scale})</text>'
        f'<text class="axis-title" transform="translate(14 {_n((y0 + y1) / 2)}) rotate(-90)" '
        'text-anchor="middle">headline (mean of family means)</text>'
    )
    by_key = {r.key: r for r in points}
    stair = [by_key[k] for k in frontier if k in by_key]  # by x, then quality down
    on_front = {r.key for r in stair}
    if stair:
        xy = [px(r) for r in stair]
        d = f"M{_n(xy[0][0])} {_n(xy[0][1])}" + "".join(f"H{_n(x)}V{_n(y)}" for x, y in xy[1:])
        out.append(f'<path class="frontier" d="{d}"/>')
    best = sorted(
        (r for r in points if r.key not in on_front),
        key=lambda r: -r.headline.value if r.headline else 0.0,
    )[:LABELLED]
    labelled = {r.key for r in best} | on_front
    # Faded points first, the frontier last (drawn on top).
    order = [r for r in points if r.key not in on_front] + stair
    out.append('<g class="points">')
    for r in order:
        assert r.headline is not None
        x, y = px(r)
        lo, hi = y_axis.at(r.headline.lo, y0, y1), y_axis.at(r.headline.hi, y0, y1)
        cls = "point front" if r.key in on_front else "point"
        if r.dominated_95:
            cls += " dominated"
        # a point Tab stops at is an image named by its <title>: a screen reader says its
        # entrant and numbers, where a bare <g> says nothing
        focus = ' tabindex="0" role="img"' if r.key in labelled else ""
        radius = 4 if r.key in on_front else 3.5
        mark = (
            f'<path class="mark cross" d="M{_n(x - 3.5)} {_n(y - 3.5)}l7 7m0 -7l-7 7"/>'
            if r.dominated_95 and r.key not in on_front
            else f'<circle class="mark" cx="{_n(x)}" cy="{_n(y)}" r="{radius}"/>'
        )
        out.append(
            f'<g class="{cls}" data-key="{escape(r.key)}"{focus}>'
            f"<title>{escape(_tooltip(r))}</title>"
            f'<path class="err" d="M{_n(x)} {_n(hi)}V{_n(lo)}"/>{mark}</g>'
        )
    out.append('</g><g class="labels" aria-hidden="true">')
    taken: list[Box] = []
    for r in [*stair, *best]:
        text = _short(r)
        x, y = px(r)
        placed = _place(x, y, text, taken, force=r.key in on_front)
        if placed is None:
            continue
        tag, box = placed
        taken.append(box)
        cls = "front" if r.key in on_front else "top"
        # the row's key, as its point has it: the page hides both when a filter leaves it out
        attrs = f'<text class="{cls}" data-key="{escape(r.key)}" '
        out.append(tag.replace("<text ", attrs) + escape(text) + "</text>")
    out.append("</g></svg>")
    return "".join(out)


def cohort_charts(cohort: CohortRows, index: int) -> dict[str, str | None]:
    """Both charts of the cohort listed ``index``-th on the page (ids are per page)."""
    ranked = [r for r in cohort.entries if r.ranked]
    return {
        "cost": chart_svg(
            ranked, "cost_usd", cohort.cost_view, "Quality vs dollars per run",
            "dollars per run", f"svg-cost-{index}",
        ),
        "latency": chart_svg(
            ranked, "p95_latency_s", cohort.latency_view, "Quality vs p95 latency",
            "p95 latency per attempt (s)", f"svg-latency-{index}",
        ),
    }  # fmt: skip


__all__ = ["chart_svg", "cohort_charts"]
