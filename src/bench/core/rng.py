"""Seeded randomness. Anything random in bench-suite comes from a recorded seed."""

from __future__ import annotations

import random

DEFAULT_SEED = 20261202


def seeded_random(seed: int) -> random.Random:
    """A stdlib generator for the harness (no numpy import on the run path)."""
    return random.Random(seed)


__all__ = ["DEFAULT_SEED", "seeded_random"]
