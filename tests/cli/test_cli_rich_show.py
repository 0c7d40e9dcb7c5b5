"""On a terminal `bench show` prints the failures as a table with the same sentences."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from bench.cli.rich_show import print_show
from bench.reports import summarize
from bench.runner import RunRequest, start_run


def test_the_table_carries_the_same_failures(mini: Path) -> None:
    run, _ = start_run(
        RunRequest(
            tasks=mini / "tasks",
            target_file=mini / "targets" / "crashes_on_refunds.yaml",
            runs_dir=mini / "runs",
            split="public",
        )
    )
    buffer = io.StringIO()
    print_show(summarize(run), Console(file=buffer, width=160, force_terminal=False))
    text = buffer.getvalue()
    assert "failed tasks (1)" in text
    assert "tool-0001" in text
    assert "1/1 repeats: errored: ENTRANT_EXCEPTION: ValueError: cannot handle refunds" in text
    assert "score 0.500" in text
