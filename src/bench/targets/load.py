"""Reading a target file and building the entrant it names."""

from __future__ import annotations

import os
import random
from collections.abc import Mapping
from pathlib import Path

from pydantic import ValidationError

from bench.core.errors import InputError
from bench.core.files import read_structured
from bench.core.validation import describe

from .agent import HttpAgentTarget
from .anthropic import AnthropicTarget
from .base import AGENT_KINDS, HTTP_KINDS, Target, TargetSpec
from .cassette import CassetteTarget, read_cassette
from .config import (
    HEADER_SAFE,
    check_base_url,
    check_target_secrets,
    read_dotenv,
    resolve_spec,
)
from .openai import OpenAITarget
from .scripted import ScriptedTarget, resolve_callable

MODEL_UNSET = "<unset: --model or BENCH_<PROVIDER>_MODEL>"
"""The model of an HTTP or http-agent target file that names none, until the command line
(``--model``) or the environment (``BENCH_<PROVIDER>_MODEL``) supplies it: ``build_target``
refuses a target still holding it, so no run records it."""

MODEL_REQUEST_KINDS: tuple[str, ...] = ("scripted", "cassette", *HTTP_KINDS)
"""The kinds the harness sends model requests to: an http-agent is sent whole turns, which
carry no sampling parameters and no tool-choice policy."""
# Fields only some kinds read; a target file of another kind naming one is a mistake.
FIELD_KINDS: dict[str, tuple[str, ...]] = {
    "callable": ("scripted",),
    "params": MODEL_REQUEST_KINDS,
    "tool_choice": MODEL_REQUEST_KINDS,
    "cassette": ("cassette",),
    "provider": HTTP_KINDS,
    "base_url": HTTP_KINDS + AGENT_KINDS,
    "api_key_env": HTTP_KINDS + AGENT_KINDS,
    "stream": HTTP_KINDS,
    "headers": HTTP_KINDS,
    "timeouts": HTTP_KINDS + AGENT_KINDS,
    "retry": HTTP_KINDS + AGENT_KINDS,
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
    _check_headers(raw.get("headers"), path)
    if raw.get("model") is None or raw.get("model") == "":
        # What --model or BENCH_<PROVIDER>_MODEL supplies need not be in the file (any
        # placeholder would do): build_target refuses the target if nothing supplies it.
        if raw.get("kind") in HTTP_KINDS + AGENT_KINDS:
            raw = {**raw, "model": MODEL_UNSET}
        elif raw.get("kind") in ("scripted", "cassette"):
            raise InputError(
                f"required field is missing: a {raw['kind']} target names its model (a label "
                "recorded with its runs and part of their fingerprint: any name will do)",
                code="TARGET_INVALID",
                path=path,
                field="model",
            )
    try:
        spec = TargetSpec.model_validate(raw)
    except ValidationError as exc:
        field, message = describe(exc)
        raise InputError(message, code="TARGET_INVALID", path=path, field=field) from None
    for name, value in raw.items():
        owners = FIELD_KINDS.get(str(name))
        if owners is not None and value is not None and spec.kind not in owners:
            whose = _listed(owners) if owners else "the harness (recorded runs)"
            raise InputError(
                f"unknown field for {_article(spec.kind)} {spec.kind} target (it is for {whose})",
                code="TARGET_INVALID",
                path=path,
                field=str(name),
            )
    return spec


def _article(kind: str) -> str:
    """The article before a kind's name in a message: "an http-agent target"."""
    return "an" if kind in AGENT_KINDS else "a"


def _listed(names: tuple[str, ...]) -> str:
    """``openai and anthropic``; ``scripted, cassette, openai and anthropic``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _kind_of(value: object) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, bytes):
        return "binary (!!binary)"
    return f"a {type(value).__name__}"  # a date, a time


def _check_headers(headers: object, path: Path) -> None:
    """``headers`` is a mapping of names to values, each of them text, said in words (not
    pydantic's "Input should be a valid string"): YAML reads ``x-retry-count: 5`` as a number,
    ``x-flag: yes`` as true/false, ``x-a:`` as nothing. The rest (a name, a value's
    characters, how many) is ``TargetSpec``'s own check."""
    if headers is None:
        return
    if not isinstance(headers, dict):
        raise InputError(
            f"is {_kind_of(headers) if not isinstance(headers, str) else 'a string'}: "
            "headers is a mapping, one 'name: value' line per header",
            code="TARGET_INVALID",
            path=path,
            field="headers",
        )
    for name, value in headers.items():
        if not isinstance(name, str):
            raise InputError(
                f"a header name is text, got {_kind_of(name)} ({str(name)[:40]})",
                code="TARGET_INVALID",
                path=path,
                field="headers",
            )
        shown = name if len(name) <= 80 else name[:80] + "…"
        if value is None:
            raise InputError(
                "has no value: give it one (quoted), or leave the header out",
                code="TARGET_INVALID",
                path=path,
                field=f"headers.{shown}",
            )
        if not isinstance(value, str):
            raise InputError(
                f"is {_kind_of(value)}: a header's value is one line of text; quote it "
                f'({shown}: "...")',
                code="TARGET_INVALID",
                path=path,
                field=f"headers.{shown}",
            )
        if not value.strip():
            # An empty routing header reaches the gateway as "not set" or as a header it
            # rejects; either way not what the file meant.
            raise InputError(
                f"is {'empty' if not value else 'only spaces'}: give the header a value, or "
                "leave it out",
                code="TARGET_INVALID",
                path=path,
                field=f"headers.{shown}",
            )


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
    given); see ``resolve_spec``. ``rng`` seeds the retry jitter (tests).

    A target whose settings carry a secret is refused (``TARGET_SECRET``,
    ``check_target_secrets``) once its key is resolved, before anything is built."""
    if spec.kind in HTTP_KINDS:
        return _http_target(spec, source, env, dotenv, overrides, rng)
    if spec.kind in AGENT_KINDS:
        return _agent_target(spec, source, env, dotenv, overrides, rng)
    spec = _local_overrides(spec, source, overrides)
    check_target_secrets(spec, source)
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
    return CassetteTarget(spec, read_cassette(location, compact=True), location)


def _local_overrides(
    spec: TargetSpec, source: Path, overrides: Mapping[str, str | None] | None
) -> TargetSpec:
    """A scripted or cassette target takes ``--system-prompt`` (the harness sends it, whatever
    the kind) and nothing else from the command line: a ``--model`` or ``--base-url`` it
    cannot use is refused, never dropped without a word (the run would record the file's)."""
    given = {k: v for k, v in (overrides or {}).items() if v is not None and str(v).strip()}
    unknown = sorted(set(given) - {"system_prompt"})
    if unknown:
        flags = ", ".join("--" + name.replace("_", "-") for name in unknown)
        raise InputError(
            f"a {spec.kind} target cannot take {flags} (only --system-prompt): "
            + (
                "its model is a label in the target file (edit model: there)"
                if "model" in unknown
                else "those are for the HTTP kinds (openai, anthropic)"
            ),
            code="TARGET_INVALID",
            path=source,
            field=unknown[0],
        )
    return resolve_spec(spec, overrides=given, source=source) if given else spec


def _http_target(
    spec: TargetSpec,
    source: Path,
    env: Mapping[str, str] | None,
    dotenv: Path | None,
    overrides: Mapping[str, str | None] | None,
    rng: random.Random | None,
) -> Target:
    resolved = resolve_spec(spec, env, dotenv, overrides, source=source)
    if resolved.model == MODEL_UNSET:
        variable = f"BENCH_{resolved.provider.upper()}_MODEL" if resolved.provider else None
        raise InputError(
            "required field is missing, and nothing supplies it: name it in the file (model: "
            "NAME), give --model NAME"
            + (
                f", or set {variable} in the environment or .env"
                if variable
                else ", or name a provider (provider: NAME) and set BENCH_<NAME>_MODEL in the "
                "environment or .env"
            ),
            code="TARGET_INVALID",
            path=source,
            field="model",
        )
    if not resolved.base_url:
        hint = f" or BENCH_{resolved.provider.upper()}_BASE_URL" if resolved.provider else ""
        raise InputError(
            f"an {resolved.kind} target needs a base_url (in the file{hint})",
            code="TARGET_INVALID",
            path=source,
            field="base_url",
        )
    check_base_url(resolved.base_url, source)
    check_target_secrets(resolved, source)
    if resolved.kind == "openai":
        return OpenAITarget(resolved, rng=rng)
    return AnthropicTarget(resolved, rng=rng)


def _agent_target(
    spec: TargetSpec,
    source: Path,
    env: Mapping[str, str] | None,
    dotenv: Path | None,
    overrides: Mapping[str, str | None] | None,
    rng: random.Random | None,
) -> Target:
    """An ``http-agent``: ``--base-url``, ``--model`` and ``--api-key-env`` apply; the key (if
    the file names one) comes from the environment, then the ``.env`` file."""
    given = {k: v.strip() for k, v in (overrides or {}).items() if v is not None and v.strip()}
    unknown = sorted(set(given) - {"base_url", "model", "api_key_env"})
    if unknown:
        raise InputError(
            f"an http-agent target cannot take {', '.join(unknown)} (only base_url, model, "
            "api_key_env)",
            code="TARGET_INVALID",
            path=source,
            field=unknown[0],
        )
    if given:
        data = {**spec.model_dump(exclude_unset=True), **given}
        try:
            spec = TargetSpec.model_validate(data)
        except ValidationError as exc:
            field, message = describe(exc)
            raise InputError(
                f"an override gave an invalid value: {message}",
                code="TARGET_INVALID",
                path=source,
                field=field,
            ) from None
    if spec.model == MODEL_UNSET:
        raise InputError(
            "required field is missing: name it in the file (model: NAME) or give --model "
            "NAME (an agent's model is a label recorded with its runs: any name will do)",
            code="TARGET_INVALID",
            path=source,
            field="model",
        )
    if not spec.base_url:
        raise InputError(
            "an http-agent target needs a base_url (the URL each turn is POSTed to)",
            code="TARGET_INVALID",
            path=source,
            field="base_url",
        )
    check_base_url(spec.base_url, source)
    key: str | None = None
    if spec.api_key_env is not None:
        environment: Mapping[str, str] = os.environ if env is None else env
        values = read_dotenv(dotenv) if dotenv is not None else {}
        key = (environment.get(spec.api_key_env) or values.get(spec.api_key_env) or "").strip()
        if not key:
            raise InputError(
                f"the environment variable {spec.api_key_env} (api_key_env) is not set: "
                f"export {spec.api_key_env}=<key>, or put that line in .env",
                code="TARGET_KEY_MISSING",
                path=source,
                field="api_key_env",
            )
        if not HEADER_SAFE.fullmatch(key):
            raise InputError(
                f"the key in {spec.api_key_env} has characters an HTTP header cannot carry",
                code="TARGET_INVALID",
                path=source,
                field="api_key_env",
            )
    keyed = spec.with_api_key(key)
    check_target_secrets(keyed, source)
    return HttpAgentTarget(keyed, rng=rng)


def load_target(
    path: Path,
    *,
    env: Mapping[str, str] | None = None,
    dotenv: Path | None = None,
    overrides: Mapping[str, str | None] | None = None,
) -> Target:
    spec = read_target_spec(path)
    return build_target(spec, path.parent, path, env=env, dotenv=dotenv, overrides=overrides)


__all__ = ["MODEL_UNSET", "build_target", "load_target", "read_target_spec"]
