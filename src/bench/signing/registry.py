"""Entrant registry files: ``submissions/<entrant>.yaml``, one per entrant, read strictly.

The file name is the entrant id. Fields: ``display_name``, ``organisation``, ``model``,
``links`` (``https:`` URLs only), ``contact``, ``license`` and an optional Markdown
``description``; nothing else. Text that the board shows may not carry control, bidi or other
format characters (a right-to-left override could make one entrant look like another).

``lint_directory`` checks every registry file and cross-checks them with ``allowed_signers``:
a registered key without a registry file is an error (the board would have no name to show);
a registry file without a key is a warning (an entrant may describe itself before it submits,
like the shipped ``example-support-bot``, whose demo signs with a throw-away key). A
``display_name`` the board would refuse as a look-alike (``bench.core.lookalike``: one that
mixes scripts or holds a character that draws nothing, or looks like another file's) is an
error too, and so is an ``organisation``, ``model`` or link host that mixes scripts or holds
such a character, so the PR that adds it is refused by the lint, not later by the board.
"""

from __future__ import annotations

import os
import stat
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from bench.core.diskerror import raise_if_disk
from bench.core.errors import InputError
from bench.core.files import read_structured
from bench.core.ids import is_valid_id
from bench.core.lookalike import SkeletonIndex, name_problem, skeleton
from bench.core.validation import describe

from .allowed_signers import lint_text, read_signers_text
from .errors import SignersError

SIGNERS_FILE = "allowed_signers"
REGISTRY_SUFFIX = ".yaml"
MAX_LINKS = 10
MAX_URL = 2048
MAX_DESCRIPTION = 4000
_FORBIDDEN_CATEGORIES = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")


class RegistryError(InputError):
    """A registry file is unreadable, misnamed, or breaks the model."""

    default_code = "ENTRANT_FILE_INVALID"


def _plain(value: str, *, multiline: bool = False) -> str:
    for ch in value:
        if multiline and ch in "\n\t":
            continue
        category = unicodedata.category(ch)
        if category in _FORBIDDEN_CATEGORIES:
            name = unicodedata.name(ch, f"U+{ord(ch):04X}")
            raise ValueError(f"contains a control or format character ({name}, {category})")
    if unicodedata.normalize("NFC", value) != value:
        raise ValueError("is not NFC-normalised (one name, one form)")
    if not value.strip():
        raise ValueError("is empty")
    if not multiline and value != value.strip():
        raise ValueError("has leading or trailing whitespace")
    return value


def _line(value: str) -> str:
    return _plain(value)


def _text(value: str) -> str:
    return _plain(value, multiline=True)


def https_url(value: str) -> str:
    """``value`` when it is an ``https://host/...`` URL with no credentials or odd characters."""
    _plain(value)
    if len(value) > MAX_URL:
        raise ValueError(f"is longer than {MAX_URL} characters")
    if any(ch.isspace() or ch in "\\<>\"'`" for ch in value):
        raise ValueError("contains whitespace, a backslash, quotes or angle brackets")
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError as exc:
        raise ValueError(f"is not a URL ({exc})") from None
    if parts.scheme != "https":
        raise ValueError(f"must be an https: URL, not '{parts.scheme or 'relative'}:'")
    if not parts.hostname:
        raise ValueError("has no host")
    if parts.username is not None or parts.password is not None:
        raise ValueError("may not carry a user name or password")
    return value


Line = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(_line)]
HttpsUrl = Annotated[str, AfterValidator(https_url)]


class EntrantRecord(BaseModel):
    """What ``submissions/<entrant>.yaml`` holds."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    display_name: Annotated[str, Field(min_length=1, max_length=80), AfterValidator(_line)]
    organisation: Line
    model: Line
    links: Annotated[list[HttpsUrl], Field(max_length=MAX_LINKS)]
    contact: Line
    license: Line
    description: (
        Annotated[str, Field(min_length=1, max_length=MAX_DESCRIPTION), AfterValidator(_text)]
        | None
    ) = None


def read_entrant(path: Path) -> EntrantRecord:
    """The record in ``path`` (``<entrant>.yaml``); ``RegistryError`` with a code otherwise."""
    entrant = path.name.removesuffix(REGISTRY_SUFFIX)
    if path.suffix != REGISTRY_SUFFIX or not is_valid_id(entrant):
        raise RegistryError(
            "a registry file is named <entrant id>.yaml, the id matching [a-z0-9][a-z0-9-]*",
            code="ENTRANT_FILE_NAME",
            path=path,
        )
    try:  # not followed: a link reads whatever it points at (another entrant's record)
        mode = os.lstat(path).st_mode
    except OSError as exc:
        raise_if_disk(exc, path)  # the disk, not the registry file: IO_ERROR
        raise RegistryError(f"cannot be read: {exc.strerror}", path=path) from None
    if stat.S_ISLNK(mode) or not stat.S_ISREG(mode):
        kind = "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file"
        raise RegistryError(f"is {kind}: a registry file is a plain file", path=path)
    try:
        data: Any = read_structured(path)
    except InputError as exc:
        raise RegistryError(exc.message, path=path) from None
    if not isinstance(data, dict):
        raise RegistryError("expected a mapping of fields", path=path)
    try:
        return EntrantRecord.model_validate(data)
    except ValidationError as exc:
        field, message = describe(exc)
        raise RegistryError(message, path=path, field=field) from None


@dataclass(frozen=True)
class Finding:
    """One lint result: an error fails ``bench submissions lint``, a warning does not."""

    severity: Literal["error", "warning"]
    code: str
    path: str
    message: str
    line: int | None = None
    field: str | None = None

    def render(self) -> str:
        where = ":".join(p for p in (self.path, str(self.line) if self.line else "") if p)
        field = f"{self.field}: " if self.field else ""
        return f"{where}: {self.severity}[{self.code}]: {field}{self.message}"


def _registry_files(directory: Path) -> list[Path]:
    return sorted(
        p
        for p in directory.iterdir()
        if not p.name.startswith(".") and p.suffix in (".yaml", ".yml", ".json")
    )


def shown_names(record: EntrantRecord) -> list[tuple[str, str]]:
    """``(field, name)`` of every name the board shows for ``record`` that could pass for
    another's: the display name, the organisation and the model (the report card's "About
    the entrant"), and each link's host (the card shows the link as its address: an
    ``https://оpenai.com`` with a Cyrillic ``о`` reads as another's site)."""
    names = [
        ("display_name", record.display_name),
        ("organisation", record.organisation),
        ("model", record.model),
    ]
    for index, link in enumerate(record.links):
        host = urlsplit(link).hostname
        if host:
            names.append((f"links[{index}]", host))
    return names


def _name_findings(directory: Path, records: Mapping[str, EntrantRecord]) -> list[Finding]:
    """The board's look-alike rules (``bench.core.lookalike``) where a PR adds a name: a
    shown name (``shown_names``) that could pass for another whatever the letters (it mixes
    scripts, or holds a character that draws nothing), and a display name that looks like
    another entrant's."""
    findings: list[Finding] = []
    seen = SkeletonIndex()
    for entrant in sorted(records):
        name = records[entrant].display_name
        path = str(directory / f"{entrant}{REGISTRY_SUFFIX}")
        for field, shown in shown_names(records[entrant]):
            problem = name_problem(shown)
            if problem is not None:
                message = f"{shown!a} {problem}; the board refuses it, so register another name"
                code = "ENTRANT_NAME_LOOKALIKE"
                findings.append(Finding("error", code, path, message, field=field))
        shape = skeleton(name)
        other = seen.owner(shape)
        if other is not None:
            message = (
                f"{name!a} looks like the display name of entrant '{other}' "
                f"({records[other].display_name!a}, in {other}{REGISTRY_SUFFIX}): the board "
                "would show the two as one, so register another name"
            )
            code = "ENTRANT_NAME_COLLISION"
            findings.append(Finding("error", code, path, message, field="display_name"))
        seen.add(shape, entrant)
    return findings


def lint_directory(directory: Path) -> tuple[dict[str, EntrantRecord], list[Finding]]:
    """Every valid registry record by entrant id, and every finding, errors first."""
    findings: list[Finding] = []
    signers_path = directory / SIGNERS_FILE
    principals: dict[str, int] = {}
    try:
        signers, problems = lint_text(read_signers_text(signers_path))
    except SignersError as exc:
        findings.append(Finding("error", exc.code, str(signers_path), exc.message))
        signers, problems = [], []
    for problem in problems:
        findings.append(
            Finding("error", "SIGNERS_INVALID", str(signers_path), problem.message, problem.line)
        )
    for signer in signers:
        principals[signer.principal] = signer.line
    records: dict[str, EntrantRecord] = {}
    named: set[str] = set()
    for path in _registry_files(directory) if directory.is_dir() else []:
        entrant = path.name.removesuffix(path.suffix)
        named.add(entrant)
        try:
            records[entrant] = read_entrant(path)
        except RegistryError as exc:
            findings.append(Finding("error", exc.code, str(path), exc.message, field=exc.field))
    findings += _name_findings(directory, records)
    for principal, line in principals.items():
        if principal not in named:
            findings.append(
                Finding(
                    severity="error",
                    code="ENTRANT_FILE_MISSING",
                    path=str(signers_path),
                    message=f"'{principal}' has a key but no {principal}{REGISTRY_SUFFIX} "
                    "(add it in the same pull request as the key)",
                    line=line,
                )
            )
    for entrant in sorted(records.keys() - principals.keys()):
        findings.append(
            Finding(
                severity="warning",
                code="ENTRANT_KEY_MISSING",
                path=str(directory / f"{entrant}{REGISTRY_SUFFIX}"),
                message=f"'{entrant}' has no key in {SIGNERS_FILE}; its bundles cannot verify "
                "until one is registered (bench key register)",
            )
        )
    findings.sort(key=lambda f: f.severity != "error")
    return records, findings


__all__ = [
    "EntrantRecord",
    "Finding",
    "RegistryError",
    "https_url",
    "lint_directory",
    "read_entrant",
    "shown_names",
]
