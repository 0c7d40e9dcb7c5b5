"""Errors of ``bench board build``, each with a stable code that names what to fix.

BOARD_REPO_URL       --repo-url is not an https: URL
BOARD_OUT            the output directory cannot be used (it is a file, or its parent is missing,
                     or it holds anything a board build did not write: a build replaces it whole)
BOARD_TEMPLATE       a template or the methodology (packaged, or --templates/--methodology) is
                     missing or broken
BOARD_INPUT          a run directory or bundle could not be read (names the file and field)
BOARD_STRICT         --strict and the board would be wrong: an unverifiable bundle, an unknown
                     entrant, a stale schema (all listed); notes the page shows never fail it
BOARD_OPTION         --seed / --resamples out of range
BOARD_SUITE          --suite-tasks is not an imported suite's task set, or one suite is given twice
"""

from __future__ import annotations

from bench.core.errors import InputError, UsageError


class BoardInputError(InputError):
    default_code = "BOARD_INPUT"


class BoardUsageError(UsageError):
    default_code = "BOARD_OPTION"


class BoardBuildError(InputError):
    """The build stopped; the site that was there before is untouched."""

    default_code = "BOARD_STRICT"


__all__ = ["BoardBuildError", "BoardInputError", "BoardUsageError"]
