"""``bench compare``: paired difference, flipped tasks, comparability, --fail-on-regression."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from bench.records import RunDir
from bench.reports import compare_runs, summarize

Invoke = Callable[..., tuple[int, str, str]]


def test_v1_against_v2_shows_the_planted_regressions(
    example_runs: dict[str, RunDir],
    tmp_path: Path,
    invoke: Invoke,
    copier: Callable[..., dict[str, RunDir]],
) -> None:
    runs = copier(example_runs, tmp_path / "runs")
    result = compare_runs(summarize(runs["v1"]), summarize(runs["v2"]))
    assert [t.task_id for t in result.regressed] == ["gqa-0001", "gqa-0003", "tool-0001"]
    assert result.fixed == [] and result.changed == []
    assert result.comparable and result.shared_tasks == 6
    assert result.difference is not None and round(result.difference, 4) == -0.2325
    assert result.p_value is not None and result.p_value >= 0.05
    assert result.verdict == "not significant"
    assert [(d.field, d.first, d.second) for d in result.differences] == [
        ("target.model", "example-support-bot-v1", "example-support-bot-v2")
    ]
    assert result.regressed[2].sentences[0].startswith("1/1 repeats: missing required tool(s)")
    code, out, _ = invoke(
        "compare", runs["v1"].run_id, runs["v2"].run_id, "--runs-dir", tmp_path / "runs",
        "--fail-on-regression",
    )  # fmt: skip
    assert code == 0
    # the interval excludes 0, so the verdict line must say which test decided and why
    assert result.hi is not None and result.hi < 0
    assert (
        "verdict: not significant (exact sign-flip test, p = 0.2500 ≥ 0.05; "
        "below 30 shared tasks the interval does not decide)\n"
    ) in out
    assert "passed in first, failed in second (3):" in out
    assert "  gqa-0001  1.000 → 0.500" in out
    assert "  gqa-0003  1.000 → 0.000" in out
    assert "  tool-0001  1.000 → 0.640" in out
    assert "exact sign-flip test, p = 0.2500" in out
    assert "    - 1/1 repeats: did not cite faq.md#refunds;" in out
    assert "  target.model: example-support-bot-v1 → example-support-bot-v2" in out
    code, out, _ = invoke(
        "compare", runs["v1"].run_id, runs["v2"].run_id, "--runs-dir", tmp_path / "runs",
        "--format", "json",
    )  # fmt: skip
    payload = json.loads(out)
    assert payload["format_version"] == 1 and payload["verdict"] == "not significant"
    assert payload["decided_by"].startswith("exact sign-flip test, p = 0.2500 ≥ 0.05")
    assert [t["task_id"] for t in payload["regressed"]] == ["gqa-0001", "gqa-0003", "tool-0001"]


def test_mini_compare_keeps_the_old_lines(mini_runs: dict[str, RunDir], mini: Path,
                                          invoke: Invoke) -> None:  # fmt: skip
    good, bad = mini_runs["good"], mini_runs["crashes_on_refunds"]
    code, out, _ = invoke("compare", good.run_id, bad.run_id, "--runs-dir", mini / "runs")
    assert code == 0
    assert "difference (second − first): -0.500 [" in out
    assert "  tool-0001  1.000 → 0.000" in out
    assert "    - 1/1 repeats: errored: ENTRANT_EXCEPTION: ValueError: cannot handle refunds" in out
    assert "exact sign-flip test, p = 1.0000" in out


def test_significant_drop_fails_only_when_comparable(
    mini_runs: dict[str, RunDir], mini: Path, invoke: Invoke, synth: Callable[..., RunDir]
) -> None:
    runs = mini / "runs"
    template = mini_runs["good"]
    a = synth(template, runs, "20260101T000000Z-aaaaaa", "ent-a", [1.0] * 40)
    b = synth(template, runs, "20260101T000001Z-bbbbbb", "ent-b", [1.0] * 28 + [0.0] * 12)
    code, out, _ = invoke("compare", a.run_id, b.run_id, "--runs-dir", runs, "--fail-on-regression")
    assert code == 1
    assert "difference (second − first): -0.300 [" in out
    assert "verdict: regression (the 95% bootstrap interval excludes 0)\n" in out
    assert "passed in first, failed in second (12):" in out
    code, out, _ = invoke("compare", b.run_id, a.run_id, "--runs-dir", runs, "--fail-on-regression")
    assert code == 0 and "verdict: improvement" in out
    # the same drop against a run of another task set is not comparable, never a regression
    result = compare_runs(summarize(a), summarize(mini_runs["crashes_on_refunds"]))
    assert not result.comparable and result.shared_tasks == 0
    assert result.verdict == "no shared tasks"
    config = json.loads((b.path / "config.json").read_text())
    config["repeats"] = 3
    (b.path / "config.json").write_text(json.dumps(config))
    result = compare_runs(summarize(a), summarize(b))
    assert result.significant and not result.comparable
    assert result.verdict == "not comparable"
    assert ("repeats", "1", "3") in [(d.field, d.first, d.second) for d in result.differences]
    code, out, _ = invoke("compare", a.run_id, b.run_id, "--runs-dir", runs, "--fail-on-regression")
    assert code == 0 and "NOT COMPARABLE" in out
    assert "verdict: not comparable (different cohorts, whatever the test says; the 95%" in out
