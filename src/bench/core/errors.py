"""One error tree for the whole project.

    BenchError                 exit 1   root; every error carries a stable ``code``
    ├── UsageError             exit 2   the command line itself is wrong
    ├── InputError             exit 3   a file we were handed is bad (task, target, corpus, config)
    ├── RunStoreError          exit 4   a run directory is missing, ambiguous, exists or changed
    ├── EntrantError           exit 5   the entrant's side failed (recorded as an *errored* attempt)
    │   └── CassetteMiss                a replayed request is not in the cassette
    └── HarnessFault           exit 6   our side failed (mock world, scorer); never the entrant's

Messages name the file, the task id or the field, so one line is enough to fix the input.
Inside a run, ``EntrantError`` and ``HarnessFault`` are recorded on the attempt, never raised
out of the runner.
"""

from __future__ import annotations

from pathlib import Path


class BenchError(Exception):
    """Root of every error bench-suite raises on purpose."""

    exit_code: int = 1
    default_code: str = "BENCH_ERROR"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        path: str | Path | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.code = code or self.default_code
        self.path = str(path) if path is not None else None
        self.field = field
        super().__init__(self.render())

    def render(self) -> str:
        """One line: ``file: field: message``, with whatever parts are known."""
        parts = [p for p in (self.path, self.field) if p]
        parts.append(self.message)
        return ": ".join(parts)


class UsageError(BenchError):
    exit_code = 2
    default_code = "USAGE"


class InputError(BenchError):
    exit_code = 3
    default_code = "INPUT_INVALID"


class RunStoreError(BenchError):
    exit_code = 4
    default_code = "RUN_STORE"


class EntrantError(BenchError):
    exit_code = 5
    default_code = "ENTRANT_ERROR"


class CassetteMiss(EntrantError):
    default_code = "CASSETTE_MISS"


class HarnessFault(BenchError):
    exit_code = 6
    default_code = "HARNESS_FAULT"


HARNESS_FAULT_CODES = frozenset(
    {"HARNESS_FAULT", "WORLD_TOOL_DATA", "HARNESS_EXCEPTION", "REQUEST_REFUSED"}
)
"""The harness-fault list: the only codes an attempt's ``fault`` may carry. ``WORLD_TOOL_DATA``:
a task's mock world cannot run a tool (its data or schema is broken); ``REQUEST_REFUSED``: the
model server refused the harness's own request as malformed (a validation error of its request
schema), so the request's shape is ours to fix; ``HARNESS_FAULT``: any other typed fault of
ours; ``HARNESS_EXCEPTION``: an exception of ours that has no type of its own (a bug).
``bench verify`` re-drives every such attempt and must see the same code (a refused request is
recorded in the cassette, with the server's words, like any failed model call)."""


def fault_code(exc: BaseException) -> str:
    """The harness-fault code an exception of ours is recorded under."""
    if isinstance(exc, HarnessFault):
        return exc.code if exc.code in HARNESS_FAULT_CODES else HarnessFault.default_code
    return "HARNESS_EXCEPTION"


__all__ = [
    "HARNESS_FAULT_CODES",
    "BenchError",
    "CassetteMiss",
    "EntrantError",
    "HarnessFault",
    "InputError",
    "RunStoreError",
    "UsageError",
    "fault_code",
]
