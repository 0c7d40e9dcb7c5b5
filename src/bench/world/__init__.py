"""The deterministic mock tool world a task ships (see :mod:`bench.world.world`)."""

from .builtins import SEARCH_DOCS_PARAMETERS
from .check import check_task_set
from .result import ToolResult
from .values import same_json, to_json
from .world import World

__all__ = [
    "SEARCH_DOCS_PARAMETERS",
    "ToolResult",
    "World",
    "check_task_set",
    "same_json",
    "to_json",
]
