"""Coverage of the headline interval: how often the 95 % interval holds the true mean of family
means, on the shipped task layouts, for the studentised interval against the old percentile one.

A *board* here is one simulated run: every task of a layout gets a value the way a run makes
one. Each task has its own success probability ``p ~ Beta(kappa * mu_f, kappa * (1 - mu_f))``
around its family's true mean ``mu_f`` (``kappa = 2``: most tasks nearly always or nearly never
pass, as on real boards); the task's value is the mean over its repeats of a 0/1 outcome
(even-numbered families, sorted by name) or of partial credit, the share of 4 checks passed
(odd-numbered). The truth is ``mean_f mu_f``, exactly. Regimes move the family means (near 0,
low, middle, high, near 1; uneven families from 0.08 to 0.92), the repeats (1 instead of 3) and
the spread of task difficulty (``kappa = 10``: tasks alike).

Layouts are read from ``tasks/*.yaml``: the public split, and every task. Family sizes are
counted, not assumed, so the figures follow the task set.

Code path: the intervals come from ``bench.stats`` as published: ``headline_bootstrap`` (the
resamples), ``studentized_bounds`` (the interval the run summary and the board both print;
clipped to [0, 1] and made to hold the value, as both do) and, for the rare board whose every
family is constant, ``stratified_headline``'s Wilson-or-point rule. Boards are computed 100 at a
time on one seeded ``W`` (the board's way), each block with its own seed. The old interval is
the percentile interval of the same resamples (the rule before 2026-12-03). A last check runs
``stratified_headline`` one board at a time and the board's ``cohort_stats`` on a cohort of the
same boards with the same seed and prints the largest difference of an interval end.

Prints figures; asserts nothing. Offline; writes nothing.

    .venv/bin/python benchmarks/bench_coverage.py            # ~1 minute on 2 cores
    .venv/bin/python benchmarks/bench_coverage.py --quick    # smoke run, 200 boards
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import numpy.typing as npt
import yaml

from bench.board import EntryInput
from bench.board.cohort import cohort_stats
from bench.stats import (
    headline_bootstrap,
    resample_matrix,
    stratified_headline,
    studentized,
    task_weights,
)
from bench.stats import studentized_bounds as new_bounds

REPO = Path(__file__).resolve().parent.parent
BLOCK = 100
METHODS = ("new", "old", "no cap")
LEVEL = 0.95

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Regime:
    name: str
    centre: float
    """Target mean of family means; family means sit around it on the logit scale."""
    spread: float = 0.6
    """Family means run from ``logit(centre) - spread`` to ``+ spread``."""
    kappa: float = 2.0
    repeats: int = 3


REGIMES = (
    Regime("near 0", 0.05),
    Regime("low", 0.25),
    Regime("middle", 0.50),
    Regime("high", 0.75),
    Regime("near 1", 0.95),
    Regime("almost nothing", 0.015, spread=1.0),
    Regime("almost perfect", 0.985, spread=1.0),
    Regime("uneven families", 0.50, spread=2.5),
    Regime("one repeat", 0.50, repeats=1),
    Regime("tasks alike", 0.50, kappa=10.0),
)


def layouts(root: Path) -> dict[str, dict[str, int]]:
    """Family sizes of the public split and of the whole task set, from the task files."""
    public: dict[str, int] = {}
    every: dict[str, int] = {}
    for path in sorted(root.glob("*.yaml")):
        for task in yaml.safe_load(path.read_text(encoding="utf-8")).get("tasks") or []:
            every[task["family"]] = every.get(task["family"], 0) + 1
            if task.get("split") == "public":
                public[task["family"]] = public.get(task["family"], 0) + 1
    return {"public split": public, "all tasks": every}


def _expit(x: Floats) -> Floats:
    out: Floats = 1.0 / (1.0 + np.exp(-x))
    return out


def family_means(regime: Regime, n_families: int) -> Floats:
    """Fixed per regime (the truth must not move between boards); order shuffled once."""
    offsets = np.linspace(-regime.spread, regime.spread, n_families)
    offsets = offsets[np.random.default_rng(5).permutation(n_families)]
    centre = math.log(regime.centre / (1.0 - regime.centre))
    return _expit(centre + offsets)


def simulate(
    sizes: list[int], mus: Floats, regime: Regime, boards: int, rng: np.random.Generator
) -> Floats:
    """boards x tasks values: a Beta-distributed success probability per task, then repeats."""
    blocks = []
    for f, (n, mu) in enumerate(zip(sizes, mus, strict=True)):
        p = rng.beta(regime.kappa * mu, regime.kappa * (1.0 - mu), size=(boards, n))
        if f % 2 == 0:  # 0/1 outcome per attempt
            v = rng.binomial(regime.repeats, p) / regime.repeats
        else:  # partial credit: share of 4 checks passed, per attempt
            v = rng.binomial(4 * regime.repeats, p) / (4 * regime.repeats)
        blocks.append(v)
    return np.concatenate(blocks, axis=1)


def intervals(X: Floats, fams: list[str], B: int, seed: int) -> dict[str, Floats]:
    """2 x boards bounds of every method, for every board of one block, on one seeded W."""
    M = headline_bootstrap(X, fams, B, seed)
    W = resample_matrix(fams, B, seed)
    h = X @ task_weights(fams)
    a = (1.0 - LEVEL) / 2.0
    lo, hi, se = new_bounds(X, fams, W, M, LEVEL)
    raw = {"new": (lo, hi), "old": tuple(np.quantile(M, [a, 1.0 - a], axis=0))}
    # The same interval without the cap on |T| (what the cap is for; not the code path).
    cap = studentized.pivot_cap
    studentized.pivot_cap = lambda level: 1e100
    try:
        raw["no cap"] = new_bounds(X, fams, W, M, LEVEL)[:2]
    finally:
        studentized.pivot_cap = cap
    out = {
        k: np.stack([np.minimum(np.clip(lo, 0, 1), h), np.maximum(np.clip(hi, 0, 1), h)])
        for k, (lo, hi) in raw.items()
    }
    for i in np.flatnonzero(se == 0.0):  # every family constant: the headline's own rule
        r = stratified_headline(X[i], fams, B=B, seed=seed).score.interval
        for bounds in out.values():
            bounds[:, i] = (r.lo, r.hi)
    return out


def agreement(X: Floats, fams: list[str], B: int, seed: int) -> float:
    """Largest |difference| of an interval end: the board's vectorised cohort computation
    (``cohort_stats``, every board at once) against the one-run path (``stratified_headline``,
    one board at a time), same boards, same seed."""
    ids = [f"t{k:03d}" for k in range(len(fams))]
    family = dict(zip(ids, fams, strict=True))
    entries = [
        EntryInput(
            entrant=f"e{i:03d}", display_name=f"e{i}", run_id=f"20260101T000000Z-{i:06x}",
            created_at="2026-01-01T00:00:00+00:00", cohort_key="c", fingerprint=f"{i:016x}",
            config={}, task_set_hash="a" * 64, split="public", repeats=1, harness="0.1.0",
            status="complete", values=dict(zip(ids, map(float, X[i]), strict=True)),
            families=family, costs=None, latencies=(), counted=len(ids),
        )
        for i in range(X.shape[0])
    ]  # fmt: skip
    stats = cohort_stats(entries, ids, B=B, seed=seed, frontier_B=10, level=LEVEL)
    worst = 0.0
    for i, est in enumerate(stats.headline):
        one = stratified_headline(X[i], fams, B=B, seed=seed).score.interval
        worst = max(worst, abs(est.lo - one.lo), abs(est.hi - one.hi))
    return worst


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="coverage of the headline interval")
    parser.add_argument("--boards", type=int, default=2000, help="simulated runs per cell")
    parser.add_argument("--resamples", type=int, default=2000, help="B, as the run summary")
    parser.add_argument("--quick", action="store_true", help="200 boards per cell")
    args = parser.parse_args(argv)
    if args.quick:
        args.boards = 200
    start = time.perf_counter()
    print("bench_coverage: 95 % headline interval, studentised (new) against percentile (old)")
    print(
        f"  machine: {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"numpy {np.__version__}, {platform.system()} {platform.release()}; "
        f"{datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}"
    )
    se = math.sqrt(LEVEL * (1 - LEVEL) / args.boards)
    print(
        f"  {args.boards} boards per cell, B = {args.resamples}, {BLOCK} boards per seeded W; "
        f"Monte-Carlo SE of a coverage near 0.95: {se:.4f}; target 0.95 +- 0.015"
    )
    rng = np.random.default_rng(20261203)
    seed = 1
    for name, sizes_by_family in layouts(REPO / "tasks").items():
        fams = [f for f in sorted(sizes_by_family) for _ in range(sizes_by_family[f])]
        sizes = [sizes_by_family[f] for f in sorted(sizes_by_family)]
        print(
            f"\n{name}: {len(fams)} tasks in {len(sizes)} families "
            f"({', '.join(f'{f} {n}' for f, n in sorted(sizes_by_family.items()))})"
        )
        print(
            f"  {'regime':<15} {'truth':>5} | {'new':>5} {'miss lo/hi':>11} {'width':>5} | "
            f"{'old':>5} {'miss lo/hi':>11} {'width':>5} | {'no cap':>6} {'width':>5} {'max':>5}"
        )
        totals = {k: [0, 0] for k in METHODS}
        for regime in REGIMES:
            mus = family_means(regime, len(sizes))
            truth = float(mus.mean())
            cells: dict[str, list[Floats]] = {k: [] for k in METHODS}
            for first in range(0, args.boards, BLOCK):
                X = simulate(sizes, mus, regime, min(BLOCK, args.boards - first), rng)
                for k, bounds in intervals(X, fams, args.resamples, seed).items():
                    cells[k].append(bounds)
                seed += 1
            text = []
            for kind in METHODS:
                lo, hi = np.concatenate(cells[kind], axis=1)
                below, above = float(np.mean(hi < truth)), float(np.mean(lo > truth))
                cover = 1.0 - below - above
                totals[kind][0] += int(round(cover * lo.size))
                totals[kind][1] += lo.size
                width = float(np.mean(hi - lo))
                if kind == "no cap":
                    text.append(f"{cover:6.3f} {width:5.3f} {float(np.max(hi - lo)):5.3f}")
                else:
                    text.append(f"{cover:5.3f} {above:5.3f}/{below:5.3f} {width:5.3f}")
            print(f"  {regime.name:<15} {truth:5.3f} | {' | '.join(text)}")
        pooled = {k: v[0] / v[1] for k, v in totals.items()}
        print(
            f"  {'all regimes':<15} {'':>5} | {pooled['new']:5.3f} {'':>17} | "
            f"{pooled['old']:5.3f} {'':>17} | {pooled['no cap']:6.3f}"
        )
        X = simulate(sizes, family_means(REGIMES[2], len(sizes)), REGIMES[2], 20, rng)
        worst = agreement(X, fams, args.resamples, seed)
        print(
            f"  board (cohort_stats, 20 boards as one cohort) against stratified_headline, "
            f"seed {seed}: largest interval-end difference {worst:.1e}"
        )
    print(
        "\n  miss lo/hi: share of intervals wholly above / wholly below the truth; no cap: the new "
        "interval without its cap on |T| (not what ships; shows what the cap is for), its mean "
        "and largest width. "
        f"{time.perf_counter() - start:.0f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
