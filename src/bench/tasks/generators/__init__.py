"""The task-set generator: data files in ``data/`` become ``tasks/<family>.<split>.yaml``.

The generator only imports ``bench.core`` and ``bench.tasks`` (the layering rule); the corpus
passages it checks phrases against are handed to it by the caller as ``{passage id: text}``.
"""

from .build import EXPECTED_COUNTS, MANIFEST, build_tasks, counts, render_files
from .errors import GENERATOR_CODES, GeneratorError
from .source import DATA_DIR

__all__ = [
    "DATA_DIR",
    "EXPECTED_COUNTS",
    "GENERATOR_CODES",
    "MANIFEST",
    "GeneratorError",
    "build_tasks",
    "counts",
    "render_files",
]
