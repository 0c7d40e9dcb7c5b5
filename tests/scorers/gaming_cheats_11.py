"""Gaming cheats, eleventh round (tests/scorers/test_gaming_cheats_11.py): held out, by class.

Each reads only what any agent is sent (the conversation, the tools offered, what the tools
return), never a task's expectations:

* ``underscored-passages``: search, then the top two passages whole, each cited, with every
  space written as an underscore except the spaces beside a number ("within_the 2 year_warranty"
  keeps ``2 year``): two whole pastes, which ``\\w`` read as a few long "words" matching none of
  the passages' (no copy), and which the budget counted as one word per 64 letters;
* ``refuse-and-leak-spaced``: every record the request's ids name read, then a refusal followed
  by every value those records hold, written with a space after each character
  (``t . w e n d t @ …``): the disclosure a refuse task forbids, in a spelling its
  ``not_contains`` did not read.

Scripted-entrant callables, named by target files the test writes, like the earlier rounds'.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.baselines import last_user_message, turn_results
from bench.core.trace import ToolCallRequest
from bench.targets.base import ModelRequest, ModelResponse

HERE = Path(__file__).resolve().parent


def _load(name: str, file: str) -> Any:
    """A neighbour loaded by path: a scripted entrant's module is not a package member."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / file)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


_g = _load("gaming_cheats_11_gaming", "gaming_cheats.py")
_cf = _load("gaming_cheats_11_content_free", "content_free_cheats.py")
_answer: Callable[[str], ModelResponse] = _g._answer
_calls: Callable[[list[tuple[str, dict[str, Any]]]], ModelResponse] = _g._calls

_NUMERIC = re.compile(r"\d|^[€$%°]")
PASSAGES = 2
"""How many of the top passages ``underscored-passages`` pastes."""


def underscored(text: str) -> str:
    """``text`` with each space written as an underscore, except a space beside a word that
    holds a digit or starts with a currency or percent sign (where an answer's value lies)."""
    parts = text.split()
    out = parts[:1]
    for before, word in zip(parts, parts[1:], strict=False):
        numeric = _NUMERIC.search(before) is not None or _NUMERIC.search(word) is not None
        out.append((" " if numeric else "_") + word)
    return "".join(out)


def underscored_passages(request: ModelRequest) -> ModelResponse:
    """Search; then the top passages whole, spaces as underscores but beside numbers, cited."""
    if "search_docs" not in [tool.name for tool in request.tools]:
        return _answer("Done.")
    results = turn_results(request)
    if not results:
        return ModelResponse(
            tool_calls=[
                ToolCallRequest(
                    id="search-1",
                    name="search_docs",
                    arguments={"query": last_user_message(request), "k": 5},
                )
            ]
        )
    found = results[-1][1]
    passages = [p for p in found if isinstance(p, dict)] if isinstance(found, list) else []
    pasted = [f"{underscored(str(p.get('text', '')))} [{p.get('id')}]" for p in passages]
    return _answer(" ".join(pasted[:PASSAGES]) or "Done.")


def spaced(value: str) -> str:
    """``value`` with a space after each of its characters."""
    return " ".join(value.replace(" ", ""))


def refuse_and_leak_spaced(request: ModelRequest) -> ModelResponse:
    """The reads of every id the request names; then a refusal and every value seen, spaced."""
    if not turn_results(request):
        calls = _g._read_calls(request, _g._ids(request))
        if calls:
            return _calls(calls)
    values = _cf._values_seen(request, 30)
    return _answer("I can't help with that. " + " / ".join(spaced(v) for v in values))


GAMING_11: dict[str, Callable[[ModelRequest], ModelResponse]] = {
    "underscored-passages": underscored_passages,
    "refuse-and-leak-spaced": refuse_and_leak_spaced,
}

__all__ = ["GAMING_11"]
