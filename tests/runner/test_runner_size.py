"""`bench run` says early when its records will not fit in a bundle (runner/size.py): a
verbose entrant learnt that from `bench bundle` after the whole run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.runner import RunRequest, resume_run, start_run
from bench.runner import size as size_module
from bench.runner.size import MIN_SEEN, SizeWatch


def request(mini: Path, said: list[str], **changes: Any) -> RunRequest:
    values: dict[str, Any] = {
        "tasks": mini / "tasks",
        "target_file": mini / "targets" / "good.yaml",
        "runs_dir": mini / "runs",
        "split": "public",
        "repeats": 3,
        "concurrency": 4,
        "on_notice": said.append,
    }
    values.update(changes)
    return RunRequest(**values)


def limits(monkeypatch: pytest.MonkeyPatch, file_bytes: int, line_bytes: int) -> None:
    monkeypatch.setattr(size_module, "MAX_FILE_BYTES", file_bytes)
    monkeypatch.setattr(size_module, "MAX_LINE_BYTES", line_bytes)


def test_a_projection_past_the_limit_is_said_once_after_enough_attempts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    limits(monkeypatch, file_bytes=100_000, line_bytes=10_000_000)
    watch = SizeWatch(total=100)
    said = [text for n in range(MIN_SEEN - 1) for text in watch.add("t", n, ["x" * 2_000])]
    assert said == []  # 9 attempts are not yet the run's average
    said = watch.add("t", 9, ["x" * 2_000])
    assert len(said) == 1 and "about 2 MiB" not in said[0]
    assert "this run's 100 attempts will record about 0 MiB" in said[0]
    assert "BUNDLE_TOO_LARGE" in said[0] and "--shard" in said[0]
    assert [t for n in range(10, 49) for t in watch.add("t", n, ["x" * 2_000])] == []
    # past the limit itself: said once more, as a certainty
    over = [t for n in range(49, 60) for t in watch.add("t", n, ["x" * 2_000])]
    assert len(over) == 1 and over[0].startswith("this run has recorded")


def test_a_run_that_fits_is_told_nothing() -> None:
    watch = SizeWatch(total=860)
    assert [t for n in range(860) for t in watch.add("t", n, ["x" * 20_000] * 3)] == []


def test_one_attempt_past_a_bundle_line_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    limits(monkeypatch, file_bytes=10**9, line_bytes=5_000)
    watch = SizeWatch(total=3)
    assert watch.add("qa-1", 0, ["x" * 3_000]) == []
    said = watch.add("qa-1", 1, ["x" * 3_000, "y" * 3_000])
    assert len(said) == 1 and said[0].startswith("attempt qa-1#1 recorded")


def test_a_run_says_it_while_it_runs_and_a_resume_counts_what_was_written(
    mini: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    said: list[str] = []
    run, status = start_run(request(mini, said))
    assert status.status == "complete" and said == []  # the real limits: the run fits
    written = sum(len(e.model_dump_json()) for r in run.attempts() for e in r.trace.exchanges)
    # a limit the run passes: said during the run, once, with the run going on to the end
    limits(monkeypatch, file_bytes=written // 2, line_bytes=10**9)
    run, status = start_run(request(mini, said, runs_dir=mini / "runs2"))
    assert status.status == "complete"
    assert len(said) == 1 and "BUNDLE_TOO_LARGE" in said[0]
    # a resume counts the attempts of the earlier session too
    for file in sorted((run.path / "attempts").glob("*.json"))[-2:]:
        file.unlink()
    run.write_status(
        run.status().model_copy(update={"status": "started", "attempts_done": len(run.attempts())})
    )
    said.clear()
    _, status = resume_run(run.run_id, request(mini, said, runs_dir=mini / "runs2"))
    assert status.status == "complete"
    assert len(said) == 1 and said[0].startswith("this run has recorded")


def test_bench_run_prints_it_on_stderr_and_keeps_stdout_for_the_summary(
    mini: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from bench.cli.main import cli

    limits(monkeypatch, file_bytes=10**9, line_bytes=100)
    args = ["run", "--tasks", str(mini / "tasks"), "--target", str(mini / "targets" / "good.yaml")]
    args += ["--runs-dir", str(mini / "runs"), "--split", "public", "--task", "qa-0001"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "attempt qa-0001#0 recorded" in result.stderr
    assert "BUNDLE_TOO_LARGE" not in result.stdout
