"""The one order of entries on every surface (the board, ``bench leaderboard``).

Rule (docs/METHODOLOGY.md, "Order of rows"): ranked entries first, by

1. ``rank_lo``, the best end of the tie-aware rank (smaller first);
2. the headline **as shown**, rounded to :data:`SHOWN_DECIMALS` places (higher first), so two
   headlines that print the same are equal here and never sort by floating-point noise;
3. the id: entrant id, then run id.

Entries without a rank (reference runs, then unranked runs) follow in their own groups, by the
same rule without the rank. Pure Python: no numpy, so any surface may import it.
"""

from __future__ import annotations

from decimal import Decimal

SHOWN_DECIMALS = 3
"""Decimal places every surface prints a headline with (``0.562``)."""


def shown(value: float, decimals: int = SHOWN_DECIMALS) -> str:
    """A headline as it is printed: ``f"{value:.3f}"``."""
    return f"{value:.{decimals}f}"


def order_key(
    rank_lo: int | None,
    headline: float | None,
    entrant: str,
    run_id: str,
    *,
    group: int = 0,
) -> tuple[int, int, int, Decimal, str, str]:
    """The sort key of one entry (smaller sorts first).

    ``group`` separates blocks that are listed apart (0 ranked, 1 reference rows, 2 unranked);
    within a block, an entry with no rank or no headline sorts after those that have one.
    """
    # Headlines lie in [0, 1], so the negated shown value is at most 0 and a missing one (1)
    # sorts after every headline.
    rounded = Decimal(1) if headline is None else -Decimal(shown(headline))
    return (group, 0 if rank_lo is not None else 1, rank_lo or 0, rounded, entrant, run_id)


__all__ = ["SHOWN_DECIMALS", "order_key", "shown"]
