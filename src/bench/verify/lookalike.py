"""A run's display name or model that could pass for another whatever the letters: refused
where a PR is checked, not only where the board is built.

The board shows a run's own ``display_name`` (beside the registered name, as a row's label, on
a chart point) and its model (``comparable.model``, in the card's settings), and the bundle is
their only source (``bench.core.shownnames.run_names``). A name that mixes scripts (``OpenAI``
with a Cyrillic ``О``) or holds a character that draws nothing is refused by the board's
``--strict`` build (``bench.board.registry``); ``bench verify`` refuses it too, alone
(``bench.core.lookalike.name_problem``), so the PR that adds it is red. Whether it looks like
*another* entrant's name needs the registry, which verify does not read: that stays the
board's check.
"""

from __future__ import annotations

from pathlib import Path

from bench.core.lookalike import name_problem
from bench.core.shownnames import run_names
from bench.records.bundle import CONFIG

from .codes import Code
from .failure import VerifyFailure
from .records import BundleRun


def check_display_name(bundle: Path, run: BundleRun) -> None:
    """``NAME_LOOKALIKE`` when the run's display name or model mixes scripts or holds a
    character that draws nothing (after ``display.check_display_names``, whose
    ``TEXT_INVALID`` speaks for control and format characters)."""
    for field, name in run_names(run.config.display_name, run.config.comparable):
        problem = name_problem(name)
        if problem is None:
            continue
        what = "name" if field == "display_name" else "model name"
        again = "display name" if field == "display_name" else "model name (the target's model)"
        raise VerifyFailure(
            Code.NAME_LOOKALIKE,
            f"the {what} the board shows ({name!a}) {problem}: re-run under another {again}",
            path=str(bundle / CONFIG),
            field=field,
        )


__all__ = ["check_display_name"]
