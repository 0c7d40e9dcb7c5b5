"""The progress bar `bench run` draws on a terminal, at the width most terminals open with."""

from __future__ import annotations

import re

import pytest

from bench.cli.progress import BarProgress


def test_an_80_column_bar_cuts_the_task_name_not_the_count_or_the_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    bar = BarProgress()
    bar.started("20261206T220636Z-3443df", 172, 0)
    for done in range(28):
        bar._progress.update(bar._task, completed=done + 1)
    bar.skipped("gqa-pub-subscription-refund", 1, "budget")
    console = bar._progress.console
    assert console.width == 80
    with console.capture() as captured:
        console.print(bar._progress.make_tasks_table(bar._progress.tasks))
    [line] = captured.get().splitlines()
    assert len(line) <= 80
    assert " 28/172 " in line and re.search(r" (\d+:\d\d:\d\d|-:--:--)$", line.rstrip())
    assert "gqa-pub-subscrip" in line
