"""The ``bench`` command. Each verb lives in its own module, imported only when it runs, so
``bench --help`` loads click and nothing heavy. Errors map to exit codes here, in one place."""

from __future__ import annotations

import os
import sys
from typing import Any, NoReturn

import click

from bench import __version__

from .common import CONTEXT

COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("bench.cli.run_cmd", "run"),
    "show": ("bench.cli.show_cmd", "show"),
    "compare": ("bench.cli.show_cmd", "compare"),
    "task": ("bench.cli.task_cmd", "task"),
    "schema": ("bench.cli.schema_cmd", "schema"),
    "check": ("bench.cli.check_cmd", "check"),
    "judge": ("bench.cli.judge_cmd", "judge"),
    "rescore": ("bench.cli.rescore_cmd", "rescore"),
    "merge": ("bench.cli.merge_cmd", "merge"),
    "probe": ("bench.cli.probe_cmd", "probe"),
    "bundle": ("bench.cli.bundle_cmd", "bundle"),
    "verify": ("bench.cli.verify_cmd", "verify"),
    "board": ("bench.cli.board_cmd", "board"),
    "pr-guard": ("bench.cli.guard_cmd", "pr_guard"),
    "submissions": ("bench.cli.submissions_cmd", "submissions"),
    "key": ("bench.cli.submissions_cmd", "key"),
    "report": ("bench.cli.report_cmd", "report"),
    "history": ("bench.cli.history_cmd", "history"),
    "leaderboard": ("bench.cli.history_cmd", "leaderboard"),
    "export": ("bench.cli.history_cmd", "export"),
    "mock-server": ("bench.cli.mock_cmd", "mock_server"),
    "suite": ("bench.cli.suite_cmd", "suite"),
}

SHORT_HELP: dict[str, str] = {
    "run": "Run an entrant through a task set (or resume a killed run).",
    "show": "Show a run: score, failed tasks with their sentences, a task's trace.",
    "compare": "Compare two runs: paired difference, flipped tasks, comparability.",
    "task": "Generate, validate, lint and import task files.",
    "check": "Check cases and tasks before any model runs: evidence, tool names, tool selection.",
    "schema": "Print, write or check the JSON Schemas of the on-disk formats.",
    "judge": "Calibrate an LLM judge against hand labels; show what is on file.",
    "rescore": "Re-score a run from its traces with today's scorers (writes nothing).",
    "merge": "Join the shards of one run (bench run --shard K/N) into one new run directory.",
    "report": "Write a run's report: terminal, Markdown, JUnit XML, JSON or HTML.",
    "history": "List past runs from the SQLite history (indexing new runs first).",
    "leaderboard": "Rank the latest complete runs per cohort, with tie-aware ranks.",
    "export": "Export the run history as CSV or JSON.",
    "bundle": "Pack a finished run into results/<entrant>/<run_id>/ and sign its manifest.",
    "verify": "Verify a bundle: one stable code on failure; writes nothing.",
    "board": "Build the leaderboard page (one self-contained index.html) from runs and bundles.",
    "pr-guard": "The PR workflow's path guard: print the one bundle a results PR adds.",
    "submissions": "Lint submissions/ (allowed_signers and <entrant>.yaml files).",
    "key": "Print the allowed_signers line that registers an ed25519 key.",
    "probe": "Check an endpoint is reachable and name its engine from what it declares.",
    "mock-server": "Serve the mock OpenAI-compatible / Anthropic endpoint on loopback.",
    "suite": "Import a public suite (BFCL v4 single-turn) as task files.",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        import importlib

        module_name, attr = COMMANDS[name]
        command: click.Command = getattr(importlib.import_module(module_name), attr)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        from bench.core.errors import BenchError

        from .signals import sigterm_as_interrupt

        try:
            with sigterm_as_interrupt():  # SIGTERM (a cancelled CI job) handled as Ctrl-C is
                return super().invoke(ctx)
        except BenchError as exc:
            # One line naming the file and field; no traceback for bad input.
            click.echo(f"error[{exc.code}]: {exc.render()}", err=True)
            ctx.exit(exc.exit_code)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Listing the verbs must not import them: `bench --help` stays fast.
        rows = [(name, SHORT_HELP[name]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings=CONTEXT)
@click.version_option(__version__, prog_name="bench")
def cli() -> None:
    """bench-suite: run agents through tasks, score every attempt, and show the evidence."""


# A bench command keeps most of what it builds to its end: the default collector passes free
# almost nothing and cost much (docs/DECISIONS.md, 43; docs/PERFORMANCE.md, "The cyclic collector").
COLLECTOR_THRESHOLDS = (100_000, 50, 100)


def tune_collector() -> None:
    """Collect cycles less often (``COLLECTOR_THRESHOLDS``) for the rest of this process and
    the processes it forks."""
    import gc

    gc.set_threshold(*COLLECTOR_THRESHOLDS)


def no_collection_at_exit() -> None:
    """Once per process: at its exit (an atexit callback) the cyclic collector is turned off,
    so Python's finalization, which collects several times while it clears the modules, does
    not scan everything the command built again: about 0.2 s of a one-task run's 1.1 s of CPU
    (docs/PERFORMANCE.md, issue 19). Every command, not only ``bench run``: a board, a verify
    or a show builds as much. Reference counting still frees what it frees, and the streams
    are flushed as ever; only cycles left at exit are not collected."""
    import atexit

    if not _AT_EXIT:
        _AT_EXIT.append(True)
        atexit.register(_collector_off)


def _collector_off() -> None:
    import gc

    gc.freeze()  # what exists now is never scanned again
    gc.disable()


_AT_EXIT: list[bool] = []  # registered in this process


def writable_anywhere() -> None:
    """Text a terminal's encoding cannot show (a Turkish task on a Latin-1 terminal, an
    ellipsis on ASCII) is printed escaped, never a ``UnicodeEncodeError`` traceback."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if encoding != "utf8" and hasattr(stream, "reconfigure"):
            try:  # noqa: SIM105 - contextlib costs `bench --help` 3 ms of imports
                stream.reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # not a text stream that can (a test's capture)
                pass


def main(argv: list[str] | None = None) -> Any:
    from . import command_ended, command_starts

    try:
        command_starts()  # Ctrl-C is KeyboardInterrupt again: the command cleans up after it
        return _command(argv)
    except KeyboardInterrupt:
        # after the command unwound, while click or _command said how it ended (a second Ctrl-C)
        command_ended()
        _interrupted()
    finally:
        command_ended()  # at exit, Ctrl-C ends quietly (bench.cli)


def _interrupted() -> NoReturn:
    from .signals import interrupted_exit_code, interrupted_word

    # 130 for Ctrl-C, 143 for SIGTERM (bench.cli.signals): what was written is complete
    # or not there, as for any other stop
    click.echo("aborted" if interrupted_exit_code() == 130 else interrupted_word(), err=True)
    sys.exit(interrupted_exit_code())


def _command(argv: list[str] | None) -> Any:
    from bench.core.errors import BenchError

    tune_collector()
    no_collection_at_exit()
    writable_anywhere()
    try:
        return cli.main(args=argv, prog_name="bench", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.UsageError as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # `bench` or `bench task` alone: the help
            exc.show()
            sys.exit(exc.exit_code)
        # One line with a stable code, as every other error (docs/ERRORS.md, USAGE), and where
        # to read the options; not click's three-line usage block.
        command = exc.ctx.command_path if exc.ctx is not None else "bench"
        hint = f"'{command} --help' lists the options"
        click.echo(f"error[USAGE]: {exc.format_message()} ({hint})", err=True)
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:  # Ctrl-C inside the command; outside it, main's own except
        _interrupted()
    except BenchError as exc:
        click.echo(f"error[{exc.code}]: {exc.render()}", err=True)
        sys.exit(exc.exit_code)
    except BrokenPipeError:
        # `bench ... | head`: the reader has gone; nothing more to say, and nowhere to say it.
        try:  # noqa: SIM105 - contextlib costs `bench --help` 3 ms of imports
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - the interpreter's exit flush
        except OSError:
            pass
        sys.exit(1)
    except OSError as exc:
        # The file system said no where a command reads or writes (a directory that cannot be
        # made, a read-only or full disk, a permission): one line naming the path, as for any
        # other error, never a traceback. What the command had written before stays as it is.
        click.echo(f"error[{IO_ERROR}]: {io_message(exc)}", err=True)
        sys.exit(3)


IO_ERROR = "IO_ERROR"


def io_message(exc: OSError) -> str:
    """``path: reason`` for an ``OSError`` (both paths of a rename or link)."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    paths = [str(name) for name in (exc.filename, exc.filename2) if name is not None]
    if not paths:
        return f"{reason} (the file system refused a read or write)"
    return f"{' -> '.join(paths)}: {reason} (the file system refused a read or write here)"


__all__ = [
    "COLLECTOR_THRESHOLDS",
    "IO_ERROR",
    "cli",
    "io_message",
    "main",
    "no_collection_at_exit",
    "tune_collector",
]
