"""Every ``bench`` command runs with the collector tuned for a batch process (DECISIONS.md, 43)."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator

import pytest

from bench.cli.main import COLLECTOR_THRESHOLDS, main


@pytest.fixture
def thresholds() -> Iterator[None]:
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def test_a_command_collects_cycles_less_often(thresholds: None) -> None:
    main(["--version"])
    assert gc.get_threshold() == COLLECTOR_THRESHOLDS


def test_the_thresholds_leave_the_young_generation_far_less_often_than_the_default() -> None:
    young, middle, old = COLLECTOR_THRESHOLDS
    assert young >= 50 * 700 and middle >= 10 and old >= 10


def test_a_forked_worker_inherits_them() -> None:
    code = (
        "import gc, multiprocessing as mp\n"
        "from bench.cli.main import tune_collector\n"
        "tune_collector()\n"
        "with mp.get_context('fork').Pool(1) as pool:\n"
        "    print(pool.apply(gc.get_threshold))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(COLLECTOR_THRESHOLDS)
