"""Options and helpers shared by several verbs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

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
    from bench.core.errors import InputError

    if not path.exists():
        raise InputError(
            f"no such file or directory ({NOT_PACKAGED})", code="FILE_MISSING", path=path
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
