"""numpy's default generator, draw for draw, in plain Python: ``Draws(seed).integers(n, count)``
returns exactly what ``numpy.random.default_rng(seed).integers(0, n, size=count)`` returns, and
successive calls continue the stream as successive numpy calls do.

Why: a run's summary draws the resample matrix of one entrant (``bootstrap.py``) and, for a
run of ordinary size, computes its interval without importing numpy (15 MiB of a run's memory,
docs/PERFORMANCE.md, issue 19); the board draws the same matrix with numpy. The pieces, as
numpy 1.17+ defines them (the stream is part of numpy's compatibility policy for a seeded
``Generator`` only through ``integers``' algorithm, so a test holds the two equal on every
install):

* ``SeedSequence(seed).generate_state(4, uint64)``: the seed's 32-bit words hashed into a pool
  of four words, mixed, and read out through a second hash;
* ``PCG64``: a 128-bit LCG (``state * MULT + inc``) whose output is XSL-RR, seeded as
  ``pcg_setseq_128_srandom_r`` does; ``next_uint32`` hands out the low half of a 64-bit output
  and keeps the high half for the next call, across calls;
* ``integers(0, n)`` for ``n <= 2**32``: Lemire's multiply-and-reject on 32-bit draws
  (``buffered_bounded_lemire_uint32``); ``n == 1`` draws nothing.

The stdlib only: no numpy here.
"""

from __future__ import annotations

import operator

_M32 = 0xFFFF_FFFF
_M64 = (1 << 64) - 1
_M128 = (1 << 128) - 1
_MULT = (2549297995355413924 << 64) + 4865540595714422341

# SeedSequence's constants (numpy.random.bit_generator).
_INIT_A = 0x43B0D7E5
_MULT_A = 0x931E8875
_INIT_B = 0x8B51F9DD
_MULT_B = 0x58F38DED
_MIX_MULT_L = 0xCA01F9DD
_MIX_MULT_R = 0x4973F715
_XSHIFT = 16
_POOL_SIZE = 4


def _words(value: int) -> list[int]:
    """A non-negative integer as 32-bit words, least significant first ([0] for 0)."""
    words = []
    while True:
        words.append(value & _M32)
        value >>= 32
        if not value:
            return words


def seed_state(seed: int, words64: int = 4) -> list[int]:
    """``numpy.random.SeedSequence(seed).generate_state(words64, numpy.uint64)``."""
    seed = operator.index(seed)
    if seed < 0:
        raise ValueError(f"a seed must be a non-negative integer, got {seed}")
    entropy = _words(seed)
    entropy += [0] * max(0, _POOL_SIZE - len(entropy))
    hash_const = _INIT_A

    def hashmix(value: int) -> int:
        nonlocal hash_const
        value = (value ^ hash_const) & _M32
        hash_const = (hash_const * _MULT_A) & _M32
        value = (value * hash_const) & _M32
        return value ^ (value >> _XSHIFT)

    def mix(x: int, y: int) -> int:
        result = ((_MIX_MULT_L * x) & _M32) - ((_MIX_MULT_R * y) & _M32)
        result &= _M32
        return result ^ (result >> _XSHIFT)

    pool = [hashmix(entropy[i]) for i in range(_POOL_SIZE)]
    for source in range(_POOL_SIZE):
        for target in range(_POOL_SIZE):
            if source != target:
                pool[target] = mix(pool[target], hashmix(pool[source]))
    for source in range(_POOL_SIZE, len(entropy)):
        for target in range(_POOL_SIZE):
            pool[target] = mix(pool[target], hashmix(entropy[source]))
    out = []
    hash_const = _INIT_B
    for i in range(2 * words64):
        value = pool[i % _POOL_SIZE] ^ hash_const
        hash_const = (hash_const * _MULT_B) & _M32
        value = (value * hash_const) & _M32
        out.append(value ^ (value >> _XSHIFT))
    return [out[2 * i] | (out[2 * i + 1] << 32) for i in range(words64)]


class Draws:
    """``numpy.random.default_rng(seed)``'s stream of ``integers(0, n)`` draws."""

    def __init__(self, seed: int) -> None:
        words = seed_state(seed)
        initstate = (words[0] << 64) | words[1]
        initseq = (words[2] << 64) | words[3]
        self._inc = ((initseq << 1) | 1) & _M128
        state = (self._inc) & _M128  # 0 * MULT + inc
        state = (state + initstate) & _M128
        self._state = (state * _MULT + self._inc) & _M128
        self._has_half = False
        self._half = 0

    def next64(self) -> int:
        """``PCG64.random_raw()``: the next 64-bit output."""
        self._state = state = (self._state * _MULT + self._inc) & _M128
        high = state >> 64
        word = (high ^ state) & _M64
        turn = high >> 58
        return ((word >> turn) | (word << ((64 - turn) & 63))) & _M64

    def integers(self, n: int, count: int) -> list[int]:
        """``count`` draws uniform on ``0 .. n-1`` (``1 <= n <= 2**32``), as numpy's
        ``Generator.integers(0, n, size=count)`` draws them."""
        n, count = operator.index(n), operator.index(count)
        if not 1 <= n <= 1 << 32:
            raise ValueError(f"n must be between 1 and 2**32, got {n}")
        if n == 1:
            return [0] * count
        threshold = ((1 << 32) - n) % n
        state, inc, has_half, half = self._state, self._inc, self._has_half, self._half
        mult, m32, m64, m128 = _MULT, _M32, _M64, _M128
        out: list[int] = []
        append = out.append
        for _ in range(count):
            while True:  # Lemire's method: a draw below the threshold (rare) is drawn again
                if has_half:
                    has_half = False
                    product = half * n
                else:
                    state = (state * mult + inc) & m128
                    high = state >> 64
                    word = (high ^ state) & m64
                    turn = high >> 58
                    raw = ((word >> turn) | (word << ((64 - turn) & 63))) & m64
                    product = (raw & m32) * n
                    half = raw >> 32
                    has_half = True
                if (product & m32) >= threshold:
                    break
            append(product >> 32)
        self._state, self._has_half, self._half = state, has_half, half
        return out


__all__ = ["Draws", "seed_state"]
