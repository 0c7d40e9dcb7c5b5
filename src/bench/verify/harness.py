"""Which harness versions' records this code reads: the one rule for ``bench verify``
(``records.check_consistency``) and ``bench board build`` (``board.build.input_warnings``, its
"stale schema"), so a bundle that verifies is one the board accepts (docs/DECISIONS.md 48).

Today the rule is strict equality with :data:`bench.HARNESS_VERSION`: records carry no schema
version of their own beyond ``format_version``, and a run made by another harness (older, or
one that does not exist) may hold fields this code reads otherwise or not at all. It has no
imports beyond ``bench`` itself, so the board can ask it without loading the verifier.
"""

from __future__ import annotations

from bench import HARNESS_VERSION


def stale_harness(version: str) -> str | None:
    """None when this code reads records made by harness ``version``; else why not, as a
    clause that follows "<what> was" ("made by harness 9.9.9, this code is harness …")."""
    if version == HARNESS_VERSION:
        return None
    return (
        f"made by harness {version}, this code is harness {HARNESS_VERSION} "
        "(re-run, or verify and build with that version)"
    )


__all__ = ["stale_harness"]
