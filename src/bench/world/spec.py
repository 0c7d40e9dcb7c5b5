"""A data-defined tool (``ToolSpec``) made ready to run: its data normalised, paths checked.

Resolution order and write semantics are documented in :mod:`bench.world.world`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from bench.core.canonical import canonical_json
from bench.tasks.model import ToolSpec

from .paths import MISSING, TemplateError, fill_path, fill_value, get_path, set_path, split_path
from .result import ToolResult
from .values import same_json, to_json


class ToolDataError(Exception):
    """The task's own tool data is broken; ``field`` says where (e.g. ``cases[2].result``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def _json(value: Any, field: str) -> Any:
    try:
        return to_json(value)
    except ValueError as exc:
        raise ToolDataError(field, str(exc)) from None


@dataclass(frozen=True)
class _Case:
    when: dict[str, Any]
    result: Any
    error: str | None


class DataTool:
    """One ``ToolSpec``; raises :class:`ToolDataError` at construction if its data is broken."""

    def __init__(self, spec: ToolSpec) -> None:
        self.spec = spec
        self._cases = [
            _Case(_json(case.when, f"cases[{i}].when"), _json(case.result, f"cases[{i}].result"),
                  case.error)
            for i, case in enumerate(spec.cases)
        ]  # fmt: skip
        self._default = _json(spec.default, "default")
        self._writes = [
            (write.path, _json(write.value, f"writes[{i}].value"))
            for i, write in enumerate(spec.writes)
        ]
        paths = [("reads", spec.reads)] if spec.reads is not None else []
        paths += [(f"writes[{i}].path", write.path) for i, write in enumerate(spec.writes)]
        for field, path in paths:
            try:
                split_path(path)
            except TemplateError as exc:
                raise ToolDataError(field, str(exc)) from None

    def resolve(self, state: dict[str, Any], args: dict[str, Any]) -> ToolResult:
        """Steps 2-5 of the resolution order, for validated, normalised ``args``."""
        for case in self._cases:
            if all(key in args and same_json(args[key], want) for key, want in case.when.items()):
                if case.error is not None:
                    return ToolResult(error=case.error)
                return ToolResult(result=copy.deepcopy(case.result))
        if self.spec.reads is not None:
            keys = self._fill_path(self.spec.reads, args, "reads")
            value = get_path(state, keys)
            if value is MISSING:
                return ToolResult(error=f"no {'.'.join(keys)} in this world")
            return ToolResult(result=copy.deepcopy(value))
        if self.spec.has_default:
            return ToolResult(result=copy.deepcopy(self._default))
        shown = canonical_json(args).decode("utf-8")
        return ToolResult(error=f"{self.spec.name} has no result for the arguments {shown}")

    def apply(self, state: dict[str, Any], args: dict[str, Any]) -> dict[str, Any] | str:
        """The state after this call's writes (a new object), or why they cannot be applied."""
        staged = copy.deepcopy(state)
        for i, (path, value) in enumerate(self._writes):
            keys = self._fill_path(path, args, f"writes[{i}].path")
            try:
                filled = fill_value(value, args)
            except TemplateError as exc:
                raise ToolDataError(f"writes[{i}].value", str(exc)) from None
            problem = set_path(staged, keys, filled)
            if problem is not None:
                return problem
        return staged

    @staticmethod
    def _fill_path(path: str, args: dict[str, Any], field: str) -> list[str]:
        try:
            return fill_path(path, args)
        except TemplateError as exc:
            raise ToolDataError(field, str(exc)) from None


__all__ = ["DataTool", "ToolDataError"]
