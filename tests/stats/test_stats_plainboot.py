"""The plain-Python bootstrap-t of one entrant agrees with the numpy one (the board's
``studentized_bounds`` on ``resample_matrix``) to rounding, and a run's summary imports no numpy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.stats import stratified_headline
from bench.stats.headline import _numpy_studentized
from bench.stats.plainboot import PLAIN_DRAWS, plain_columns, plain_studentized, quantile

VALUES = st.sampled_from([0.0, 1.0, 0.5, 0.25, 0.2, 0.8, 1 / 3, 0.125])


@st.composite
def task_sets(draw: st.DrawFn) -> tuple[list[float], list[str]]:
    n = draw(st.integers(2, 60))
    families = draw(st.lists(st.sampled_from("abcde"), min_size=n, max_size=n))
    values = draw(st.lists(VALUES, min_size=n, max_size=n))
    return values, families


@settings(max_examples=150, deadline=None)
@given(
    tasks=task_sets(),
    B=st.sampled_from([1, 2, 3, 40, 301]),
    seed=st.integers(0, 2**40),
    level=st.sampled_from([0.8, 0.9, 0.95, 0.99]),
)
def test_plain_and_numpy_agree_to_rounding(
    tasks: tuple[list[float], list[str]], B: int, seed: int, level: float
) -> None:
    values, families = tasks
    plain = plain_studentized(values, plain_columns(families), B, seed, level)
    numpy = _numpy_studentized(values, families, B, seed, level)
    assert plain == pytest.approx(numpy, rel=0, abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(st.floats(-20, 20, allow_nan=False), min_size=1, max_size=50),
    q=st.floats(0, 1),
)
def test_quantile_is_numpys_linear_quantile_to_the_bit(values: list[float], q: float) -> None:
    ordered = sorted(values)
    assert quantile(ordered, q) == float(np.quantile(np.asarray(values), q))


def test_the_headline_takes_the_plain_path_only_below_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bench.stats import headline

    families = ["a", "b", "c"] * 20
    values = [0.0, 0.5, 1.0, 1.0] * 15
    seen: list[str] = []
    plain, numpy = headline.plain_studentized, headline._numpy_studentized

    def seen_plain(*args: object) -> object:
        seen.append("plain")
        return plain(*args)  # type: ignore[arg-type]

    def seen_numpy(*args: object) -> object:
        seen.append("numpy")
        return numpy(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(headline, "plain_studentized", seen_plain)
    monkeypatch.setattr(headline, "_numpy_studentized", seen_numpy)
    small = stratified_headline(values, families, B=PLAIN_DRAWS // 60)
    large = stratified_headline(values, families, B=PLAIN_DRAWS // 60 + 1)
    assert seen == ["plain", "numpy"]
    assert small.score.interval.method == large.score.interval.method.replace(
        f"B={PLAIN_DRAWS // 60 + 1}", f"B={PLAIN_DRAWS // 60}"
    )


def test_a_runs_summary_imports_no_numpy(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    code = f"""
import sys
from pathlib import Path
from bench.runner import NullProgress, RunRequest, start_run
from bench.runner.progress import KeepRecords
from bench.reports.summary import summarize
from bench.reports.terminal import render_summary
root = Path({str(root)!r})
request = RunRequest(
    tasks=root / "tasks", target_file=root / "examples/targets/support-bot-v1.yaml",
    corpus_root=root / "corpora", runs_dir=Path({str(tmp_path)!r}), repeats=2,
)
kept = KeepRecords(NullProgress())
run, _ = start_run(request, kept)
summary = summarize(run, records=kept.records)
assert summary.headline is not None and summary.headline.bootstrap_se > 0
render_summary(summary)
print(sorted(m for m in ("numpy", "scipy") if m in sys.modules))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize(
    ("values", "families", "B", "seed", "level"),
    [
        # A resample with no spread whose headline is the headline: rounding gave its gap a
        # sign in one path and not the other, and the upper bound was 0.730 or 0.766.
        ([0.2, 0.0, 0.5, 0.5, 0.5, 0.5, 1.0, 0.5, 0.2, 0.0], list("dbbdabaccb"), 2000,
         406344432, 0.95),
        ([0.5, 0.0, 0.2, 1.0, 0.0, 0.2], list("ccdcab"), 2, 0, 0.8),
    ],
)  # fmt: skip
def test_a_resample_at_the_headline_gets_pivot_zero_in_both_paths(
    values: list[float], families: list[str], B: int, seed: int, level: float
) -> None:
    plain = plain_studentized(values, plain_columns(families), B, seed, level)
    numpy = _numpy_studentized(values, families, B, seed, level)
    assert plain == pytest.approx(numpy, rel=0, abs=1e-12)
