"""The deterministic mock world one task ships: its state, its tools, its corpus.

A fresh :class:`World` per attempt starts from a JSON copy of ``task.state``. ``call`` never
raises for anything the agent did wrong; it returns a :class:`ToolResult` with ``error`` set.
It raises :class:`~bench.core.errors.HarnessFault` (code ``WORLD_TOOL_DATA``) only when the
task's own tool data is broken: an invalid JSON Schema, a malformed path, a template naming an
argument the schema let the call omit, non-JSON state or results, search without a corpus.

How a call to a data-defined tool (``ToolSpec``) resolves, first match wins:

1. the arguments must be a JSON object satisfying the tool's JSON Schema (Draft 2020-12); a
   violation is an error naming the argument: ``invalid arguments for lookup_order: argument
   'order_id': 1041 is not of type 'string'``;
2. the first ``case`` whose every ``when`` item equals the argument of that name (JSON
   equality, :mod:`bench.world.values`: ``1`` is not ``"1"``, ``true`` is not ``1``, an
   absent argument equals nothing) gives its ``error`` if it has one, else its ``result``;
3. if ``reads`` is set, the value at that state path filled from the arguments
   (:mod:`bench.world.paths`), as the state is *before* this call's writes; a missing path is
   the error ``no orders.1042 in this world``;
4. ``default``, if the tool has one;
5. otherwise the error ``<tool> has no result for the arguments {...}``.

Then, for a ``write`` tool whose call succeeded, every ``Write`` is applied in order (path and
string values filled from the arguments, objects created as needed), all or nothing: if one
cannot be (the path crosses a non-object), the call becomes an error and the state is
unchanged. Later calls see the new state.

``search_docs`` returns ``[{id, title, text}, ...]`` from ``Corpus.search`` (``k`` defaults to
the task's ``BuiltinTool.k``) and lists the ids, in rank order, in ``ToolResult.retrieved``.
Results are fresh JSON copies: changing one never changes the world, and the same task and
calls give byte-identical results.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Iterable, Mapping
from typing import Any

from bench.core.canonical import canonical_json
from bench.core.errors import HarnessFault
from bench.core.schemacheck import (
    conforms,
    plain_errors,
    schema_key,
    schema_problem,
    validator,
)
from bench.core.trace import ToolDef
from bench.corpus import Corpus
from bench.tasks.model import BuiltinTool, Task

from .builtins import builtin_def, builtin_parameters, search_docs
from .result import ToolResult
from .spec import DataTool, ToolDataError
from .values import to_json


def _describe(parts: Iterable[str | int], message: str) -> str:
    path = ""
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return f"argument '{path}': {message}" if path else message


@functools.lru_cache(maxsize=4096)
def _problems(schema: str, arguments: str) -> tuple[str, ...]:
    """What is wrong with ``arguments`` under ``schema`` (both canonical JSON), sorted. A pure
    function of the two, so cached: repeats and similar tasks send the same arguments. A plain
    schema's errors are worded here as jsonschema words them (``plain_errors``); jsonschema
    itself is imported only for any other schema."""
    instance = json.loads(arguments)
    if conforms(schema, instance):  # the usual case
        return ()
    found = plain_errors(schema, instance)
    if found is None:
        found = [(e.absolute_path, e.message) for e in validator(schema).iter_errors(instance)]
    return tuple(sorted({_describe(path, message) for path, message in found}))


class World:
    """One attempt's mock world. Not shared between attempts or threads."""

    def __init__(self, task: Task, corpus: Corpus | None) -> None:
        self._task = task
        self._corpus = corpus
        self._tools: dict[str, DataTool | BuiltinTool] = {}
        self._schemas: dict[str, str] = {}  # tool name -> the schema's cache key
        self._offered: dict[str, str] = {}  # tool name -> its parameters as JSON, in order
        self._defs: list[ToolDef] | None = None
        # tool_parts(), made once for the task and shared by every fresh() world of it
        self._parts: list[list[tuple[dict[str, Any], bytes]]] = []
        for tool in task.tools:
            name: str
            schema: dict[str, Any]
            if isinstance(tool, BuiltinTool):
                name, schema = tool.builtin, builtin_parameters(tool)
                if corpus is None:
                    raise self._fault(f"tools.{name}", "search_docs needs a corpus; none given")
                self._tools[name] = tool
            else:
                name, schema = tool.name, tool.parameters
                try:
                    self._tools[name] = DataTool(tool)
                except ToolDataError as exc:
                    raise self._fault(f"tools.{name}.{exc.field}", exc.message) from None
                try:
                    self._offered[name] = json.dumps(schema, allow_nan=False)
                except (TypeError, ValueError, RecursionError) as exc:
                    raise self._fault(f"tools.{name}.parameters", f"not JSON: {exc}") from None
            key = schema_key(schema)
            problem = schema_problem(key)
            if problem is not None:
                raise self._fault(f"tools.{name}.parameters", f"not a valid JSON Schema: {problem}")
            self._schemas[name] = key
        try:
            self._state: dict[str, Any] = to_json(task.state)
        except ValueError as exc:
            raise self._fault("state", str(exc)) from None
        self._start = json.dumps(self._state)  # the starting state, for ``fresh``

    def built_for(self, task: Task, corpus: Corpus | None) -> bool:
        """Whether this world was built from this very task and corpus (the same objects)."""
        return self._task is task and self._corpus is corpus

    def fresh(self) -> World:
        """A new world for another attempt at the same task: the same checked tools and
        schemas (built once, immutable), the task's starting state, no calls made. What a new
        ``World(task, corpus)`` would be, without checking the task's tool data again."""
        world = object.__new__(World)
        world._task = self._task
        world._corpus = self._corpus
        world._tools = self._tools
        world._schemas = self._schemas
        world._offered = self._offered
        world._defs = None
        world._parts = self._parts
        world._state = json.loads(self._start)
        world._start = self._start
        return world

    @property
    def state(self) -> dict[str, Any]:
        """A deep copy of the current state."""
        return copy.deepcopy(self._state)

    def tool_defs(self) -> list[ToolDef]:
        """The tools as offered to the model, in the task's order. Built (copies of the task's
        schemas, read back from their JSON: the same keys in the same order, faster than a deep
        copy) once per world, that is once per attempt, not once per model call."""
        if self._defs is None:
            self._defs = [
                builtin_def(tool)
                if isinstance(tool, BuiltinTool)
                else ToolDef(
                    name=tool.spec.name,
                    description=tool.spec.description,
                    parameters=json.loads(self._offered[tool.spec.name]),
                )
                for tool in self._tools.values()
            ]
        return list(self._defs)

    def tool_parts(self) -> list[tuple[dict[str, Any], bytes]]:
        """Each of ``tool_defs()``, in its order, as its JSON form (``model_dump(mode="json")``)
        and that form's canonical bytes: what the request recorder makes of a tool, made once
        for the task (every fresh world shares them) instead of once per attempt. The forms
        are shared by the records of every attempt, which never change them."""
        if not self._parts:
            made = []
            for tool in self.tool_defs():
                wire = tool.model_dump(mode="json")
                made.append((wire, canonical_json(wire)))
            self._parts.append(made)
        return self._parts[0]

    def call(self, name: str, arguments: Mapping[str, Any]) -> ToolResult:
        """Run one tool call (see the module docstring for the resolution order)."""
        tool = self._tools.get(name)
        if tool is None:
            offered = ", ".join(self._tools) or "none"
            return ToolResult(error=f"unknown tool '{name}'; this world's tools are: {offered}")
        if not isinstance(arguments, Mapping):
            kind = type(arguments).__name__
            return ToolResult(error=f"arguments for {name} must be a JSON object, not {kind}")
        try:
            args: dict[str, Any] = to_json(dict(arguments))
        except ValueError:
            return ToolResult(error=f"arguments for {name} are not JSON (NaN, Infinity or worse)")
        try:
            problems = _problems(self._schemas[name], canonical_json(args).decode())
        except Exception as exc:  # e.g. an unresolvable $ref: the task's schema is broken
            raise self._fault(f"tools.{name}.parameters", f"cannot validate: {exc}") from exc
        if problems:
            return ToolResult(error=f"invalid arguments for {name}: {'; '.join(problems)}")
        if isinstance(tool, BuiltinTool):
            assert self._corpus is not None  # checked in __init__
            found = search_docs(tool, self._corpus, args)
            return ToolResult(result=found, retrieved=tuple(item["id"] for item in found))
        try:
            outcome = tool.resolve(self._state, args)
            if tool.spec.kind == "write" and outcome.ok and tool.spec.writes:
                applied = tool.apply(self._state, args)
                if isinstance(applied, str):
                    return ToolResult(error=f"{name} failed: {applied}")
                self._state = applied
        except ToolDataError as exc:
            raise self._fault(f"tools.{name}.{exc.field}", exc.message) from None
        return outcome

    def _fault(self, field: str, message: str) -> HarnessFault:
        return HarnessFault(
            f"task '{self._task.id}': {message}", code="WORLD_TOOL_DATA", field=field
        )


__all__ = ["ToolResult", "World"]
