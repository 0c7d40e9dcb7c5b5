"""The board: results -> rows (pure, golden-tested) -> one self-contained ``index.html``.

Stages: :mod:`.load` (run directories and bundles, behind the ``Loader`` protocol),
:mod:`.entries` (plain values per run), :mod:`.rows` with :mod:`.cohort` (cohorts, latest run
per entrant and fingerprint, shared-resample statistics), :mod:`.page` and :mod:`.charts`
(Jinja2, charts as inline SVG), :mod:`.site` (atomic swap of the output directory).
"""

from .build import BuildOptions, BuildResult, build
from .entries import EntryInput, FailedInput
from .errors import BoardBuildError, BoardInputError, BoardUsageError
from .model import BOARD_FORMAT_VERSION, Board, CohortRows, EntryRow
from .rows import build_rows

__all__ = [
    "BOARD_FORMAT_VERSION",
    "Board",
    "BoardBuildError",
    "BoardInputError",
    "BoardUsageError",
    "BuildOptions",
    "BuildResult",
    "CohortRows",
    "EntryInput",
    "EntryRow",
    "FailedInput",
    "build",
    "build_rows",
]
