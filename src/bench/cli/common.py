"""Options and helpers shared by several verbs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from bench.core.errors import BenchError

# Every command answers -h as well as --help, however it is invoked.
CONTEXT: dict[str, Any] = {"help_option_names": ["-h", "--help"]}

# Said where a missing task set or corpus root is the first thing someone who installed the
# package meets: `pip install` brings the harness only (README, "The command line").
NOT_PACKAGED = (
    "bench-suite's tasks/, corpora/ and examples/ come with a clone of its repository, not "
    "with the installed package"
)


def require_tasks(path: Path) -> None:
    """Refuse a task path that is not there, saying where the project's task set lives."""
    require_exists(path)


PROJECT_DIRS = frozenset({"tasks", "corpora", "examples"})
"""The directories of a clone a missing path may have been meant in (``examples/judge.yaml``)."""


def require_exists(path: Path) -> None:
    """Refuse an input path that is not there (``FILE_MISSING``); one in the project's tasks,
    corpora or examples (``examples/judge.yaml`` …) says they come with a clone, not with the
    installed package."""
    from bench.core.errors import InputError

    if not path.exists():
        raise InputError(
            "no such file or directory" + (f" ({NOT_PACKAGED})" if in_project(path) else ""),
            code="FILE_MISSING",
            path=path,
        )


def in_project(path: Path) -> bool:
    """Whether ``path`` names one of the project's own directories (tasks/, corpora/,
    examples/) anywhere in it: where the clone hint helps."""
    return any(part in PROJECT_DIRS for part in path.parts)


def with_hint(exc: BenchError, hint: str) -> BenchError:
    """``exc`` again (its class, code, file and field) with ``hint`` after its message."""
    again = type(exc)(f"{exc.message}; {hint}", code=exc.code, path=exc.path, field=exc.field)
    again.__cause__ = exc.__cause__
    return again


def keygen_hint(private: Path) -> str:
    """How to make the key pair a signing command was pointed at (docs/SUBMISSIONS.md)."""
    import shlex

    return (
        f'make one with ssh-keygen -t ed25519 -N "" -f {shlex.quote(str(private))} '
        f"(its directory must exist) and register {private.name}.pub "
        "(bench key register; docs/SUBMISSIONS.md, 1. Register a key)"
    )


runs_dir_option = click.option(
    "--runs-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("runs"),
    show_default=True,
    help="Where run directories live.",
)

format_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Human text or machine JSON.",
)
