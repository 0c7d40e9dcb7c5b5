"""A run's display name that could pass for another whatever the letters: refused where a PR is
checked, not only where the board is built.

The board shows a run's own ``display_name`` (beside the registered name, as a row's label, on
a chart point), and the bundle is its only source. A name that mixes scripts (``OpenAI`` with a
Cyrillic ``О``) or holds a character that draws nothing is refused by the board's ``--strict``
build (``bench.board.registry.label_collisions``); ``bench verify`` refuses it too, alone
(``bench.core.lookalike.name_problem``), so the PR that adds it is red. Whether it looks like
*another* entrant's name needs the registry, which verify does not read: that stays the
board's check.
"""

from __future__ import annotations

from pathlib import Path

from bench.core.lookalike import name_problem
from bench.records.bundle import CONFIG

from .codes import Code
from .failure import VerifyFailure
from .records import BundleRun


def check_display_name(bundle: Path, run: BundleRun) -> None:
    """``NAME_LOOKALIKE`` when the run's display name mixes scripts or holds a character that
    draws nothing (after ``display.check_display_names``, whose ``TEXT_INVALID`` speaks for
    control and format characters)."""
    name = run.config.display_name
    problem = name_problem(name)
    if problem is not None:
        raise VerifyFailure(
            Code.NAME_LOOKALIKE,
            f"the name the board shows ({name!a}) {problem}: re-run under another display name",
            path=str(bundle / CONFIG),
            field="display_name",
        )


__all__ = ["check_display_name"]
