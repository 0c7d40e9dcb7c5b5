"""The board against a submitter who games the ranking with honest-looking runs, and a reader
who checks what the page claims (docs/METHODOLOGY.md, "Ranks" and "Cost, latency and the
Pareto frontier")."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from board_synth import SynthRun, write_runs

from bench.board import EntryInput, build, build_rows

IDS = [f"t{i:02d}" for i in range(40)]
FAMS = {t: f"f{i % 2}" for i, t in enumerate(IDS)}


def entry(name: str, values: dict[str, float], **kw: Any) -> EntryInput:
    base = dict(
        entrant=name, display_name=name.upper(), run_id=f"20260101T000000Z-{name:0>6}",
        created_at="2026-01-01T00:00:00+00:00", cohort_key="cohort-1", fingerprint="fp-" + name,
        config={"model": name}, task_set_hash="a" * 64, split="public", repeats=1,
        harness="0.1.0", status="complete", values=values, families=FAMS,
        costs={t: 0.01 for t in values}, latencies=tuple((t, 1.0) for t in values),
        counted=len(values),
    )  # fmt: skip
    base.update(kw)
    return EntryInput(**base)  # type: ignore[arg-type]


def _strong_and_weak() -> list[EntryInput]:
    strong = entry("strong", dict.fromkeys(IDS, 1.0))
    halves = {t: float(i % 2) for i, t in enumerate(IDS)}
    weak = entry("weak", halves, costs=dict.fromkeys(IDS, 0.02))
    return [strong, weak]


def test_one_resample_shows_no_row_ahead_and_says_why() -> None:
    """Before: ``--resamples 1`` ranked weak 2nd 'certainly' and marked it dominated with 95 %
    confidence, both on a single resample."""
    cohort = build_rows(_strong_and_weak(), inputs_hash="x", seed=1, B=1, frontier_B=1).cohorts[0]
    rows = {r.entrant: r for r in cohort.entries}
    assert (rows["strong"].rank, rows["strong"].rank_hi) == (1, 2)
    assert (rows["weak"].rank, rows["weak"].rank_hi) == (1, 2)
    assert not rows["weak"].dominated_95
    notes = " ".join(cohort.warnings)
    assert "too few to tell rows apart (at least 200)" in notes
    assert "too few to mark a row dominated with 95% confidence (at least 100)" in notes


def test_enough_resamples_rank_and_mark_as_before() -> None:
    cohort = build_rows(_strong_and_weak(), inputs_hash="x", seed=1, B=200, frontier_B=100)
    rows = {r.entrant: r for r in cohort.cohorts[0].entries}
    assert (rows["strong"].rank, rows["weak"].rank) == (1, 2)
    assert rows["weak"].dominated_95
    assert not cohort.cohorts[0].warnings


def test_clones_push_a_rival_down_by_the_rows_that_beat_it_and_change_nothing_else() -> None:
    """Crowding: six copies of the leader under other entrant ids. Each certainly beats the
    weak row, so its printed rank falls by six (the documented rule: rows, not entrants); no
    decision between the original rows, no frontier mark and no tie changes."""
    rival = entry("rival", {t: 1.0 if i % 3 else 0.0 for i, t in enumerate(IDS)})
    alone = [*_strong_and_weak(), rival]
    clones = [entry(f"clone{k}", dict.fromkeys(IDS, 1.0)) for k in range(6)]
    alone_rows = build_rows(alone, inputs_hash="x", seed=1, B=500).cohorts[0].entries
    before = {r.entrant: r for r in alone_rows}
    crowded = build_rows([*alone, *clones], inputs_hash="x", seed=1, B=500).cohorts[0]
    after = {r.entrant: r for r in crowded.entries}
    assert after["strong"].rank == before["strong"].rank == 1
    for name in ("weak", "rival"):
        assert after[name].rank == before[name].rank + 6
        assert after[name].dominated_95 == before[name].dominated_95
        assert after[name].on_frontier == before[name].on_frontier
    assert all(after[f"clone{k}"].rank == 1 for k in range(6))


def _site(
    tmp_path: Path, specs: list[SynthRun], resamples: int, make_options: Callable[..., Any]
) -> dict[str, Any]:
    # the board tests' options through their fixture: ``from conftest import`` found another
    # directory's conftest.py first on some pytest-xdist workers
    _options = make_options
    write_runs(tmp_path / "runs", specs)
    out = tmp_path / "site"
    build(_options(tmp_path, out, submissions=None, repo_url=None, resamples=resamples,
                   frontier_resamples=resamples))  # fmt: skip
    page = (out / "index.html").read_text(encoding="utf-8")
    data = json.loads((out / "board.json").read_text(encoding="utf-8"))
    return {"page": page, **data}


def test_a_built_board_of_real_runs_on_one_resample_claims_no_order(
    tmp_path: Path, make_options: Callable[..., Any]
) -> None:
    (tmp_path / "runs").mkdir()
    specs = [
        SynthRun("strong", "Strong", {t: [1.0] for t in IDS}, FAMS),
        SynthRun("weak", "Weak", {t: [float(i % 2)] for i, t in enumerate(IDS)}, FAMS, cost=0.02),
    ]
    site = _site(tmp_path, specs, resamples=1, make_options=make_options)
    (cohort,) = site["cohorts"]
    assert [e["rank"] for e in cohort["entries"]] == [1, 1]
    assert not any(e["dominated_95"] for e in cohort["entries"])
    assert "too few to tell rows apart" in site["page"]


def test_a_cohort_of_ones_own_never_opens_the_board_or_claims_rank_one() -> None:
    """Cohort shopping (found by the fifth cheat round): a weak run made with another number
    of repeats (or on a chosen subset) forms a cohort of its own. Listed by key (a hash), 15
    of the repeat counts 1-20 put that cohort first on the page, its one row shown "rank 1"
    above every shipped entry. Now the cohort with most ranked rows comes first, and a row
    alone in its cohort is said to be compared with no one."""
    from bench.board.rows import ALONE

    crowd = [*_strong_and_weak(), entry("third", {t: 0.5 for t in IDS})]
    for key in ("0" * 16, "f" * 16):  # sorting before and after the crowd's key
        shopper = entry("shopper", dict.fromkeys(IDS, 0.1), cohort_key=key, repeats=2)
        board = build_rows([shopper, *crowd], inputs_hash="x", seed=1, B=200)
        first, second = board.cohorts
        assert first.cohort_key == "cohort-1" and len(first.entries) == 3
        assert [r.entrant for r in second.entries] == ["shopper"]
        assert ALONE in second.warnings and ALONE not in first.warnings


def test_whole_split_cohorts_come_before_subsets_of_as_many_rows() -> None:
    whole = [entry(n, dict.fromkeys(IDS, 0.5)) for n in ("a1", "a2")]
    subset = [
        entry(n, dict.fromkeys(IDS[:10], 0.9), cohort_key="0" * 16, subset="subset abc")
        for n in ("b1", "b2")
    ]
    board = build_rows([*subset, *whole], inputs_hash="x", seed=1, B=200)
    assert [c.cohort_key for c in board.cohorts] == ["cohort-1", "0" * 16]


def test_the_page_shows_a_lone_row_as_alone_not_rank_one(
    tmp_path: Path, make_options: Callable[..., Any]
) -> None:
    (tmp_path / "runs").mkdir()
    specs = [
        SynthRun("strong", "Strong", {t: [1.0] for t in IDS}, FAMS),
        SynthRun("weak", "Weak", {t: [float(i % 2)] for i, t in enumerate(IDS)}, FAMS),
        SynthRun("shopper", "Shopper", {t: [0.0, 0.0] for t in IDS}, FAMS),  # 2 repeats
    ]
    site = _site(tmp_path, specs, resamples=200, make_options=make_options)
    first, second = site["cohorts"]
    assert {e["entrant"] for e in first["entries"]} == {"strong", "weak"}
    assert [e["entrant"] for e in second["entries"]] == ["shopper"]
    page = site["page"]
    lone = page[page.index(f'data-cohort="{second["cohort_key"]}"') :]
    assert '<span aria-hidden="true" title="the only ranked entry of its cohort' in lone
    assert "not compared: the only ranked entry of its cohort" in lone
    assert page.index(f'data-cohort="{first["cohort_key"]}"') < page.index(
        f'data-cohort="{second["cohort_key"]}"'
    )
