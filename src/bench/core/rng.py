"""Seeded randomness. Anything random in bench-suite comes from a recorded seed."""

from __future__ import annotations

import random

DEFAULT_SEED = 20261202
MAX_SEED = 2**53 - 1
"""The largest seed: numpy's generator takes no negative one, and a run's config records it
as a JSON integer, which every reader keeps exact only up to 2**53 - 1 (I-JSON)."""


def seeded_random(seed: int) -> random.Random:
    """A stdlib generator for the harness (no numpy import on the run path)."""
    return random.Random(seed)


__all__ = ["DEFAULT_SEED", "MAX_SEED", "seeded_random"]
