"""Tools the harness provides. Today one: ``search_docs`` over the task's corpus.

The task's ``k`` is both the default and the cap: an agent may ask for fewer passages, never
more (asking for 20 returns the task's ``k``). A cap set by the task, not by the agent, is what
keeps "paste every passage search returns" from covering the corpus (docs/SCORING.md). The
tool's description and schema are unchanged (they are part of every recorded request, and a
changed request would no longer replay from an old cassette); the cap is in the result.
"""

from __future__ import annotations

import copy
from typing import Any

from bench.core.trace import ToolDef
from bench.corpus import Corpus
from bench.tasks.model import BuiltinTool

SEARCH_DOCS_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string"},
        "k": {"type": "integer", "minimum": 1, "maximum": 20},
    },
    "required": ["query"],
    "additionalProperties": False,
}


def builtin_parameters(tool: BuiltinTool) -> dict[str, Any]:
    """The JSON Schema of a builtin's arguments (a fresh copy)."""
    if tool.builtin != "search_docs":  # pragma: no cover - the model allows no other builtin
        raise ValueError(f"unknown builtin '{tool.builtin}'")
    return copy.deepcopy(SEARCH_DOCS_PARAMETERS)


def builtin_def(tool: BuiltinTool) -> ToolDef:
    return ToolDef(
        name=tool.builtin,
        description=(
            "Search this task's documents; returns up to k passages (default "
            f"{tool.k}) as {{id, title, text}}, best first; cite passages by id."
        ),
        parameters=builtin_parameters(tool),
    )


def search_docs(
    tool: BuiltinTool, corpus: Corpus, arguments: dict[str, Any]
) -> list[dict[str, str]]:
    """Validated arguments in, ``[{id, title, text}, ...]`` out (``[]`` when nothing matches)."""
    k = int(arguments.get("k", tool.k))  # JSON Schema lets 3.0 through as an integer
    k = min(k, tool.k)  # the task caps k; the agent may only ask for fewer
    passages = corpus.search(arguments["query"], k)
    return [{"id": p.id, "title": p.title, "text": p.text} for p in passages]


__all__ = ["SEARCH_DOCS_PARAMETERS", "builtin_def", "builtin_parameters", "search_docs"]
