"""``docs/CLI.md`` generated from the commands' own ``--help``; a test keeps the file current."""

from __future__ import annotations

import click

from .main import COMMANDS, cli

HEADER = """# CLI reference

Generated from `bench --help` by `make docs` (`python -m bench.cli.reference > docs/CLI.md`);
`tests/test_docs.py` fails when this file and the commands disagree.

Exit codes: 0 success · 1 a check failed (an invalid bundle, lint findings, a refused pull
request, `--fail-on-safety`, `--fail-on-regression`) · 2 usage · 3 bad input file · 4 run store
(missing, ambiguous, exists, changed) · 5 entrant error · 6 harness fault · 130 interrupted
(Ctrl-C; `bench run` names the `--resume` that finishes the run) · 143 terminated (SIGTERM,
handled as Ctrl-C: `RUNS.md`). Errors print one line,
`error[CODE]: file: field: message`; codes are listed in `ERRORS.md`.
"""


def _walk(command: click.Command, path: list[str]) -> list[tuple[list[str], click.Command]]:
    found = [(path, command)]
    if isinstance(command, click.Group):
        ctx = click.Context(command, info_name=path[-1])
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None:
                found.extend(_walk(sub, [*path, name]))
    return found


def cli_reference() -> str:
    parts = [HEADER]
    for path, command in _walk(cli, ["bench"]):
        if len(path) == 1:
            continue
        parent = click.Context(cli, info_name="bench", help_option_names=["-h", "--help"])
        ctx = click.Context(
            command,
            info_name=" ".join(path[1:]),
            parent=parent,
            terminal_width=100,
            max_content_width=100,
            help_option_names=["-h", "--help"],
        )
        text = command.get_help(ctx)
        parts.append(f"## `{' '.join(path)}`\n\n```text\n{text.rstrip()}\n```\n")
    return "\n".join(parts)


def documented_verbs() -> list[str]:
    return sorted(COMMANDS)


if __name__ == "__main__":
    click.echo(cli_reference(), nl=False)
