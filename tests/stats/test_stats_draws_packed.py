"""The block path's packed pieces (``stats.draws``, docs/PERFORMANCE.md issue 19): the output's
rotation taken on a whole block at once is XSL-RR's rotation of each output, and a call's first
block of states made by doubling jumps is the LCG stepped one state at a time."""

from __future__ import annotations

import random
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.stats import draws as draws_module
from bench.stats.draws import Draws

_M64 = (1 << 64) - 1


def _one_by_one(words: list[int], turns: bytes) -> bytes:
    return array(
        "Q", [(w >> t | w << 64 - t) & _M64 for w, t in zip(words, turns, strict=True)]
    ).tobytes()


def _packed(words: list[int]) -> int:
    return int.from_bytes(array("Q", words).tobytes(), "little")


@pytest.mark.parametrize("k", [1, 2, 7, 1023, 1024])
def test_a_block_rotated_at_once_is_each_output_rotated(k: int) -> None:
    rng = random.Random(k)
    # every turn, and words with their top, bottom or no bits set, in every slot position
    words = [rng.choice([rng.getrandbits(64), _M64, 1, 1 << 63, 0]) for _ in range(k)]
    turns = bytes(i % 64 for i in range(k)) if k >= 64 else rng.randbytes(k)
    turns = bytes(t & 63 for t in turns)
    assert draws_module._rotate(_packed(words), turns) == _one_by_one(words, turns)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, _M64), st.integers(0, 63)), min_size=1, max_size=300))
def test_any_block_rotated_at_once_is_each_output_rotated(pairs: list[tuple[int, int]]) -> None:
    words = [w for w, _ in pairs]
    turns = bytes(t for _, t in pairs)
    assert draws_module._rotate(_packed(words), turns) == _one_by_one(words, turns)


@pytest.mark.parametrize("count", [1, 2, 3, 4, 5, 511, 512, 513, 1023, 1024])
def test_the_first_states_by_doubling_are_the_states_stepped_one_by_one(count: int) -> None:
    draws = Draws(20261207)
    draws.next64()  # any state, not only the seeded one
    before = draws._state
    made = draws._first_states(count)
    assert draws._state == before  # the state is moved by whoever reads the outputs
    stepped = []
    state = before
    for _ in range(count):
        state = (state * draws_module._MULT + draws._inc) & ((1 << 128) - 1)
        stepped.append(state.to_bytes(draws_module._SLOT, "little"))
    assert made == b"".join(stepped)
