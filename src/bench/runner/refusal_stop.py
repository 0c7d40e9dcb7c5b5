"""Stopping a run at the first request its server refuses for a setting of meaning
(docs/RUNS.md, "A run stops at a refused setting").

A model server that refuses a field the harness may not change (a ``params`` setting, a
forced ``tool_choice``, a system message: ``targets.refusals.FieldRefused``) refuses it on
every later call that carries it, and every such call is a harness fault (``REQUEST_REFUSED``):
a run went on to record hundreds of them, none publishable, for one line of the target file.
``RefusalWatch`` stops the run at the first one instead, with one error (``FIELD_REFUSED``,
``RunRefused``) naming the field, the value, the server's words and the setting that fixes it.

What is written: an attempt the refusal ended before the endpoint answered anything in it
is not (it has nothing of the entrant's; a resumed run runs it again). An attempt the endpoint
answered anything, whatever it ended with, is written (as ``EndpointWatch`` does, so a server
cannot take back a bad attempt by refusing its next call in words). No attempt starts after
the stop; those in flight finish. The run stays ``started`` and its status says why it stopped
(``partial_reason``): the fix is a changed target file, which is another configuration, so
the way on is a new run (``--resume`` refuses a changed config, ``CONFIG_CHANGED``).
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.core.errors import InputError
from bench.core.trace import FAILED_CALL
from bench.records.run import AttemptRecord
from bench.targets.refusals import FieldRefused


class RunRefused(InputError):
    """A run stopped at the first request its server refused for a setting of the target file
    (``RefusalWatch``): it stays ``started``, with what it wrote; the way on is a new run with
    the setting changed."""

    default_code = "FIELD_REFUSED"

    def __init__(
        self, message: str, *, path: str | None, field: str, run_id: str, done: int, total: int
    ) -> None:
        super().__init__(message, path=path, field=field)
        self.run_id, self.done, self.total = run_id, done, total


def answered(record: AttemptRecord) -> bool:
    """Whether the endpoint answered any call of the attempt (a call that did not fail)."""
    return any(FAILED_CALL not in exchange.response for exchange in record.trace.exchanges)


@dataclass
class RefusalWatch:
    """Stops a run at its first ``FieldRefused`` (the module docstring)."""

    refusal: FieldRefused | None = None  # the server's refusal that stopped the run
    left: int = 0  # refused attempts not written

    @property
    def stopped(self) -> bool:
        return self.refusal is not None

    def keeps(self, record: AttemptRecord, refusal: FieldRefused | None) -> bool:
        """Whether ``record`` is written: every attempt but one a refusal of meaning ended
        before the endpoint answered anything in it (which stops the run, if not yet)."""
        if refusal is None:
            return True
        if self.refusal is None:
            self.refusal = refusal.origin
        if answered(record):
            return True
        self.left += 1
        return False

    def reason(self) -> str:
        """Why the run stopped, for its status (``partial_reason``)."""
        refusal = self.refusal
        assert refusal is not None
        return (
            f"stopped at the first request the server refused for {refusal.setting}: "
            f"{refusal.message}; then start a new run"
        )

    def error(self, run_id: str, target_file: str | None, done: int, total: int) -> RunRefused:
        refusal = self.refusal
        assert refusal is not None
        return RunRefused(
            f"run {run_id} stopped at the first request the server refused: {refusal.message}; "
            "then start a new run (the same command without --resume: a changed target file is "
            f"another configuration, which --resume refuses). The run keeps the {done} of "
            f"{total} attempt(s) written; the {self.left} refused are not, nor the "
            f"{max(0, total - done - self.left)} not started",
            path=target_file,
            field=refusal.setting,
            run_id=run_id,
            done=done,
            total=total,
        )


__all__ = ["RefusalWatch", "RunRefused", "answered"]
