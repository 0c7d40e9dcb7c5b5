"""The rows stage: plain entries in, the board's rows out. Known answers (docs/METHODOLOGY.md)."""

from __future__ import annotations

import functools
import json
import os
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.board import Board, EntryInput, build_rows

GOLDEN = Path(__file__).parent / "golden" / "rows.json"


def entry(
    name: str, values: dict[str, float], families: dict[str, str], **kw: object
) -> EntryInput:
    base = EntryInput(
        entrant=name,
        display_name=name.upper(),
        run_id=f"20260101T000000Z-{name[:6]:0>6}",
        created_at="2026-01-01T00:00:00+00:00",
        cohort_key="cohort-1",
        fingerprint="fp-" + name,
        config={"model": name},
        task_set_hash="a" * 64,
        split="public",
        repeats=1,
        harness="0.1.0",
        status="complete",
        values=values,
        families=families,
        costs={t: 0.01 for t in values},
        latencies=tuple((t, 1.0) for t in values),
        counted=len(values),
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def triple() -> list[EntryInput]:
    ids = [f"t{i:03d}" for i in range(100)]
    solved = {
        "a": set(range(10)) | set(range(14, 24)) | set(range(28, 64)),
        "b": set(range(10, 14)) | set(range(14, 24)) | set(range(28, 64)),
        "c": set(range(10, 14)) | set(range(24, 28)) | set(range(28, 64)),
    }
    fams = dict.fromkeys(ids, "qa")
    return [entry(n, {t: float(i in solved[n]) for i, t in enumerate(ids)}, fams) for n in "abc"]


def test_non_transitive_triple_ranks() -> None:
    board = build_rows(triple(), inputs_hash="x", seed=7, B=4000)
    rows = board.cohorts[0].entries
    assert [(r.entrant, r.rank, r.rank_hi) for r in rows] == [
        ("a", 1, 2),
        ("b", 1, 3),
        ("c", 2, 3),
    ]


def test_identical_entrants_are_tied() -> None:
    ids = [f"t{i}" for i in range(40)]
    fams = dict.fromkeys(ids, "qa")
    vals = {t: float(i % 3 == 0) for i, t in enumerate(ids)}
    board = build_rows(
        [entry("x", vals, fams), entry("y", vals, fams)], inputs_hash="x", seed=1, B=500
    )
    assert [r.rank for r in board.cohorts[0].entries] == [1, 1]


def test_small_n_guard_ties_seven_of_eight() -> None:
    ids = [f"t{i}" for i in range(8)]
    fams = dict.fromkeys(ids, "qa")
    better = entry("p", {t: 1.0 if i < 7 else 0.0 for i, t in enumerate(ids)}, fams)
    worse = entry("q", {t: 0.0 if i < 7 else 1.0 for i, t in enumerate(ids)}, fams)
    # 7 wins / 1 loss: percentile interval excludes 0, but the sign-flip guard says tied
    board = build_rows([better, worse], inputs_hash="x", seed=1, B=2000)
    assert [r.rank for r in board.cohorts[0].entries] == [1, 1]
    all_win = entry("q", dict.fromkeys(ids, 0.0), fams)
    board = build_rows(
        [better, all_win, entry("r", dict.fromkeys(ids, 1.0), fams)],
        inputs_hash="x",
        seed=1,
        B=2000,
    )
    ranks = {r.entrant: r.rank for r in board.cohorts[0].entries}
    # r - q: 8/8 wins, p = 0.0078 -> beats; p - q: 7 wins, 1 draw -> beats; r - p: tied
    assert ranks == {"r": 1, "p": 1, "q": 3}


def test_stratified_headline_known_answers() -> None:
    fams = {"a1": "f", "a2": "f", "a3": "f", "a4": "f", "b1": "g", "b2": "g"}
    vals = {"a1": 1.0, "a2": 1.0, "a3": 1.0, "a4": 1.0, "b1": 0.0, "b2": 0.0}
    row = build_rows([entry("e", vals, fams)], inputs_hash="x", seed=1, B=500).cohorts[0].entries[0]
    assert row.headline is not None
    assert (row.headline.value, row.headline.lo, row.headline.hi) == (0.5, 0.5, 0.5)
    assert row.pooled == pytest.approx(4 / 6)
    f1, f2, f3 = [1, 0, 1, 0, 1, 0, 1, 1], [0.5, 0.25, 0.75, 1], [0, 0, 1]
    values = [*f1, *f2, *f3]
    labels = ["f1"] * 8 + ["f2"] * 4 + ["f3"] * 3
    ids = [f"t{i:02d}" for i in range(len(values))]
    task_values = dict(zip(ids, map(float, values), strict=True))
    e = entry("e", task_values, dict(zip(ids, labels, strict=True)))
    row = build_rows([e], inputs_hash="x", seed=1, B=10000).cohorts[0].entries[0]
    assert row.headline is not None
    assert row.headline.value == pytest.approx(0.5278, abs=1e-4)
    assert row.analytic_se == pytest.approx(0.117, abs=0.003)
    assert row.headline.lo < row.headline.value < row.headline.hi


def test_wilson_fallback_when_degenerate() -> None:
    ids = [f"t{i}" for i in range(50)]
    row = (
        build_rows(
            [entry("e", dict.fromkeys(ids, 1.0), dict.fromkeys(ids, "qa"))],
            inputs_hash="x",
            seed=1,
            B=100,
        )
        .cohorts[0]
        .entries[0]
    )
    assert row.headline is not None
    assert (round(row.headline.lo, 4), row.headline.hi) == (0.9287, 1.0)


def test_latest_run_not_best_and_cohorts_apart() -> None:
    ids = ["t1", "t2"]
    fams = dict.fromkeys(ids, "qa")
    old = entry(
        "e", dict.fromkeys(ids, 1.0), fams, created_at="2025-01-01T00:00:00+00:00", run_id="r-old"
    )
    new = entry(
        "e", dict.fromkeys(ids, 0.0), fams, created_at="2026-01-01T00:00:00+00:00", run_id="r-new"
    )
    other = entry("o", dict.fromkeys(ids, 1.0), fams, cohort_key="cohort-2")
    board = build_rows([new, other, old], inputs_hash="x", seed=1, B=100)
    assert [[r.run_id for r in c.entries] for c in board.cohorts] == [["r-new"], [other.run_id]]


def test_unmeasured_cost_listed_apart_not_plotted() -> None:
    ids = [f"t{i}" for i in range(10)]
    fams = dict.fromkeys(ids, "qa")
    a = entry("a", dict.fromkeys(ids, 1.0), fams, costs=None)
    b = entry("b", dict.fromkeys(ids, 0.5), fams)
    cohort = build_rows([a, b], inputs_hash="x", seed=1, B=100).cohorts[0]
    assert cohort.cost_not_measured == [a.key]
    assert cohort.cost_view == [b.key]
    row = {r.entrant: r for r in cohort.entries}["a"]
    assert row.cost_usd is None and row.frontier_probability is None


def test_three_d_frontier_known_answer() -> None:
    q = [0.5, 0.6, 0.55, 0.9, 0.6]
    cost = [1.0, 2.0, 3.0, 4.0, 2.5]
    p95 = [10.0, 30.0, 5.0, 60.0, 40.0]
    ids = [f"t{i}" for i in range(20)]
    fams = dict.fromkeys(ids, "qa")
    entries = [
        entry(
            f"e{k}",
            {t: q[k] for t in ids},  # constant values: point estimates, no resampling noise
            fams,
            costs={t: cost[k] / len(ids) for t in ids},
            latencies=tuple((t, p95[k]) for t in ids),
        )
        for k in range(5)
    ]
    cohort = build_rows(entries, inputs_hash="x", seed=1, B=200).cohorts[0]
    rows = {r.entrant: r for r in cohort.entries}
    assert sorted(k for k, r in rows.items() if r.on_frontier) == ["e0", "e1", "e2", "e3"]
    assert rows["e4"].dominated_95 and rows["e4"].frontier_probability == 0.0
    assert cohort.cost_view == ["e0/fp-e0", "e1/fp-e1", "e3/fp-e3"]
    assert cohort.latency_view == ["e2/fp-e2", "e1/fp-e1", "e3/fp-e3"]


def _five_entries() -> list[EntryInput]:
    return [
        *triple(),
        *(replace(e, entrant=e.entrant + "2", fingerprint="z") for e in triple()[:2]),
    ]


@functools.cache
def _five_rows() -> Board:
    """The rows of the five entries in their own order: the same for every example below (a
    build_rows that depended on anything but its inputs differs between examples too)."""
    return build_rows(_five_entries(), inputs_hash="x", seed=3, B=300)


@settings(max_examples=15, deadline=None)
@given(st.permutations(range(5)))
def test_shuffling_entrants_changes_no_rank_or_order(order: list[int]) -> None:
    entries = _five_entries()
    shuffled = build_rows([entries[i] for i in order], inputs_hash="x", seed=3, B=300)
    assert shuffled == _five_rows()


def test_golden_rows() -> None:
    board = build_rows(triple(), inputs_hash="golden", seed=11, B=1000, frontier_B=100)
    got = json.loads(board.model_dump_json())
    if os.environ.get("BENCH_UPDATE_GOLDEN") == "1":
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(got, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    assert got == json.loads(GOLDEN.read_text(encoding="utf-8")), (
        "rows changed: review, then BENCH_UPDATE_GOLDEN=1 pytest tests/board"
    )


def test_the_p95_point_is_numpys_inverted_cdf() -> None:
    import random
    import typing
    from types import SimpleNamespace

    import numpy as np

    from bench.board.entries import p95_point

    rng = random.Random(3)
    for n in [*range(1, 45), 299, 300, 1499, 1500]:
        values = [rng.choice([0.1, 0.2, 0.30000000000000004, rng.random()]) for _ in range(n)]
        entry: typing.Any = SimpleNamespace(latencies=[("t", v) for v in values])
        assert p95_point(entry) == float(np.percentile(values, 95, method="inverted_cdf")), n


def test_headlines_equal_at_the_shown_precision_sort_by_id() -> None:
    ids = [f"t{i:02d}" for i in range(40)]
    fams = dict.fromkeys(ids, "qa")
    base = {t: float(i % 3 == 0) for i, t in enumerate(ids)}
    higher = {**base, "t01": 0.01}  # +0.00025: both headlines print 0.350
    zed, abe = entry("zed", higher, fams), entry("abe", base, fams)
    rows = build_rows([zed, abe], inputs_hash="x", seed=1, B=500).cohorts[0].entries
    assert [r.rank for r in rows] == [1, 1]
    assert rows[0].headline is not None and rows[1].headline is not None
    assert f"{rows[0].headline.value:.3f}" == f"{rows[1].headline.value:.3f}"
    assert rows[1].headline.value > rows[0].headline.value  # abe first: the id decides
    assert [r.entrant for r in rows] == ["abe", "zed"]
    # one entrant, two configs: the run id breaks the tie
    twin = entry("abe", higher, fams, fingerprint="fp-a", run_id="20260101T000000Z-ffffff")
    rows = build_rows([twin, abe], inputs_hash="x", seed=1, B=500).cohorts[0].entries
    assert [r.run_id for r in rows] == [abe.run_id, twin.run_id]


def test_the_headline_is_the_runs_own_whatever_the_board_seed() -> None:
    from bench.stats import stratified_headline

    ids = [f"t{i:02d}" for i in range(40)]
    fams = {t: ("f" if i < 25 else "g") for i, t in enumerate(ids)}
    values = {t: float(i % 3 == 0) for i, t in enumerate(ids)}
    e = entry("e", values, fams, seed=7)
    own = stratified_headline(list(values.values()), list(fams.values()), seed=7)
    for board_seed in (1, 2):
        (row,) = build_rows([e], inputs_hash="x", seed=board_seed, B=300).cohorts[0].entries
        assert row.headline is not None
        got = (row.headline.value, row.headline.lo, row.headline.hi)
        assert got == (own.score.value, own.score.interval.lo, own.score.interval.hi)
    (other,) = build_rows([replace(e, seed=8)], inputs_hash="x", seed=1, B=300).cohorts[0].entries
    assert other.headline is not None and (other.headline.lo, other.headline.hi) != got[1:]


def test_reference_rows_are_listed_never_ranked_and_displace_nobody() -> None:
    ids = [f"t{i:02d}" for i in range(40)]
    fams = dict.fromkeys(ids, "qa")
    a = entry("a", {t: float(i % 2 == 0) for i, t in enumerate(ids)}, fams)
    b = entry("b", {t: float(i % 4 == 0) for i, t in enumerate(ids)}, fams)
    # a baseline that would beat both and sit on the frontier (cheaper, faster, better)
    ref = entry(
        "baseline-quote",
        {t: 0.9 + 0.1 * (i % 2) for i, t in enumerate(ids)},
        fams,
        reference="quote_top_passage",
        costs=dict.fromkeys(ids, 0.0),
        latencies=tuple((t, 0.1) for t in ids),
    )
    without = build_rows([a, b], inputs_hash="x", seed=1, B=500).cohorts[0]
    cohort = build_rows([ref, a, b], inputs_hash="x", seed=1, B=500).cohorts[0]
    rows = cohort.entries
    assert [r.entrant for r in rows] == ["a", "b", "baseline-quote"]
    mine = rows[-1]
    assert (mine.ranked, mine.rank, mine.rank_hi, mine.reference) == (
        False, None, None, "quote_top_passage")  # fmt: skip
    assert mine.headline is not None and mine.headline.value > 0.9
    assert mine.frontier_probability is None and not mine.on_frontier and not mine.dominated_95
    assert mine.families and mine.families[0].n == 40
    assert mine.key not in cohort.cost_view and mine.key not in cohort.latency_view
    assert [(r.rank, r.rank_hi, r.frontier_probability) for r in rows[:2]] == [
        (r.rank, r.rank_hi, r.frontier_probability) for r in without.entries
    ]
    assert cohort.cost_view == without.cost_view and cohort.ranked_on == without.ranked_on


def test_a_subset_cohort_says_so() -> None:
    ids = ["t1", "t2"]
    fams = dict.fromkeys(ids, "qa")
    part = entry("p", dict.fromkeys(ids, 1.0), fams, cohort_key="subset-key",
                 subset="subset: 2 of 86 public tasks")  # fmt: skip
    whole = entry("w", dict.fromkeys(ids, 0.5), fams)
    board = build_rows([part, whole], inputs_hash="x", seed=1, B=100)
    by_key = {c.cohort_key: c for c in board.cohorts}
    cohort = by_key["subset-key"]
    assert cohort.subset == "subset: 2 of 86 public tasks"
    assert cohort.title.startswith("public split (subset: 2 of 86 public tasks), ")
    assert cohort.entries[0].subset == "subset: 2 of 86 public tasks"
    assert by_key["cohort-1"].subset is None and by_key["cohort-1"].entries[0].subset is None
    assert "cohort subset-key: subset: 2 of 86 public tasks: these runs left out tasks" in (
        " ".join(board.warnings)
    )


def test_a_partial_run_is_listed_with_no_score_of_any_kind() -> None:
    """A partial run's means cover only what it did: a run whose failures were cut off and
    called partial would otherwise show 1.000 per axis and per language beside the others."""
    ids = [f"t{i}" for i in range(10)]
    fams = dict.fromkeys(ids, "qa")
    whole = entry("a", dict.fromkeys(ids, 0.5), fams, axes={"answer": 0.5})
    cut = entry(
        "b",
        dict.fromkeys(ids[:4], 1.0),
        fams,
        status="partial",
        axes={"answer": 1.0},
        languages={"en": (1.0, 4)},
    )
    rows = {r.entrant: r for r in build_rows([whole, cut], inputs_hash="x", seed=1, B=100)
            .cohorts[0].entries}  # fmt: skip
    assert rows["a"].ranked and rows["a"].axes == {"answer": 0.5}
    partial = rows["b"]
    assert not partial.ranked and partial.headline is None and partial.families == []
    assert partial.axes == {} and partial.languages == []


def test_rows_ranked_with_other_time_limits_or_budgets_are_named() -> None:
    """--timeout and task-budget overrides are in neither the fingerprint nor the cohort key,
    and verify cannot check the limit a run really had: the cohort names the rows that set
    their own, and says nothing when every row kept the tasks' own."""
    ids = [f"t{i}" for i in range(12)]
    fams = dict.fromkeys(ids, "qa")
    same = [entry(n, dict.fromkeys(ids, 0.5), fams) for n in ("a", "b")]
    assert not build_rows(same, inputs_hash="x", seed=1, B=50).warnings
    own = {"model": "c", "time_limit_s": 600.0, "task_budget": {"tokens": 9000}}
    loose = entry("c", dict.fromkeys(ids, 0.5), fams, config=own)
    warnings = " ".join(build_rows([*same, loose], inputs_hash="x", seed=1, B=50).warnings)
    assert "other attempt time limits than the rest" in warnings
    assert f"{loose.key}: 600 s" in warnings
    assert f"{loose.key}: tokens 9000" in warnings
    assert same[0].key not in warnings
