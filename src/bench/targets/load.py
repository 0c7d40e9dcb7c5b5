"""Reading a target file and building the entrant it names."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from bench.core.errors import InputError
from bench.core.files import read_structured
from bench.core.validation import describe

from .base import Target, TargetSpec
from .cassette import CassetteTarget, read_cassette
from .scripted import ScriptedTarget, resolve_callable


def read_target_spec(path: Path) -> TargetSpec:
    raw = read_structured(path)
    if not isinstance(raw, dict):
        raise InputError("a target file is a mapping", code="TARGET_INVALID", path=path)
    try:
        return TargetSpec.model_validate(raw)
    except ValidationError as exc:
        field, message = describe(exc)
        raise InputError(message, code="TARGET_INVALID", path=path, field=field) from None


def build_target(spec: TargetSpec, base: Path, source: Path) -> Target:
    """``base`` is the directory relative paths in the spec are resolved against."""
    if spec.kind == "scripted":
        if not spec.callable:
            raise InputError(
                "a scripted target names its callable",
                code="TARGET_INVALID",
                path=source,
                field="callable",
            )
        return ScriptedTarget(spec, resolve_callable(spec.callable, base, source))
    if not spec.cassette:
        raise InputError(
            "a cassette target names its cassette",
            code="TARGET_INVALID",
            path=source,
            field="cassette",
        )
    location = base / spec.cassette
    return CassetteTarget(spec, read_cassette(location), location)


def load_target(path: Path) -> Target:
    spec = read_target_spec(path)
    return build_target(spec, path.parent, path)


__all__ = ["build_target", "load_target", "read_target_spec"]
