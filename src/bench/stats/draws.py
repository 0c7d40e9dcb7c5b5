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

The stdlib only: no numpy here. A long call (``FAST_COUNT`` draws or more) takes the same
steps in blocks (``_raw_bytes``): ``_BLOCK`` consecutive states packed into one integer, each
in its own 256-bit slot, move ``_BLOCK`` steps at once by one multiply with the LCG's jump
constants; the XOR, the output's rotation (``_rotate``: six conditional rotations by 1, 2, 4,
8, 16 and 32 bits, each slot taking the ones its turn's bits name), the 32-bit halves and
Lemire's products are taken on whole packed integers and byte strings, nothing per output. If
any draw of the call would be rejected (about ``n / 2**32`` per draw), the call is made again
by the loop.
"""

from __future__ import annotations

import operator
import sys
from array import array
from collections.abc import Generator

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

FAST_COUNT = 4096
"""Calls of at least this many draws take the block path (same draws, about half the
CPU at a run summary's sizes)."""
_BLOCK = 1024  # states per packed block
_CHUNK = 8  # blocks per batch of Lemire's products
_SLOT = 32  # bytes per state's slot: a 128-bit state times a 128-bit constant fits in 256 bits
_TOP6 = bytes(b >> 2 for b in range(256))  # a word's top byte -> its top 6 bits (XSL-RR's turn)
REJECTION_BUDGET = 1 << 28
"""The block path is tried when ``threshold * count`` is below this: a rejection, which sends
the call back to the loop, is then unlikely (under 1 in 16)."""
_LITTLE = sys.byteorder == "little" and array("Q").itemsize == 8
_TURNS = tuple(1 << bit for bit in range(6))  # XSL-RR's turn (0..63) as rotations by these


def _slots(word: int, k: int) -> int:
    """``word`` (64 bits) in each of ``k`` 64-bit slots of one integer."""
    return int.from_bytes(word.to_bytes(8, "little") * k, "little")


_ROTATION_MASKS: list[tuple[int, list[tuple[int, int, int]]]] = []


def _rotation_masks(k: int) -> tuple[int, list[tuple[int, int, int]]]:
    """For ``k`` slots: a 1 in each slot, and for each rotation ``r`` of ``_TURNS`` the
    slots' low ``64 - r`` bits and their high ``r`` bits (made once, for ``_BLOCK`` slots;
    fewer slots take their low part)."""
    if not _ROTATION_MASKS:
        masks = [
            (r, _slots(_M64 >> r, _BLOCK), _slots((_M64 << 64 - r) & _M64, _BLOCK)) for r in _TURNS
        ]
        _ROTATION_MASKS.append((_slots(1, _BLOCK), masks))
    ones, masks = _ROTATION_MASKS[0]
    if k == _BLOCK:
        return ones, masks
    keep = (1 << 64 * k) - 1
    return ones & keep, [(r, low & keep, high & keep) for r, low, high in masks]


def _rotate(words: int, turns: bytes) -> bytes:
    """Each 64-bit slot of ``words`` rotated right by its byte of ``turns`` (0..63), as
    ``len(turns)`` little-endian 64-bit outputs: ``(w >> t | w << 64 - t) & _M64`` of each
    slot, done as six rotations of the whole integer (by 1, 2, 4, ..., 32 bits) each kept
    only in the slots whose turn has that bit."""
    k = len(turns)
    ones, masks = _rotation_masks(k)
    spread = bytearray(8 * k)
    spread[0::8] = turns
    wanted = int.from_bytes(spread, "little")
    for bit, (r, low, high) in enumerate(masks):
        chosen = (wanted >> bit) & ones
        if chosen:
            chosen = (chosen << 64) - chosen  # all 64 bits of the slots that turn by r
            turned = ((words >> r) & low) | ((words << 64 - r) & high)
            words ^= (words ^ turned) & chosen
    return words.to_bytes(8 * k, "little")


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
        self._jumped: tuple[int, int, int] | None = None
        self._doubled: list[tuple[int, int, int]] = []

    def _jump(self) -> tuple[int, int, int]:
        """``(a, c, mask)`` packed over ``_BLOCK`` slots: ``state * a + c`` masked moves each
        slot ``_BLOCK`` steps on."""
        jump = self._jumped
        if jump is None:
            a, c = 1, 0
            for _ in range(_BLOCK):
                a = (a * _MULT) & _M128
                c = (c * _MULT + self._inc) & _M128
            slots = range(_BLOCK)
            c_bytes = c.to_bytes(_SLOT, "little")
            mask_bytes = _M128.to_bytes(_SLOT, "little")
            jump = (
                a,
                int.from_bytes(b"".join(c_bytes for _ in slots), "little"),
                int.from_bytes(b"".join(mask_bytes for _ in slots), "little"),
            )
            self._jumped = jump
        return jump

    def _doublings(self) -> list[tuple[int, int, int]]:
        """For ``m`` = 1, 2, 4, ... below ``_BLOCK``: ``(a, c, mask)``, ``c`` and ``mask``
        packed over ``m`` slots, such that ``state * a + c`` masked moves each slot ``m``
        steps on."""
        table = self._doubled
        if not table:
            a, c, m = _MULT, self._inc, 1
            while m < _BLOCK:
                c_bytes, mask_bytes = c.to_bytes(_SLOT, "little"), _M128.to_bytes(_SLOT, "little")
                c_slots = int.from_bytes(c_bytes * m, "little")
                table.append((a, c_slots, int.from_bytes(mask_bytes * m, "little")))
                a, c, m = (a * a) & _M128, (c * (a + 1)) & _M128, 2 * m
        return table

    def _first_states(self, count: int) -> bytes:
        """The next ``count`` (at most ``_BLOCK``) states, each in its own slot, the state
        itself not moved: the first, then twice as many at each turn by one jump of all."""
        packed = (self._state * _MULT + self._inc) & _M128
        m = 1
        for a, c, mask in self._doublings():
            if m >= count:
                break
            packed |= ((packed * a + c) & mask) << (8 * _SLOT * m)
            m *= 2
        return packed.to_bytes(_SLOT * m, "little")[: _SLOT * count]

    def _raw_bytes(self, steps: int) -> Generator[bytes, None, None]:
        """The next ``steps`` 64-bit outputs as little-endian bytes, a block (``_BLOCK``
        outputs, fewer in the last) at a time; the state has moved on once all are read."""
        packed_bytes = self._first_states(min(steps, _BLOCK))
        done = 0
        packed = 0
        while True:
            k = min(steps - done, _BLOCK)
            view = memoryview(packed_bytes).cast("Q")
            low = view[0 : 4 * k : 4].tobytes()
            high = view[1 : 4 * k : 4].tobytes()
            words = int.from_bytes(low, "little") ^ int.from_bytes(high, "little")
            raws = _rotate(words, high[7::8].translate(_TOP6))
            done += k
            if done == steps:
                self._state = int.from_bytes(packed_bytes[_SLOT * (k - 1) : _SLOT * k], "little")
                yield raws
                return
            yield raws
            a, c, mask = self._jump()
            if not packed:
                packed = int.from_bytes(packed_bytes, "little")
            packed = (packed * a + c) & mask
            packed_bytes = packed.to_bytes(_SLOT * _BLOCK, "little")

    def _fast_integers(self, n: int, count: int, threshold: int) -> list[int] | None:
        """``integers(n, count)`` by blocks, or None (the state untouched) if a draw of it
        would be rejected. Lemire's products are taken ``_CHUNK`` blocks at a time, so what
        the call holds beyond its result stays small (about 0.5 MiB)."""
        saved = self._state
        carried = self._half.to_bytes(4, "little") if self._has_half else b""
        need = count - 1 if self._has_half else count
        out: list[int] = []
        pending: list[bytes] = [carried] if carried else []
        held = len(carried)
        last = b""
        steps = (need + 1) // 2
        seen = 0
        blocks = self._raw_bytes(steps)
        for block in blocks:
            pending.append(block)
            held += len(block)
            seen += len(block) // 8
            last = block
            if seen == steps or held < _CHUNK * 8 * _BLOCK:
                continue  # the last block is drawn below, less a half left for the next call
            if not self._lemire(b"".join(pending), n, threshold, out):
                blocks.close()
                self._state = saved
                return None
            pending, held = [], 0
        halves = b"".join(pending)
        if need % 2:  # the last output's high half is not drawn: it waits for the next call
            halves = halves[:-4]
        if halves and not self._lemire(halves, n, threshold, out):
            self._state = saved
            return None
        self._has_half = bool(need % 2)
        if self._has_half:
            self._half = int.from_bytes(last[-4:], "little")
        return out

    @staticmethod
    def _lemire(halves: bytes, n: int, threshold: int, out: list[int]) -> bool:
        """Extend ``out`` by Lemire's draw of each 32-bit value of ``halves``; False (``out``
        then unusable) if one of them would be rejected."""
        count = len(halves) // 4
        spread = bytearray(8 * count)  # each 32-bit value in a 64-bit slot: r * n cannot carry
        for i in range(4):
            spread[i::8] = halves[i::4]
        product = int.from_bytes(spread, "little") * n
        parts = memoryview(product.to_bytes(8 * count, "little")).cast("I")
        if threshold and min(parts[0::2]) < threshold:
            return False
        out += parts[1::2].tolist()
        return True

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
        if count >= FAST_COUNT and _LITTLE and threshold * count < REJECTION_BUDGET:
            fast = self._fast_integers(n, count, threshold)
            if fast is not None:
                return fast
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


__all__ = ["FAST_COUNT", "Draws", "seed_state"]
