"""SIGTERM is taken as Ctrl-C is (docs/RUNS.md, "Resume").

SIGTERM is what CI sends when a job is cancelled, and what ``timeout`` sends. Python's default
for it ends the process on the spot: no ``finally`` ran, so a bundle's staging directory, a
site's staging copy or a temp file stayed behind, and ``bench run`` said nothing about the run
it left (exit 143, silent). Here it raises :class:`Terminated`, a ``KeyboardInterrupt``: every
place that handles Ctrl-C handles it (temp files removed, an old site put back, ``bench run``
naming the ``--resume`` that finishes the run), and the process exits 143 (128 + 15) where
Ctrl-C exits 130. A second SIGTERM while that runs ends the process at once (the default).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_RECEIVED: list[int] = []


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived; handled wherever Ctrl-C is."""


def interrupted_exit_code() -> int:
    """128 + the signal that interrupted this command: 143 for SIGTERM, 130 for Ctrl-C."""
    return 128 + _RECEIVED[-1] if _RECEIVED else 130


def interrupted_word() -> str:
    """What a command that stopped on a signal says it was: 'terminated' or 'interrupted'."""
    return "terminated (SIGTERM)" if _RECEIVED else "interrupted"


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While the block runs (in the main thread), SIGTERM raises :class:`Terminated`; the
    handler before it is put back after (a test's process keeps its own)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    import signal

    def on_term(signum: int, frame: object) -> None:
        signal.signal(signum, signal.SIG_DFL)  # a second SIGTERM ends the process at once
        _RECEIVED.append(signum)
        raise Terminated

    _RECEIVED.clear()
    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


__all__ = ["Terminated", "interrupted_exit_code", "interrupted_word", "sigterm_as_interrupt"]
