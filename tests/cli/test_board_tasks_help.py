"""`bench board build --help` says where the task view's prompts come from: `--tasks` (was: only
that bundles are verified against it, so a reader whose view said "no prompts" had no lead)."""

from __future__ import annotations

from click.testing import CliRunner

from bench.cli.main import cli


def test_the_tasks_option_says_the_task_views_prompts_come_from_it() -> None:
    result = CliRunner().invoke(cli, ["board", "build", "--help"], terminal_width=400)
    assert result.exit_code == 0, result.output
    [line] = [line for line in result.output.splitlines() if line.lstrip().startswith("--tasks")]
    text = " ".join(line.split())
    assert "the task view's prompts come from" in text, text
    assert "without prompts" in text, text
