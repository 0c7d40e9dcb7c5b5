"""``scripted``: an in-process Python callable that answers model requests.

The callable takes a ``ModelRequest`` and returns a ``ModelResponse`` (or a dict of one), and
may be a coroutine function. It is named in the target file as ``path/to/file.py:name``
(relative to the target file) or ``package.module:name``.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_core import to_jsonable_python

from bench.core.canonical import canonical_json
from bench.core.errors import EntrantError, InputError
from bench.core.recordtext import unfit_text
from bench.core.validation import field_path

from .base import ARGUMENT_DEPTH, BODY_DEPTH, ModelRequest, ModelResponse, TargetSpec, too_deep

Responder = Callable[[ModelRequest], Any]


def resolve_callable(reference: str, base: Path, target_file: Path) -> Responder:
    """Import the callable a target file names; every failure names the file and field."""
    location, sep, name = reference.rpartition(":")
    if not sep or not location or not name:
        raise InputError(
            f"'{reference}' is not 'path/to/file.py:name' or 'package.module:name'",
            code="TARGET_CALLABLE",
            path=target_file,
            field="callable",
        )
    if location.endswith(".py"):
        source = (base / location).resolve()
        if not source.is_file():
            raise InputError(
                f"'{location}' not found (looked at {source})",
                code="TARGET_CALLABLE",
                path=target_file,
                field="callable",
            )
        module_name = "bench_entrant_" + hashlib.sha256(str(source).encode()).hexdigest()[:12]
        spec = importlib.util.spec_from_file_location(module_name, source)
        if spec is None or spec.loader is None:
            raise InputError(
                f"cannot import '{location}'",
                code="TARGET_CALLABLE",
                path=target_file,
                field="callable",
            )
        module = importlib.util.module_from_spec(spec)
        # Registered first, as a normal import would be: dataclasses and pickling look it up.
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # the entrant's own import failed: say so, no traceback
            sys.modules.pop(module_name, None)
            raise InputError(
                f"importing '{location}' failed: {type(exc).__name__}: {exc}",
                code="TARGET_CALLABLE",
                path=target_file,
                field="callable",
            ) from None
    else:
        try:
            module = importlib.import_module(location)
        except ImportError as exc:
            raise InputError(
                f"cannot import module '{location}': {exc}{_file_hint(location, name, exc, base)}",
                code="TARGET_CALLABLE",
                path=target_file,
                field="callable",
            ) from None
    found = getattr(module, name, None)
    if found is None:
        raise InputError(
            f"no callable '{name}' in '{location}'",
            code="TARGET_CALLABLE",
            path=target_file,
            field="callable",
        )
    if not callable(found):
        raise InputError(
            f"'{name}' in '{location}' is not callable",
            code="TARGET_CALLABLE",
            path=target_file,
            field="callable",
        )
    responder: Responder = found
    return responder


def _file_hint(location: str, name: str, exc: ImportError, base: Path) -> str:
    """For a module that is not found at all: where modules come from, and the callable
    named as the file it may be (``mybot:answer`` beside you is ``mybot.py:answer``)."""
    missing = exc.name if isinstance(exc, ModuleNotFoundError) else None
    if missing is None or not (location == missing or location.startswith(missing + ".")):
        return ""  # the module was found; something it imports was not
    relative = Path(*location.split(".")).with_suffix(".py")
    here = Path.cwd() / relative
    if here.is_file():
        named = Path(os.path.relpath(here, base.resolve())).as_posix()
        return (
            f"; modules come from sys.path, which does not hold the current directory where "
            f"{relative.as_posix()} is: name the file, relative to the target file, as "
            f"'{named}:{name}'"
        )
    return (
        "; modules come from sys.path (installed packages, PYTHONPATH), not the current "
        f"directory: a file is named relative to the target file, as '{relative.as_posix()}:"
        f"{name}'"
    )


class ScriptedTarget:
    def __init__(self, spec: TargetSpec, responder: Responder) -> None:
        self.spec = spec
        self._responder = responder
        self._is_async = inspect.iscoroutinefunction(responder)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        if self._is_async:
            result = await self._responder(request)
        else:
            # A thread, so that a slow synchronous agent cannot stop the attempt timeout.
            result = await asyncio.to_thread(self._responder, request)
        try:
            response = (
                result
                if isinstance(result, ModelResponse)
                else ModelResponse.model_validate(result)
            )
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where = field_path(first["loc"])  # the field, so "Extra inputs" names it
            raise EntrantError(
                f"the scripted entrant returned something that is not a ModelResponse: "
                f"{where + ': ' if where else ''}{first['msg']}",
                code="ENTRANT_BAD_RESPONSE",
            ) from None
        if response.raw is not None:
            # The harness records ``raw`` as it is: make it JSON-native here, once.
            response = response.model_copy(update={"raw": to_jsonable_python(response.raw)})
        record = response.record()
        try:
            data = canonical_json(record)
        except (ValueError, TypeError, RecursionError) as exc:
            # What JSON cannot hold (an integer of more than 4,300 digits, a float that is not
            # finite, a lone surrogate) raised inside the harness when the attempt was
            # recorded: a harness fault, out of the score, at the entrant's choice.
            raise EntrantError(
                f"the scripted entrant returned something JSON cannot hold: "
                f"{type(exc).__name__}: {str(exc)[:200]}",
                code="ENTRANT_BAD_RESPONSE",
            ) from None
        # What JSON holds but no record may (core.recordtext: bench verify would refuse the
        # bundle), as an HTTP endpoint's answer is refused where it comes in (targets.http).
        problem = unfit_text(record, data.decode("utf-8"))
        opened = data.count(b"{") + data.count(b"[")
        if problem is None and opened > BODY_DEPTH and too_deep(record, BODY_DEPTH):
            problem = f"it nests deeper than {BODY_DEPTH} levels"
        if problem is None:
            deep = [c.name for c in response.tool_calls if too_deep(c.arguments)]
            if deep:
                problem = f"the arguments of {deep[0]} nest deeper than {ARGUMENT_DEPTH} levels"
        if problem is not None:
            raise EntrantError(
                f"the scripted entrant returned something no record may hold: {problem}",
                code="ENTRANT_BAD_RESPONSE",
            )
        return response

    async def aclose(self) -> None:
        return None


__all__ = ["Responder", "ScriptedTarget", "resolve_callable"]
