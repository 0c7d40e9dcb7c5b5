"""Reading a target file and building the entrant it names."""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path

from pydantic import ValidationError

from bench.core.errors import InputError
from bench.core.files import read_structured
from bench.core.validation import describe

from .anthropic import AnthropicTarget
from .base import HTTP_KINDS, Target, TargetSpec
from .cassette import CassetteTarget, read_cassette
from .config import check_base_url, resolve_spec
from .openai import OpenAITarget
from .scripted import ScriptedTarget, resolve_callable

# Fields only some kinds read; a target file of another kind naming one is a mistake.
FIELD_KINDS: dict[str, tuple[str, ...]] = {
    "callable": ("scripted",),
    "cassette": ("cassette",),
    "provider": HTTP_KINDS,
    "base_url": HTTP_KINDS,
    "api_key_env": HTTP_KINDS,
    "stream": HTTP_KINDS,
    "timeouts": HTTP_KINDS,
    "retry": HTTP_KINDS,
    "max_tokens_param": ("openai",),
    "anthropic_version": ("anthropic",),
    "endpoint_id": (),
}


def read_target_spec(path: Path) -> TargetSpec:
    raw = read_structured(path)
    if not isinstance(raw, dict):
        raise InputError("a target file is a mapping", code="TARGET_INVALID", path=path)
    if "api_key" in raw:
        raise InputError(
            "a target file never holds an API key: put it in an environment variable "
            "(or .env) and name the variable with api_key_env",
            code="TARGET_INVALID",
            path=path,
            field="api_key",
        )
    try:
        spec = TargetSpec.model_validate(raw)
    except ValidationError as exc:
        field, message = describe(exc)
        raise InputError(message, code="TARGET_INVALID", path=path, field=field) from None
    for name, value in raw.items():
        owners = FIELD_KINDS.get(str(name))
        if owners is not None and value is not None and spec.kind not in owners:
            whose = " and ".join(owners) if owners else "the harness (recorded runs)"
            raise InputError(
                f"unknown field for a {spec.kind} target (it is for {whose})",
                code="TARGET_INVALID",
                path=path,
                field=str(name),
            )
    return spec


def build_target(
    spec: TargetSpec,
    base: Path,
    source: Path,
    *,
    env: Mapping[str, str] | None = None,
    dotenv: Path | None = None,
    overrides: Mapping[str, str | None] | None = None,
    rng: random.Random | None = None,
) -> Target:
    """``base`` is the directory relative paths in the spec are resolved against.

    HTTP kinds (``openai``, ``anthropic``) are first resolved against ``overrides`` (command
    line), ``env`` (default: the process environment) and the ``dotenv`` file (read only when
    given); see ``resolve_spec``. ``rng`` seeds the retry jitter (tests)."""
    if spec.kind in HTTP_KINDS:
        return _http_target(spec, source, env, dotenv, overrides, rng)
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


def _http_target(
    spec: TargetSpec,
    source: Path,
    env: Mapping[str, str] | None,
    dotenv: Path | None,
    overrides: Mapping[str, str | None] | None,
    rng: random.Random | None,
) -> Target:
    resolved = resolve_spec(spec, env, dotenv, overrides, source=source)
    if not resolved.base_url:
        hint = f" or BENCH_{resolved.provider.upper()}_BASE_URL" if resolved.provider else ""
        raise InputError(
            f"an {resolved.kind} target needs a base_url (in the file{hint})",
            code="TARGET_INVALID",
            path=source,
            field="base_url",
        )
    check_base_url(resolved.base_url, source)
    if resolved.kind == "openai":
        return OpenAITarget(resolved, rng=rng)
    return AnthropicTarget(resolved, rng=rng)


def load_target(
    path: Path,
    *,
    env: Mapping[str, str] | None = None,
    dotenv: Path | None = None,
    overrides: Mapping[str, str | None] | None = None,
) -> Target:
    spec = read_target_spec(path)
    return build_target(spec, path.parent, path, env=env, dotenv=dotenv, overrides=overrides)


__all__ = ["build_target", "load_target", "read_target_spec"]
