"""The names a bundle asks the board to show: NFC, no control or format characters."""

from __future__ import annotations

from pathlib import Path

from bench.core.text import display_problem
from bench.records.bundle import CONFIG

from .codes import Code
from .failure import VerifyFailure
from .records import BundleRun


def check_display_names(bundle: Path, run: BundleRun) -> None:
    # The board shows the run's display name; the target's own copy is never shown (it is
    # held only to the text rule every record follows).
    fields = {"display_name": run.config.display_name}
    for field, value in fields.items():
        problem = display_problem(value)
        if problem is not None:
            raise VerifyFailure(
                Code.TEXT_INVALID,
                f"a name the board shows {problem}",
                path=str(bundle / CONFIG),
                field=field,
            )


__all__ = ["check_display_names"]
