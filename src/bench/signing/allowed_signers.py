"""``allowed_signers`` (ssh-keygen(1) ALLOWED SIGNERS), read strictly and linted.

One line per key: ``<principal> namespaces="bundle-v1@bench-suite" ssh-ed25519 AAAA... [comment]``.
Lint rules: exactly one literal principal that is a valid entrant id (no ``*``, ``?``, ``!``,
commas — a ``*`` principal would let any registered key sign as anyone); the ``namespaces``
option present and naming only our namespace; no other option (``cert-authority``,
validity windows); ``ssh-ed25519`` keys only; each principal once; each key once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from bench.core.diskerror import raise_if_disk
from bench.core.ids import is_valid_id

from .errors import SignersError
from .keys import KEY_TYPE, parse_public_text, public_from_blob
from .sshsig import NAMESPACE

MAX_SIGNERS_BYTES = 1024 * 1024
_OPTION = re.compile(r'^namespaces="([^"]*)"$')
_KEY_TYPES = ("ssh-", "ecdsa-", "sk-")


@dataclass(frozen=True)
class Signer:
    principal: str
    key: bytes
    line: int


@dataclass(frozen=True)
class Problem:
    line: int
    message: str


def signer_line(principal: str, public_line: str) -> str:
    """The line to add for ``principal`` (``public_line`` is ``ssh-ed25519 AAAA...``)."""
    return f'{principal} namespaces="{NAMESPACE}" {public_line}'


def _parse_line(text: str, number: int) -> Signer:
    parts = text.split()
    principal = parts[0]
    if any(ch in principal for ch in "*?!,"):
        raise ValueError(f"principal '{principal}' must be one literal id (no * ? ! or commas)")
    if not is_valid_id(principal):
        raise ValueError(f"principal '{principal}' is not an entrant id ([a-z0-9][a-z0-9-]*)")
    rest = parts[1:]
    options: list[str] = []
    while rest and not rest[0].startswith(_KEY_TYPES):
        options.append(rest.pop(0))
    if len(options) != 1 or not _OPTION.match(options[0]):
        raise ValueError(f'needs exactly one option, namespaces="{NAMESPACE}" (got {options})')
    match = _OPTION.match(options[0])
    assert match is not None
    if match.group(1) != NAMESPACE:
        raise ValueError(f'namespaces must be "{NAMESPACE}", not "{match.group(1)}"')
    if len(rest) < 2:
        raise ValueError("no key after the options")
    if rest[0] != KEY_TYPE:
        raise ValueError(f"only {KEY_TYPE} keys are accepted, not {rest[0]}")
    blob = parse_public_text(rest[0], rest[1])
    public_from_blob(blob)
    return Signer(principal, blob, number)


def lint_text(text: str) -> tuple[list[Signer], list[Problem]]:
    """Every signer that passes, and every problem (line numbers are 1-based)."""
    signers: list[Signer] = []
    problems: list[Problem] = []
    principals: dict[str, int] = {}
    keys: dict[bytes, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            signer = _parse_line(line, number)
        except ValueError as exc:
            problems.append(Problem(number, str(exc)))
            continue
        if signer.principal in principals:
            first = principals[signer.principal]
            problems.append(Problem(number, f"principal '{signer.principal}' is on line {first}"))
            continue
        if signer.key in keys:
            problems.append(
                Problem(number, f"this key is already registered on line {keys[signer.key]}")
            )
            continue
        principals[signer.principal] = number
        keys[signer.key] = number
        signers.append(signer)
    return signers, problems


def read_signers_text(path: Path) -> str:
    """The text of an ``allowed_signers`` file: bounded, UTF-8; ``SignersError`` otherwise."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise_if_disk(exc, path)  # the disk, not the file: IO_ERROR, never "missing"
        raise SignersError(
            f"cannot read allowed_signers: {exc.strerror}", code="SIGNERS_MISSING", path=path
        ) from None
    return decode_signers(data, path)


def decode_signers(data: bytes, path: str | Path) -> str:
    """``data`` as text, refused when over the size cap or not UTF-8."""
    if len(data) > MAX_SIGNERS_BYTES:
        raise SignersError(f"larger than {MAX_SIGNERS_BYTES} bytes", path=path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise SignersError("not UTF-8", path=path) from None


def lint_file(path: Path) -> list[Problem]:
    return lint_text(read_signers_text(path))[1]


class AllowedSigners:
    """A linted ``allowed_signers`` file: any problem refuses the whole file."""

    def __init__(self, signers: list[Signer], path: str | Path) -> None:
        self.signers = signers
        self.path = path

    @classmethod
    def read(cls, path: Path) -> AllowedSigners:
        return cls.parse(read_signers_text(path), path)

    @classmethod
    def parse(cls, text: str, path: str | Path) -> AllowedSigners:
        """``text`` linted; ``path`` names where it came from (a file, or ``REF:path``)."""
        signers, problems = lint_text(text)
        if problems:
            first = problems[0]
            more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
            raise SignersError(first.message + more, path=path, field=f"line {first.line}")
        return cls(signers, path)

    def keys_for(self, principal: str) -> list[bytes]:
        return [s.key for s in self.signers if s.principal == principal]

    def require(self, principal: str) -> list[bytes]:
        keys = self.keys_for(principal)
        if not keys:
            raise SignersError(
                f"entrant '{principal}' is not registered (bench key register)",
                code="SIGNER_UNKNOWN",
                path=self.path,
            )
        return keys


__all__ = [
    "AllowedSigners",
    "Problem",
    "Signer",
    "decode_signers",
    "lint_file",
    "lint_text",
    "read_signers_text",
    "signer_line",
]
