"""One rule for tokens, cost and latency on every surface that prints an attempt or a run:
unknown is "not measured", never 0. Was: ``bench show --task`` (and the Markdown and JUnit
reports' transcripts) printed ``tokens 0 prompt / 0 completion / 0 cached`` for an attempt
whose entrant reported no tokens, where the run summary above it said ``tokens not measured``
(and the board's transcript page says "not measured"); the Markdown report printed no latency;
``bench show --format json`` had no tokens."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from click.testing import CliRunner

from bench.cli.main import cli
from bench.reports.terminal import p95_text


def _bench(*args: str | Path) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.stderr
    return result.stdout


def _run(mini: Path, target: str) -> str:
    _bench(
        "run", "--tasks", mini / "tasks", "--target", mini / "targets" / f"{target}.yaml",
        "--runs-dir", mini / "runs", "--task", "qa-0001", "--task", "tool-0001",
    )  # fmt: skip
    return "latest"


def _usage_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if "model call(s)" in line]


def test_an_attempt_without_tokens_reads_not_measured_everywhere(mini: Path) -> None:
    runs = mini / "runs"
    _run(mini, "crashes")  # errored: no call answered, no tokens reported
    summary = _bench("show", "latest", "--runs-dir", runs)
    assert "tokens not measured" in summary
    shown = _bench("show", "latest", "--runs-dir", runs, "--task", "qa-0001")
    (line,) = _usage_lines(shown)
    assert line.startswith("tokens not measured   cost not measured   latency ")
    assert "0 prompt" not in shown
    markdown = _bench("report", "latest", "--runs-dir", runs, "--format", "markdown")
    assert _usage_lines(markdown)  # the failed tasks' transcripts
    assert all(ln.startswith("tokens not measured") for ln in _usage_lines(markdown))
    assert "0 prompt" not in markdown
    (head,) = [ln for ln in markdown.splitlines() if ln.startswith("- cost ")]
    assert "tokens not measured; p95 latency " in head
    junit = _bench("report", "latest", "--runs-dir", runs, "--format", "junit")
    assert "tokens not measured" in junit and "0 prompt" not in junit
    payload = json.loads(_bench("show", "latest", "--runs-dir", runs, "--format", "json"))
    assert (payload["tokens"], payload["tokens_note"]) == (None, "not measured")


def test_an_attempt_with_tokens_still_counts_them(mini: Path) -> None:
    runs = mini / "runs"
    _run(mini, "good")
    shown = _bench("show", "latest", "--runs-dir", runs, "--task", "qa-0001")
    (line,) = _usage_lines(shown)
    assert line.startswith("tokens 200 prompt / 40 completion / 0 cached   cost $0.000280")
    payload = json.loads(_bench("show", "latest", "--runs-dir", runs, "--format", "json"))
    assert payload["tokens"] == 600 and payload["tokens_note"] == "600"


def test_a_run_with_no_counted_attempt_has_no_p95() -> None:
    nothing: Any = SimpleNamespace(p95_latency_s=None, records=[])
    assert p95_text(nothing) == "not measured"  # was "n/a"
    unscored: Any = SimpleNamespace(p95_latency_s=None, records=[object()])
    assert p95_text(unscored) == "not measured (no attempt counts in the score)"
    few: Any = SimpleNamespace(p95_latency_s=1.5, records=[SimpleNamespace(outcome="scored")] * 3)
    assert p95_text(few) == "1.500s (the slowest of 3 attempt(s): fewer than 20)"
