"""``cassette``: replay recorded model exchanges with no network.

A request is matched on its full canonical content (SHA-256 of the request body), never on a
URL alone. When one request was recorded more than once (repeats of a sampling model), the
exchange recorded for the same task and repeat is served first, in recorded order.
A request the cassette lacks fails the attempt clearly (``CASSETTE_MISS``).
"""

from __future__ import annotations

import contextvars
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bench.core.errors import CassetteMiss, InputError
from bench.core.files import parse_json

from .base import FAILED_CALL, ModelRequest, ModelResponse, TargetSpec, raise_recorded_failure

CASSETTE_FILE = "cassette.jsonl"

# Set by the runner around each attempt: (task_id, repeat).
current_attempt: contextvars.ContextVar[tuple[str, int] | None] = contextvars.ContextVar(
    "current_attempt", default=None
)


def read_cassette(
    path: Path, *, requests: bool = False, compact: bool = False
) -> list[dict[str, Any]]:
    """Every exchange of a cassette, line by line. A replay matches on ``request_hash``, so
    each recorded request (the attempt's tools and every earlier message, most of a
    cassette's size) is dropped as its line is read unless ``requests``. ``compact`` (a
    replay): an entry keeps only what answering needs, ``request_hash``, ``task_id``,
    ``repeat``, the response as its compact JSON text (parsed again when it answers) and
    ``failed`` (whether it is a failed call); whole parsed entries took three times the
    memory (docs/PERFORMANCE.md, issue 19)."""
    file = path / CASSETTE_FILE if path.is_dir() else path
    if not file.is_file():
        raise InputError("cassette not found", code="CASSETTE_MISSING", path=file)
    entries: list[dict[str, Any]] = []
    names: dict[str, str] = {}  # one string per task id
    try:
        with file.open(encoding="utf-8", newline="") as handle:
            # Split on line ends only: a JSON string may hold a raw U+2028 or U+0085, which
            # str.splitlines would take for one.
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                entry = parse_json(line, f"{file}:{number}")
                if not isinstance(entry, dict) or not {"request_hash", "response"} <= entry.keys():
                    raise InputError(
                        "a cassette line needs 'request_hash' and 'response'",
                        code="CASSETTE_INVALID",
                        path=f"{file}:{number}",
                    )
                if compact:
                    response = entry["response"]
                    task_id = entry.get("task_id")
                    entry = {
                        "request_hash": entry["request_hash"],
                        "task_id": names.setdefault(task_id, task_id)
                        if isinstance(task_id, str)
                        else task_id,
                        "repeat": entry.get("repeat"),
                        "response": json.dumps(response, separators=(",", ":")),
                        "failed": isinstance(response, dict) and FAILED_CALL in response,
                    }
                elif not requests:
                    entry.pop("request", None)
                entries.append(entry)
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 (byte {exc.start})", code="FILE_ENCODING", path=file) from None
    return entries


class CassetteTarget:
    def __init__(self, spec: TargetSpec, entries: list[dict[str, Any]], source: Path) -> None:
        self.spec = spec
        self.source = source
        self._by_hash: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for entry in entries:
            self._by_hash[str(entry["request_hash"])].append(entry)
        self._used: set[int] = set()
        self.size = len(entries)

    def fresh(self) -> CassetteTarget:
        """A target over the same recordings with none used yet, sharing the index (the
        verifier replays attempts one by one, each as if the run had just started)."""
        copy = object.__new__(CassetteTarget)
        copy.spec, copy.source, copy.size = self.spec, self.source, self.size
        copy._by_hash = self._by_hash
        copy._used = set()
        return copy

    async def complete(self, request: ModelRequest) -> ModelResponse:
        digest = request.request_hash()
        candidates = self._by_hash.get(digest, [])
        where = current_attempt.get()
        chosen = self._pick(candidates, where)
        if chosen is None:
            context = f"task {where[0]}, repeat {where[1]}; " if where else ""
            raise CassetteMiss(
                f"the cassette has no exchange for this request (sha256 {digest[:12]}; "
                f"{context}{self.size} exchanges recorded in {self.source})"
            )
        response = _response(chosen)
        raise_recorded_failure(response)  # a failed call fails again, the same way
        try:
            return ModelResponse.model_validate(response)
        except ValidationError as exc:
            raise InputError(
                f"recorded response is malformed: {exc.errors(include_url=False)[0]['msg']}",
                code="CASSETTE_INVALID",
                path=self.source,
            ) from None

    def _pick(
        self, candidates: list[dict[str, Any]], where: tuple[str, int] | None
    ) -> dict[str, Any] | None:
        if not candidates:
            return None
        if where is not None:
            for entry in candidates:
                same = (entry.get("task_id"), entry.get("repeat")) == where
                if same and id(entry) not in self._used:
                    self._used.add(id(entry))
                    return entry
        # Deterministic entrants send identical requests everywhere: any recording answers,
        # an answered one first (another attempt's failed call is not this one's).
        return next((e for e in candidates if not _failed(e)), candidates[0])

    async def aclose(self) -> None:
        return None


def _response(entry: dict[str, Any]) -> Any:
    """The recorded response, parsed again when ``read_cassette(compact=True)`` held its text."""
    response = entry["response"]
    return json.loads(response) if isinstance(response, str) else response


def _failed(entry: dict[str, Any]) -> bool:
    if "failed" in entry:
        return bool(entry["failed"])
    response = entry["response"]
    return isinstance(response, dict) and FAILED_CALL in response


__all__ = ["CASSETTE_FILE", "CassetteTarget", "current_attempt", "read_cassette"]
