"""An early word when a run's records will not fit in a bundle.

``bench bundle`` refuses a run whose attempts (inflated) or cassette pass ``MAX_FILE_BYTES``, or
one of whose attempts passes ``MAX_LINE_BYTES`` (``BUNDLE_TOO_LARGE``; the limits verify holds
every bundle to, records/limits.py). Without a word from ``bench run`` a verbose entrant found
that out after the whole run. Both files hold every model exchange once, so the exchanges'
compact JSON is a lower bound of each: once that bound, or its projection over the attempts
still to come, passes a limit, the run says so, once, and goes on (the run is the user's; a
shorter one can be bundled: ``--task``, ``--shard``, fewer ``--repeats``).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from bench.records.limits import MAX_FILE_BYTES, MAX_LINE_BYTES

# A projection is said only after this share of the run's attempts (and at least MIN_SEEN):
# the first few attempts of a task set are not its average.
PROJECT_AFTER = 0.05
MIN_SEEN = 10
_MIB = 1024 * 1024

_SPLIT = "split it (--task, --shard, fewer --repeats) to publish it"


@dataclass
class SizeWatch:
    """Adds up each written attempt's exchange lines (on the writer thread) and says, once
    each, when the run's bundle cannot hold them."""

    total: int  # attempts in the whole run, those of earlier sessions included
    seen: int = 0
    exchange_bytes: int = 0
    _said: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, task_id: str, repeat: int, lines: Sequence[str]) -> list[str]:
        """One attempt's exchange lines (``records.store.exchange_lines``); what to tell the
        user now (the caller prints it on the run's own thread)."""
        size = sum(map(len, lines))  # characters: at most the bytes
        said: list[str] = []
        with self._lock:
            self.seen += 1
            self.exchange_bytes += size
            if size > MAX_LINE_BYTES:
                said.append(
                    f"attempt {task_id}#{repeat} recorded {size / _MIB:.1f} MiB of model "
                    f"exchanges: a bundle holds at most {MAX_LINE_BYTES // _MIB} MiB per "
                    f"attempt, so `bench bundle` will refuse this run (BUNDLE_TOO_LARGE)"
                )
            if self.exchange_bytes > MAX_FILE_BYTES and "over" not in self._said:
                self._said.update({"over", "projected"})
                said.append(
                    f"this run has recorded {self.exchange_bytes / _MIB:.0f} MiB of model "
                    f"exchanges after {self.seen} attempt(s): a bundle's attempts and cassette "
                    f"hold at most {MAX_FILE_BYTES // _MIB} MiB each, so `bench bundle` will "
                    f"refuse this run (BUNDLE_TOO_LARGE); {_SPLIT}"
                )
            elif (
                "projected" not in self._said
                and self.seen >= max(MIN_SEEN, PROJECT_AFTER * self.total)
                and self.exchange_bytes * self.total > MAX_FILE_BYTES * self.seen
            ):
                self._said.add("projected")
                projected = self.exchange_bytes * self.total / self.seen
                said.append(
                    f"at {self.exchange_bytes / self.seen / 1024:.0f} KiB of model exchanges "
                    f"per attempt, this run's {self.total} attempts will record about "
                    f"{projected / _MIB:.0f} MiB: a bundle's attempts and cassette hold at most "
                    f"{MAX_FILE_BYTES // _MIB} MiB each, so `bench bundle` would refuse it "
                    f"(BUNDLE_TOO_LARGE); {_SPLIT}"
                )
        return said


__all__ = ["MIN_SEEN", "PROJECT_AFTER", "SizeWatch"]
