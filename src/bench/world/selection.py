"""Tool selection: which of a world's tools a target shows the model for one message.

A target may show every tool (``all``) or only the top ``k`` by BM25 over each tool's name and
description against the user's message (``top-k``), as a router in front of a model does. The
same ranking drives ``bench check`` (which reports cases whose expected tool is never shown)
and the runner (which offers only the selected tools), so the two cannot disagree.
"""

from __future__ import annotations

from collections.abc import Sequence

from bench.core.trace import ToolDef
from bench.corpus import Corpus, Passage


def rank_tools(message: str, world: Sequence[tuple[str, str]], k: int) -> list[str]:
    """The top ``k`` tool names for ``message`` (BM25 over name and description; the corpus's
    tokeniser, IDF and tie-break). A tool sharing no word with the message is never shown."""
    passages = [Passage.create(name, "tool", name, description) for name, description in world]
    return [passage.doc for passage in Corpus(passages).search(message, k=k)]


def select_tool_defs(defs: Sequence[ToolDef], message: str, policy: str, k: int) -> list[ToolDef]:
    """``defs`` as the policy shows them for ``message``, in their original order."""
    if policy != "top-k" or not defs:
        return list(defs)
    shown = set(rank_tools(message, [(d.name, d.description) for d in defs], k))
    return [d for d in defs if d.name in shown]


__all__ = ["rank_tools", "select_tool_defs"]
