"""Where an HTTP target's endpoint, model and key come from.

Priority, highest first: command-line overrides > the process environment > a ``.env`` file >
the target file. A variable the calling process set is never overridden by a stale ``.env``.

* ``provider: local`` in the target file (or ``--provider local``) reads
  ``BENCH_LOCAL_BASE_URL``, ``BENCH_LOCAL_MODEL`` and ``BENCH_LOCAL_API_KEY``.
* ``api_key_env: OPENAI_API_KEY`` names the variable that holds the key; the target file never
  holds the key itself. ``BENCH_<PROVIDER>_API_KEY``, when set, wins over it; an
  ``--api-key-env`` override wins over both.

The key is attached to the spec as a private attribute (``TargetSpec.api_key()``), so it is in
no dump, record or repr. ``check_target_secrets`` refuses a target whose settings carry a
secret anyway (``TARGET_SECRET``): every request records its ``params``, so a secret there
would be in the run, its cassette and every bundle made of it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import ValidationError

from bench.core.diskerror import raise_if_disk
from bench.core.errors import InputError
from bench.core.secrets import find_secrets, find_value, target_findings
from bench.core.validation import describe

from .base import ENV_NAME_PATTERN, HTTP_KINDS, TargetSpec

OVERRIDABLE = ("provider", "base_url", "model", "api_key_env", "system_prompt")
HEADER_SAFE = re.compile(r"[\x21-\x7e]+")


def read_dotenv(path: Path) -> dict[str, str]:
    """``KEY=VALUE`` lines (``export`` allowed, ``#`` comments, single or double quotes).

    A missing file is an empty mapping; nothing here is ever exported to the process.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise_if_disk(exc, path)  # the disk, not the file: IO_ERROR, never "invalid"
        raise InputError(
            f"cannot read .env: {exc.strerror}", code="INPUT_INVALID", path=path
        ) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot read .env: {exc}", code="INPUT_INVALID", path=path) from None
    values: dict[str, str] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("export "):
            stripped = stripped[len("export ") :].lstrip()
        name, sep, value = stripped.partition("=")
        name = name.strip()
        if not sep or not name.replace("_", "a").isalnum():
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        else:
            hash_at = value.find(" #")
            if hash_at >= 0:
                value = value[:hash_at].rstrip()
        values[name] = value
    return values


def _lookup(name: str, env: Mapping[str, str], dotenv: Mapping[str, str]) -> str | None:
    for source in (env, dotenv):
        value = source.get(name)
        if value is not None and value.strip():
            return value.strip()
    return None


def check_base_url(url: str, source: Path | str | None) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(
            "the base URL must be http:// or https:// with a host",
            code="TARGET_INVALID",
            path=source,
            field="base_url",
        )


def check_target_secrets(spec: TargetSpec, source: Path | str | None) -> None:
    """Refuse (``TARGET_SECRET``, naming the file and the field, never the value) a target whose
    settings carry a secret: the key itself (the value of the variable ``api_key_env`` names,
    or ``BENCH_<PROVIDER>_API_KEY``) anywhere in the spec — ``params``, ``system_prompt``,
    ``base_url``, ``model`` …; a ``params`` entry named like a credential (``api_key``,
    ``token``, ``authorization`` …; not ``max_tokens``); or a value shaped like a known key
    (``sk-…``, ``Bearer …``, ``ghp_…``, ``AKIA…``) in ``params`` or the system prompt. The
    rule is ``bench.core.secrets``; ``bench bundle`` and ``bench verify`` apply the same."""
    data = spec.model_dump(mode="json")
    data.pop("api_key_env", None)  # a variable's name, not its value
    held = find_value(data, spec.api_key())
    if held is not None:
        raise InputError(
            "holds the API key itself (the value of the key's environment variable): a target "
            "never carries its key, it names the variable with api_key_env",
            code="TARGET_SECRET",
            path=source,
            field=held,
        )
    for where, problem in find_secrets(data.get("headers") or {}, "headers"):
        raise InputError(
            f"{problem}: a run records the target's headers, so a credential there would be "
            "published; a gateway's key goes in an environment variable named by api_key_env",
            code="TARGET_SECRET",
            path=source,
            field=where,
        )
    for finding in target_findings(data, ""):
        raise InputError(
            f"{finding.problem}: every request records the target's params and system prompt, "
            "so a secret there would be published; put keys in an environment variable and "
            "name it with api_key_env",
            code="TARGET_SECRET",
            path=source,
            field=finding.field,
        )


def resolve_spec(
    spec: TargetSpec,
    env: Mapping[str, str] | None = None,
    dotenv_path: Path | None = None,
    overrides: Mapping[str, str | None] | None = None,
    *,
    source: Path | str | None = None,
) -> TargetSpec:
    """Apply overrides, the environment and ``.env`` to an HTTP target; attach its key.

    ``env`` defaults to ``os.environ``; ``dotenv_path`` is read only when given. Other kinds
    come back unchanged. A key variable that is named but set nowhere is an error
    (``TARGET_KEY_MISSING``); a target that names none is sent without a key.
    """
    prompt = (overrides or {}).get("system_prompt")
    if prompt is not None and prompt.strip():  # every kind: the harness sends it
        spec = TargetSpec.model_validate({**spec.model_dump(), "system_prompt": prompt})
    if spec.kind not in HTTP_KINDS:
        return spec
    environment: Mapping[str, str] = os.environ if env is None else env
    dotenv = read_dotenv(dotenv_path) if dotenv_path is not None else {}
    given = {k: v for k, v in (overrides or {}).items() if v is not None and str(v).strip()}
    unknown = sorted(set(given) - set(OVERRIDABLE))
    if unknown:
        raise InputError(
            f"cannot override {', '.join(unknown)} (only {', '.join(OVERRIDABLE)})",
            code="TARGET_INVALID",
            path=source,
        )
    update: dict[str, str] = {}
    provider = given.get("provider") or spec.provider
    key: str | None = None
    origin = ""
    if provider is not None:
        prefix = f"BENCH_{provider.upper()}_"
        for field, suffix in (("base_url", "BASE_URL"), ("model", "MODEL")):
            found = _lookup(prefix + suffix, environment, dotenv)
            if found is not None:
                update[field] = found
        key = _lookup(prefix + "API_KEY", environment, dotenv)
        origin = prefix + "API_KEY"
        update["provider"] = provider
    for field in ("base_url", "model", "api_key_env"):
        if field in given:
            update[field] = given[field].strip()
    named = given.get("api_key_env")
    if named is not None and not re.fullmatch(ENV_NAME_PATTERN, named):
        raise InputError(
            f"--api-key-env {named!r} is not an environment variable name (letters, digits "
            "and _, not starting with a digit)",
            code="TARGET_INVALID",
            path=source,
            field="api_key_env",
        )
    if named is not None or key is None:
        variable = named or spec.api_key_env
        if variable is not None:
            key, origin = _lookup(variable, environment, dotenv), variable
            if key is None:
                raise InputError(
                    f"the environment variable {variable} (api_key_env) is not set"
                    + (f", nor in {dotenv_path}" if dotenv_path is not None else "")
                    + f": export {variable}=<key>, or put that line in .env",
                    code="TARGET_KEY_MISSING",
                    path=source,
                    field="api_key_env",
                )
    if key is not None and not HEADER_SAFE.fullmatch(key):
        # httpx would refuse it with the key in its message: say so here, without the key.
        raise InputError(
            f"the key in {origin} has characters an HTTP header cannot carry",
            code="TARGET_INVALID",
            path=source,
            field="api_key_env",
        )
    try:
        resolved = TargetSpec.model_validate({**spec.model_dump(), **update})
    except ValidationError as exc:
        field, message = describe(exc)
        raise InputError(
            f"an override or the environment gave an invalid value: {message}",
            code="TARGET_INVALID",
            path=source,
            field=field,
        ) from None
    return resolved.with_api_key(key)


__all__ = [
    "OVERRIDABLE",
    "check_base_url",
    "check_target_secrets",
    "read_dotenv",
    "resolve_spec",
]
