"""The deterministic mock tool world a task ships (see :mod:`bench.world.world`)."""

from .builtins import SEARCH_DOCS_PARAMETERS
from .result import ToolResult
from .values import same_json, to_json
from .world import World

__all__ = ["SEARCH_DOCS_PARAMETERS", "ToolResult", "World", "same_json", "to_json"]
