"""``bench.stats.draws`` is numpy's default generator, draw for draw, without numpy."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.stats.draws import Draws, seed_state

SEEDS = st.one_of(st.integers(0, 2**32 - 1), st.integers(0, 2**200), st.sampled_from([0, 1]))
BOUNDS = st.one_of(st.integers(1, 400), st.integers(1, 2**32), st.sampled_from([1, 2, 2**32]))


@settings(max_examples=200, deadline=None)
@given(seed=SEEDS)
def test_seed_state_is_seedsequences(seed: int) -> None:
    expected = np.random.SeedSequence(seed).generate_state(4, np.uint64)
    assert seed_state(seed) == [int(v) for v in expected]
    assert Draws(seed).next64() == int(np.random.PCG64(seed).random_raw())


@settings(max_examples=200, deadline=None)
@given(seed=SEEDS, calls=st.lists(st.tuples(BOUNDS, st.integers(0, 41)), min_size=1, max_size=6))
def test_integers_continue_the_stream_as_numpy_does(
    seed: int, calls: list[tuple[int, int]]
) -> None:
    # successive calls of odd length: numpy keeps the unused half of a 64-bit output
    rng = np.random.default_rng(seed)
    draws = Draws(seed)
    for n, count in calls:
        assert draws.integers(n, count) == rng.integers(0, n, size=count).tolist(), (n, count)


def test_a_long_stream_of_resample_sized_calls() -> None:
    rng = np.random.default_rng(20261202)
    draws = Draws(20261202)
    for n in (80, 12, 16, 32, 1, 16, 16):
        assert draws.integers(n, 2000 * n) == rng.integers(0, n, size=(2000, n)).ravel().tolist()


def test_bad_bounds_are_refused() -> None:
    import pytest

    with pytest.raises(ValueError):
        Draws(1).integers(0, 3)
    with pytest.raises(ValueError):
        Draws(1).integers(2**32 + 1, 3)
    with pytest.raises(ValueError):
        seed_state(-1)
