"""``Draws.integers`` on its block path (long calls, docs/PERFORMANCE.md issue 19) is numpy's
generator draw for draw, as the loop is: across block boundaries, with a half of a 64-bit
output carried in and out, and when a rejected draw sends the call back to the loop."""

from __future__ import annotations

from collections.abc import Generator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.stats import draws as draws_module
from bench.stats.draws import FAST_COUNT, Draws


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = Draws._raw_bytes

    def counted(self: Draws, steps: int) -> Generator[bytes, None, None]:
        calls.append(steps)
        return real(self, steps)

    monkeypatch.setattr(Draws, "_raw_bytes", counted)
    return calls


def test_resample_sized_calls_take_the_block_path_and_draw_what_numpy_draws(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = _counting(monkeypatch)
    rng = np.random.default_rng(20261202)
    draws = Draws(20261202)
    # 3 draws first: a half is carried into the next call; odd counts carry one out again
    for n, count in ((7, 3), (80, 160_000), (12, 24_001), (2**32, FAST_COUNT), (16, 32_000)):
        assert draws.integers(n, count) == rng.integers(0, n, size=count).tolist(), (n, count)
    assert calls == [80_000, 12_000, 2_048, 16_000]  # 160,000 draws cross 78 blocks


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**64),
    calls=st.lists(
        st.tuples(st.integers(2, 5_000), st.integers(FAST_COUNT - 3, 3 * FAST_COUNT)),
        min_size=1,
        max_size=3,
    ),
    first=st.integers(0, 3),
)
def test_long_calls_continue_the_stream_as_numpy_does(
    seed: int, calls: list[tuple[int, int]], first: int
) -> None:
    rng = np.random.default_rng(seed)
    draws = Draws(seed)
    assert draws.integers(9, first) == rng.integers(0, 9, size=first).tolist()
    for n, count in calls:
        assert draws.integers(n, count) == rng.integers(0, n, size=count).tolist(), (n, count)
    assert draws.integers(5, 3) == rng.integers(0, 5, size=3).tolist()


def test_a_rejected_draw_sends_the_call_back_to_the_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # n just above 2**31: about a third of all draws are rejected, so the block path's
    # first try fails and the loop draws (and rejects) as numpy does
    monkeypatch.setattr(draws_module, "REJECTION_BUDGET", 1 << 80)
    calls = _counting(monkeypatch)
    n = 2**31 + 12_345
    rng = np.random.default_rng(7)
    draws = Draws(7)
    assert draws.integers(3, 1) == rng.integers(0, 3, size=1).tolist()
    assert draws.integers(n, FAST_COUNT) == rng.integers(0, n, size=FAST_COUNT).tolist()
    assert calls == [FAST_COUNT // 2]  # tried once, then the loop
    assert draws.integers(80, FAST_COUNT + 1) == rng.integers(0, 80, size=FAST_COUNT + 1).tolist()
    assert len(calls) == 2
