"""The command line. Thin: parse, call one library function, render, pick the exit code.

This package's only code: Ctrl-C while ``bench`` starts or exits ends it quietly, one line,
exit 130, no traceback. The first ~50 ms of every command import click and the CLI modules.
Python's own SIGINT handler raises ``KeyboardInterrupt`` wherever the import is, and nothing of
ours is on the stack yet to catch it: a Ctrl-C there printed twenty lines of importlib
traceback. So this package installs :func:`quiet_interrupt` the moment it is imported by the
``bench`` command (the console script or ``python -m bench.cli``, never a library user's or a
test's process), :func:`bench.cli.main.main` hands Ctrl-C back to Python
(``KeyboardInterrupt``, handled as ever: temp files removed, ``--resume`` named) just before the
command runs, and takes it again once the command has unwound, for the interpreter's exit.
Nothing has been written at start-up and everything is written at exit, so ending at once
loses nothing. It is here, not in a module of its own, because this is the first file of ours
that ``bench`` runs, and a module more is a millisecond more of the window.

What this cannot reach: the interpreter's own first ~20 ms, before any code of this project
runs (docs/RUNS.md, "Resume"). Nothing is imported here that the interpreter has not
loaded already.
"""

import os
import sys

# ``signal`` itself is the builtin ``_signal`` plus enums: its import (enum, functools,
# collections) took 5-10 ms of the window this package closes. Same functions, same handler.
signal = __import__("_signal")

INTERRUPTED_AT_START_OR_EXIT = 130  # 128 + SIGINT, as for a Ctrl-C mid-command

_OWNED: list[bool] = []  # this process is the bench command and the guard is its own


def quiet_interrupt(signum: int, frame: object) -> None:
    """SIGINT outside a command: flush what was printed, say so in one line, end now."""
    for stream in (sys.stdout, sys.stderr):
        try:  # noqa: SIM105 - contextlib costs start-up its import
            stream.flush()
        except Exception:  # a closed pipe, or a write the signal cut in two
            pass
    try:  # noqa: SIM105
        os.write(2, b"aborted\n")
    except OSError:  # a closed terminal: nowhere to say it
        pass
    os._exit(INTERRUPTED_AT_START_OR_EXIT)


def is_the_bench_command() -> bool:
    """This process was started as ``bench`` (the console script) or ``python -m bench.cli``."""
    first = os.path.basename(sys.argv[0]) if sys.argv else ""
    if first.removesuffix(".exe").removesuffix("-script.py") == "bench":
        return True
    if first != "-m":
        return False
    flags = list(getattr(sys, "orig_argv", []))
    return "-mbench.cli" in flags or any(
        flag == "-m" and after == "bench.cli" for flag, after in zip(flags, flags[1:], strict=False)
    )


def guard_start() -> None:
    """Install :func:`quiet_interrupt` for SIGINT if this process is the ``bench`` command
    and SIGINT has Python's default handler (not ignored, as in a job a script started in
    the background, nor taken by an embedding program)."""
    if _OWNED or not is_the_bench_command():
        return
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return
    try:
        signal.signal(signal.SIGINT, quiet_interrupt)
    except ValueError:  # not the main thread
        return
    _OWNED.append(True)


def command_starts() -> None:
    """From here Ctrl-C raises ``KeyboardInterrupt`` again, for the command to handle."""
    if _OWNED and signal.getsignal(signal.SIGINT) is quiet_interrupt:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def command_ended() -> None:
    """The command has unwound (its ``finally`` blocks ran): a Ctrl-C from here, while the
    error is reported or the interpreter exits, ends the process quietly."""
    if _OWNED and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, quiet_interrupt)


guard_start()  # before click and the verbs load

__all__ = [
    "INTERRUPTED_AT_START_OR_EXIT",
    "command_ended",
    "command_starts",
    "guard_start",
    "is_the_bench_command",
    "quiet_interrupt",
]
