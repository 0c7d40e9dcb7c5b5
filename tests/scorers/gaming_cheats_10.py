"""Gaming cheats, tenth round (tests/scorers/test_gaming_cheats_10.py): the mock tools.

Each reads only what any agent is sent (the conversation, the tools offered with their schemas,
what the tools return, errors included), never a task's expectations, and uses the tools
instead of doing the task:

* ``error-oracle``: every read tool called with bad arguments first — no arguments, each id of
  the request as a number, an id no record has — so that the world's error messages might name
  the value it wanted; then the reads, the write by words filled from the records and from every
  value the errors named, and every value seen as the answer;
* ``positional-arguments``: the reads, then the write by words, its required arguments filled
  by position from the request's own values (the first id, number, date or time for the first
  argument of that type, and so on), not by what they mean;
* ``brute-force-ids``: each read tool called with every id near each id the request names (the
  same prefix and width, 25 either side): every record the world holds around it, read before
  acting; then the write by words filled from the records of the named ids, and the values;
* ``write-then-undo``: the write by words, then at once its undo (a write whose name says cancel,
  ``iptal``; else the same write again with the record's values from before), and "done, and
  reverted": the state the task ends in is the state it began with.

(Calling every read tool on every task is not repeated here: ``read-flood-no-write`` in
``gaming_cheats_3.py`` and ``reads-then-values`` in ``content_free_cheats.py``; a write sprayed
with every candidate value is ``heldout_cheats.py``'s.) The format tricks of this round —
several answers in one, ranges, units, enum lists, duplicate keys, numbers as strings,
``NaN``/``1e400``, very long numbers, Arabic-Indic and full-width digits, a ``calls`` answer
repeated — are single answers, checked against the checks in the test module.

Scripted-entrant callables, named by target files the test writes, like the earlier rounds'.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.baselines import last_user_message, turn_messages, turn_results
from bench.core.trace import ToolDef
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


_g = _load("gaming_cheats_10_gaming", "gaming_cheats.py")
_answer: Callable[[str], ModelResponse] = _g._answer
_calls: Callable[[list[tuple[str, dict[str, Any]]]], ModelResponse] = _g._calls

_TOKEN = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}:\d{2}\b|\b[A-Z]{1,3}-\d+\b|-?\d+(?:[.,]\d+)?")
_QUOTED = re.compile(r"'([^']{1,40})'")
_ID_PARTS = re.compile(r"^([A-Z]{1,3}-)?(\d+)$")
_UNDO = ("cancel", "iptal", "undo", "revert")
SPREAD = 25
"""How many ids either side of a named one ``brute-force-ids`` reads."""


def _single_reads(request: ModelRequest) -> list[ToolDef]:
    return [
        t
        for t in _g._tools(request)
        if _g._is_read(t) and len(t.parameters.get("required", [])) == 1
    ]


def _values_answer(request: ModelRequest, extra: tuple[str, ...] = ()) -> ModelResponse:
    seen = list(dict.fromkeys([*extra, *_g._values_seen(request, 60)]))
    return _answer(" ".join(seen[:60]) or "Done.")


# --- error-oracle --------------------------------------------------------------------------


def _error_values(request: ModelRequest) -> list[str]:
    """Every quoted value and token the tool errors of this turn named that the request did
    not: what a leaky error would have given away."""
    asked = last_user_message(request)
    found: list[str] = []
    for _, result in turn_results(request):
        if isinstance(result, dict) and isinstance(result.get("error"), str):
            error = result["error"]
            for value in [*_QUOTED.findall(error), *_TOKEN.findall(error)]:
                if value not in asked:
                    found.append(value)
    return list(dict.fromkeys(found))


def _rounds(request: ModelRequest) -> int:
    """How many responses with tool calls the current turn holds."""
    return sum(1 for message in turn_messages(request) if message.tool_calls)


def error_oracle(request: ModelRequest) -> ModelResponse:
    """Bad reads first, then the reads, then the write by words with what the errors named."""
    reads = _single_reads(request)
    ids = _g._ids(request)
    rounds = _rounds(request)
    if rounds == 0 and reads:
        probes: list[tuple[str, dict[str, Any]]] = []
        for tool in reads:
            key = tool.parameters["required"][0]
            probes.append((tool.name, {}))
            probes.append((tool.name, {key: "0000000"}))
            probes += [(tool.name, {key: int(i)}) for i in ids if i.isdigit()]
        return _calls(probes)
    if rounds == 1 and reads:
        return _calls(_g._read_calls(request, ids))
    best = _g._by_words(request)
    if best is not None and best.name not in [name for name, _ in turn_results(request)]:
        args = _g._filled(best, request)
        leaked = _error_values(request)
        properties = best.parameters.get("properties", {})
        for key in args:
            enum = properties.get(key, {}).get("enum")
            if enum is not None:
                args[key] = next((v for v in leaked if v in enum), args[key])
        return _calls([(best.name, args)])
    return _values_answer(request, tuple(_error_values(request)))


# --- positional-arguments ------------------------------------------------------------------


def _by_position(tool: ToolDef, text: str) -> dict[str, Any]:
    """Each required argument from the request's values in order, the n-th argument of a kind
    taking the n-th value that fits it."""
    tokens = _TOKEN.findall(text)
    properties = tool.parameters.get("properties", {})
    used: set[int] = set()
    out: dict[str, Any] = {}
    for key in tool.parameters.get("required", list(properties)):
        kind = properties.get(key, {}).get("type", "string")
        for at, token in enumerate(tokens):
            if at in used:
                continue
            number = re.fullmatch(r"-?\d+(?:[.,]\d+)?", token) is not None
            if kind in ("number", "integer") and number:
                value = float(token.replace(",", "."))
                out[key] = int(value) if kind == "integer" else value
            elif kind == "string" and (not number or len(token) >= 4):
                enum = properties.get(key, {}).get("enum")
                if enum is not None and token not in enum:
                    continue
                out[key] = token
            else:
                continue
            used.add(at)
            break
    return out


def positional_arguments(request: ModelRequest) -> ModelResponse:
    """The reads, then the write by words with its arguments taken by position, then "Done."."""
    results = turn_results(request)
    if not results:
        calls = _g._read_calls(request, _g._ids(request))
        if calls:
            return _calls(calls)
    best = _g._by_words(request)
    if best is not None and best.name not in [name for name, _ in results]:
        args = _g._filled(best, request) | _by_position(best, last_user_message(request))
        return _calls([(best.name, args)])
    return _answer("Done.")


# --- brute-force-ids -----------------------------------------------------------------------


def _neighbours(identifier: str) -> list[str]:
    parts = _ID_PARTS.match(identifier)
    if parts is None:
        return []
    prefix, digits = parts.group(1) or "", parts.group(2)
    number, width = int(digits), len(digits)
    return [
        f"{prefix}{candidate:0{width}d}"
        for candidate in range(max(0, number - SPREAD), number + SPREAD + 1)
        if candidate != number
    ]


def brute_force_ids(request: ModelRequest) -> ModelResponse:
    """Every id near each named one read, the named ones last (so the records filled from are
    theirs); then the write by words filled from them; then the values."""
    results = turn_results(request)
    reads = _single_reads(request)
    if not results and reads:
        ids = _g._ids(request)
        around = [n for i in ids for n in _neighbours(i) if n not in ids]
        return _calls(
            [(t.name, {t.parameters["required"][0]: i}) for t in reads for i in [*around, *ids]]
        )
    best = _g._by_words(request)
    if best is not None and best.name not in [name for name, _ in results]:
        return _calls([(best.name, _g._filled(best, request))])
    return _values_answer(request)


# --- write-then-undo -----------------------------------------------------------------------


def _undo_of(request: ModelRequest, done: ToolDef) -> tuple[str, dict[str, Any]]:
    writes = [t for t in _g._tools(request) if not _g._is_read(t) and t.name != done.name]
    stem = done.name.split("_")[0]
    undo = next(
        (
            t
            for t in writes
            if any(mark in t.name for mark in _UNDO) and stem in t.name.replace(done.name, "")
        ),
        None,
    ) or next((t for t in writes if any(mark in t.name for mark in _UNDO)), None)
    if undo is not None:
        return undo.name, _g._filled(undo, request)
    return done.name, _g._filled(done, request)


def write_then_undo(request: ModelRequest) -> ModelResponse:
    """The reads; the write by words; its undo; then a reply that it was done and reverted."""
    results = turn_results(request)
    if not results:
        calls = _g._read_calls(request, _g._ids(request))
        if calls:
            return _calls(calls)
    best = _g._by_words(request)
    names = [name for name, _ in results]
    if best is not None and best.name not in names:
        return _calls([(best.name, _g._filled(best, request))])
    reads = {t.name for t in _g._tools(request) if _g._is_read(t)}
    if best is not None and len([n for n in names if n not in reads]) == 1:
        return _calls([_undo_of(request, best)])
    return _answer("Done, and reverted: nothing was changed in the end.")


GAMING_10: dict[str, Callable[[ModelRequest], ModelResponse]] = {
    "error-oracle": error_oracle,
    "positional-arguments": positional_arguments,
    "brute-force-ids": brute_force_ids,
    "write-then-undo": write_then_undo,
}

__all__ = ["GAMING_10"]
