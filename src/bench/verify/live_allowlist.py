"""The endpoint allow-list: which endpoint ``bench verify --live`` may call for which entrant.

It lives in the trusted repository (``submissions/endpoints.yaml``), is written by maintainers,
and is the only source of a URL the live check ever calls: a bundle only *names* an endpoint
(``endpoint_id``) and the name must match an entry here. With ``--base-ref REF`` the file is
read as committed at REF, never from the working tree of the change being verified.

Format (docs/LIVE-VERIFY.md, "The allow-list")::

    format_version: 1
    entrants:
      acme-bot:
        - kind: openai                       # or anthropic
          base_url: https://api.acme.example/v1
          model: acme-large-2026-01
          api_key_env: BENCH_LIVE_ACME_KEY   # the NAME of the variable; null: no key
          requests_per_minute: 30            # optional
          max_requests: 400                  # optional: model calls in one live check
          concurrency: 1                     # optional, 1-16
          retry: {max_attempts: 3}           # optional, as in a target file
          timeouts: {deadline_s: 120}        # optional, as in a target file
          headers: {x-portkey-provider: openai}  # optional: a gateway's routing headers

Strict: unknown keys, anchors/aliases, duplicate keys, a URL with credentials, a query or a
fragment (a committed secret), or the same endpoint twice for one entrant are refused with
``LIVE_ALLOWLIST_INVALID`` (exit 2).
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import Field, StringConstraints, ValidationError, field_validator, model_validator

from bench.core.errors import InputError
from bench.core.files import read_yaml
from bench.core.ids import ID_PATTERN
from bench.core.models import Strict
from bench.core.secrets import find_secrets
from bench.core.validation import describe
from bench.targets.base import (
    ENV_NAME_PATTERN,
    RetrySettings,
    TargetSpec,
    Timeouts,
    endpoint_id,
    redact_url,
)

from .codes import Code
from .failure import VerifyFailure

MAX_ALLOWLIST_BYTES = 1024 * 1024
GIT_TIMEOUT_S = 30.0

EnvName = Annotated[str, StringConstraints(pattern=ENV_NAME_PATTERN, max_length=100)]


class AllowedEndpoint(Strict):
    """One endpoint maintainers allow the live check to call for an entrant."""

    kind: Literal["openai", "anthropic"]
    base_url: str = Field(
        min_length=1,
        max_length=2000,
        description="openai: the API root (…/v1); anthropic: the host root; as the entrant ran it",
    )
    model: str = Field(min_length=1, max_length=200)
    api_key_env: EnvName | None = Field(
        description="the NAME of the environment variable holding the key (null: none); "
        "required, so that a missing key is a decision, not an omission"
    )
    requests_per_minute: float | None = Field(None, gt=0, le=100_000)
    max_requests: int | None = Field(None, ge=1, description="model calls in one live check")
    concurrency: int = Field(1, ge=1, le=16)
    retry: RetrySettings = Field(default_factory=RetrySettings)
    timeouts: Timeouts = Field(default_factory=Timeouts)
    headers: dict[str, str] | None = Field(
        None,
        description="a gateway's routing headers, sent with every request of the live check as "
        "a target's headers are; the bundle's recorded headers must be these",
    )

    @field_validator("headers")
    @classmethod
    def _sendable_headers(cls, headers: dict[str, str] | None) -> dict[str, str] | None:
        # Where the gateway sends the request is the allow-list's word, never the bundle's: a
        # header such as x-portkey-custom-host would otherwise let a bundle pick the server.
        if headers is None:
            return None
        TargetSpec._headers_are_sendable(headers)
        for name, value in headers.items():
            if not value.strip():
                raise ValueError(f"the value of {name!r} is empty")
        for where, problem in find_secrets(headers, "headers"):
            name = where.removeprefix("headers.")
            raise ValueError(
                f"{name!r}: {problem}: a committed file carries no credential (name the key's "
                "variable in api_key_env)"
            )
        return headers

    @field_validator("base_url")
    @classmethod
    def _plain_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http:// or https:// URL with a host")
        if parts.username is not None or parts.password is not None:
            raise ValueError("must not carry credentials (name the key's variable instead)")
        if parts.query or parts.fragment:
            raise ValueError("must not have a query or fragment (it could carry a secret)")
        if any(ch.isspace() or ord(ch) < 32 for ch in value):
            raise ValueError("must not contain whitespace or control characters")
        try:
            parts.port  # noqa: B018 - raises on a bad port
        except ValueError:
            raise ValueError("has an invalid port") from None
        return value

    def same_headers(self, recorded: object) -> bool:
        """Whether a bundle's recorded ``headers`` are this endpoint's (names in any case)."""
        mine = {name.lower(): value for name, value in (self.headers or {}).items()}
        if not isinstance(recorded, dict):
            return recorded is None and not mine
        return {str(name).lower(): value for name, value in recorded.items()} == mine

    @property
    def endpoint_id(self) -> str:
        """What a bundle run against this endpoint records (``bench.targets.base``)."""
        return endpoint_id(self.base_url)

    @property
    def shown_url(self) -> str:
        """``scheme://host[:port]``: what reports may print (a path can carry a token)."""
        return redact_url(self.base_url)


class EndpointAllowlist(Strict):
    format_version: Literal[1]
    entrants: dict[str, Annotated[list[AllowedEndpoint], Field(min_length=1)]]

    @field_validator("entrants")
    @classmethod
    def _entrant_ids(
        cls, value: dict[str, list[AllowedEndpoint]]
    ) -> dict[str, list[AllowedEndpoint]]:
        for entrant in value:
            if len(entrant) > 64 or not re.fullmatch(ID_PATTERN, entrant):
                raise ValueError(f"'{entrant}' is not an entrant id ({ID_PATTERN}, at most 64)")
        return value

    @model_validator(mode="after")
    def _no_twins(self) -> EndpointAllowlist:
        for entrant, endpoints in self.entrants.items():
            keys = [(e.kind, e.model, e.endpoint_id) for e in endpoints]
            if len(set(keys)) != len(keys):
                raise ValueError(f"entrant '{entrant}' lists the same endpoint and model twice")
        return self


def _invalid(message: str, where: str, field: str | None = None) -> VerifyFailure:
    return VerifyFailure(Code.LIVE_ALLOWLIST_INVALID, message, path=where, field=field)


def _blob_at_ref(ref: str, path: Path, git_dir: Path | None) -> bytes:
    where = f"{ref}:{path}"
    if not ref or ref.startswith("-") or any(ch.isspace() or ch in ":\0" for ch in ref):
        raise _invalid(f"--base-ref '{ref}' is not a git revision", where)
    if path.is_absolute():
        raise _invalid("with --base-ref the allow-list is a path inside the repository", where)
    try:
        done = subprocess.run(
            ["git", "cat-file", "blob", f"{ref}:./{path.as_posix()}"],
            cwd=git_dir,
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise _invalid(f"cannot run git: {exc}", where) from None
    if done.returncode != 0:
        raise _invalid(f"no allow-list at '{ref}' (a bad ref, or the file is not there)", where)
    return done.stdout


def _parse_at_ref(ref: str, path: Path, git_dir: Path | None) -> object:
    data = _blob_at_ref(ref, path, git_dir)
    if len(data) > MAX_ALLOWLIST_BYTES:
        raise _invalid(f"larger than {MAX_ALLOWLIST_BYTES} bytes", f"{ref}:{path}")
    # The strict YAML reader takes a path: the committed bytes go through a private temp file.
    handle, name = tempfile.mkstemp(prefix="bench-allowlist-", suffix=".yaml")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        return read_yaml(Path(name))
    finally:
        os.unlink(name)


def load_allowlist(
    path: Path, *, base_ref: str | None = None, git_dir: Path | None = None
) -> EndpointAllowlist:
    """The allow-list at ``path`` (as committed at ``base_ref`` when given); any problem is a
    ``VerifyFailure`` with ``LIVE_ALLOWLIST_INVALID`` naming the file and field."""
    where = f"{base_ref}:{path}" if base_ref is not None else str(path)
    try:
        if base_ref is not None:
            raw = _parse_at_ref(base_ref, path, git_dir)
        else:
            if path.is_file() and path.stat().st_size > MAX_ALLOWLIST_BYTES:
                raise _invalid(f"larger than {MAX_ALLOWLIST_BYTES} bytes", where)
            raw = read_yaml(path)
    except InputError as exc:
        raise _invalid(f"{exc.code}: {exc.message}", where) from None
    if not isinstance(raw, dict):
        raise _invalid("an allow-list is a mapping with format_version and entrants", where)
    try:
        return EndpointAllowlist.model_validate(raw)
    except ValidationError as exc:
        field, message = describe(exc)
        raise _invalid(message, where, field or None) from None


__all__ = ["AllowedEndpoint", "EndpointAllowlist", "load_allowlist"]
