"""The run inside a bundle: every record parses with its model and agrees with the manifest.

``load_run`` is the one reader of a bundle's records, for ``bench verify`` and for the board
(``bench.board.load.BundlesLoader``), and it is safe on its own, before any other check ran:

* the bundle directory must not be a symlink, and its files are opened without following one
  and must be regular files (``PATH_UNSAFE``);
* every size limit is enforced while reading, before a byte past it is decompressed or parsed
  (``LIMIT_SIZE``): config, status and target at most ``MAX_RECORD_BYTES`` each;
  attempts.jsonl.gz is inflated in chunks, at most ``MAX_FILE_BYTES`` and at most
  ``MAX_GZIP_RATIO`` times its compressed size (``GZIP_RATIO_FLOOR`` for small files);
  every line at most ``MAX_LINE_BYTES``; at most one attempt line per planned attempt (the
  config's tasks x repeats, and ``MAX_ATTEMPT_LINES``) and one cassette line per model call the
  attempts record (and ``MAX_CASSETTE_LINES``). A first streaming pass over both files only
  counts and measures, so no line of either is parsed before both are known to be within
  their caps (the cassette's count is held against the model calls once the attempts are
  parsed); the second pass parses line by line and never holds the inflated file whole;
* every string of every record must be text the board can show (``TEXT_INVALID``,
  ``jsonsafe.load(text=True)``); the manifest's, in ``check_consistency``;
* and hold at most ``jsonsafe.MAX_MARKS`` (30) combining marks or invisible characters in a
  row (``LIMIT_COMBINING``): normalizing a run (every scorer reading an answer, the search
  index, provenance) takes time that grows with the square of its length;
* config.json's target must also be a valid ``TargetSpec`` (replays and re-drives build one
  from it; ``RECORD_INVALID`` here rather than an exception there).
* every attempt's line holds its task id written literally (``check_task_literal``): the
  transcript page finds a task's attempts by that text (``RECORD_INVALID`` otherwise).

``check_consistency`` then holds the records to each other and to the manifest, to the
harness version this code reads (``harness.stale_harness``, the board's rule) and, for a
``partial`` run, to the shape a run budget's stop leaves (``check_early_stop``).
"""

from __future__ import annotations

import io
import json
import math
import os
import stat
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeVar

from pydantic import BaseModel, ValidationError

from bench.core.budget import Budget
from bench.core.diskerror import raise_if_disk
from bench.core.rng import MAX_SEED
from bench.core.suite import DEFAULT_REF
from bench.core.validation import describe
from bench.records.bundle import (
    ATTEMPTS,
    CASSETTE,
    CONFIG,
    MANIFEST,
    STATUS,
    TARGET,
    BundleManifest,
)
from bench.records.run import AttemptRecord, RunConfig, RunStatus
from bench.targets.base import TargetSpec, redact_url

from . import jsonsafe
from .codes import Code
from .failure import VerifyFailure
from .harness import stale_harness
from .layout import (
    GZIP_RATIO_FLOOR,
    MAX_ATTEMPT_LINES,
    MAX_CASSETTE_LINES,
    MAX_FILE_BYTES,
    MAX_GZIP_RATIO,
    MAX_LINE_BYTES,
    MAX_RECORD_BYTES,
)

M = TypeVar("M", bound=BaseModel)
_PLANNED = "one per planned attempt: the config's tasks x repeats"
_CALLS = "one per model call the attempts record"
CHUNK = 1024 * 1024  # bytes read, or inflated, at a time
_READ_COMPRESSED = 64 * 1024
assert CHUNK <= MAX_LINE_BYTES  # a line inside one chunk is never over the line cap


@dataclass(frozen=True)
class BundleRun:
    config: RunConfig
    status: RunStatus
    attempts: list[AttemptRecord]
    cassette: list[dict[str, Any]]


def _model(model: type[M], value: Any, path: str) -> M:
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        field, message = describe(exc)
        raise VerifyFailure(Code.RECORD_INVALID, message, path=path, field=field) from None


def _too_big(path: str, message: str) -> VerifyFailure:
    return VerifyFailure(Code.LIMIT_SIZE, message, path=path)


def open_regular(file: Path, max_bytes: int) -> IO[bytes]:
    """``file`` opened for reading: a regular file, not through a symlink, at most
    ``max_bytes`` long (re-checked while reading: the file may grow)."""
    where = str(file)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(file, flags | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise VerifyFailure(Code.BUNDLE_FILE_MISSING, "not in the bundle", path=where) from None
    except OSError as exc:
        if file.is_symlink():
            raise VerifyFailure(Code.PATH_UNSAFE, "is a symlink", path=where) from None
        # A disk that refused (EIO, a permission) says nothing about the bundle: IO_ERROR,
        # exit 3, never a verdict about its submitter
        raise_if_disk(exc, where)
        raise VerifyFailure(
            Code.BUNDLE_FILE_MISSING, f"cannot be read: {exc.strerror}", path=where
        ) from None
    info = os.fstat(fd)
    problem = None
    if not stat.S_ISREG(info.st_mode):
        problem = VerifyFailure(Code.PATH_UNSAFE, "is not a regular file", path=where)
    elif info.st_size > max_bytes:
        problem = _too_big(where, f"larger than {max_bytes} bytes")
    if problem is not None:
        os.close(fd)
        raise problem
    return io.BufferedReader(io.FileIO(fd, "rb", closefd=True))


def _document(file: Path, model: type[M] | None = None) -> Any:
    """One JSON document of at most ``MAX_RECORD_BYTES``, strict, with text the board can
    show; validated with ``model`` when given."""
    where = str(file)
    with open_regular(file, MAX_RECORD_BYTES) as handle:
        data = handle.read(MAX_RECORD_BYTES + 1)
    if len(data) > MAX_RECORD_BYTES:
        raise _too_big(where, f"larger than {MAX_RECORD_BYTES} bytes")
    value = jsonsafe.load(data, where, text=True)
    if model is None:
        return value
    found = _model(model, value, where)
    _finite(found.model_dump(), where)
    return found


def _finite(value: Any, where: str, field: str = "") -> None:
    """No non-finite number in a validated record. The JSON itself holds none
    (``jsonsafe``), but a model reads a number given as text (``"1e400"``, ``"inf"``) as a
    float: such a value is refused as its literal would be (``NON_FINITE_NUMBER``)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise VerifyFailure(
            Code.NON_FINITE_NUMBER,
            f"non-finite number {value} (given as text)",
            path=where,
            field=field or None,
        )
    if isinstance(value, dict):
        for key, item in value.items():
            _finite(item, where, f"{field}.{key}" if field else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _finite(item, where, f"{field}[{index}]")


# -- JSON Lines, streamed -----------------------------------------------------------------


def _plain_chunks(handle: IO[bytes], path: str) -> Iterator[bytes]:
    total = 0
    while chunk := handle.read(CHUNK):
        total += len(chunk)
        if total > MAX_FILE_BYTES:
            raise _too_big(path, f"larger than {MAX_FILE_BYTES} bytes")
        yield chunk


def gzip_chunks(handle: IO[bytes], path: str, limit: int) -> Iterator[bytes]:
    """The inflated bytes of a gzip file of one member, ``CHUNK`` at a time, refused as soon
    as more than ``limit`` bytes come out. Anything after the member (another member, or
    trailing bytes) is refused: ``bench bundle`` writes one, and the transcript page inflates
    the file with a browser's ``DecompressionStream``, which takes one and fails on the rest,
    so a bundle of several would verify while its row showed none of its transcripts."""
    inflate = zlib.decompressobj(wbits=31)
    total = 0
    started = False
    try:
        while True:
            if inflate.unconsumed_tail:
                data = inflate.unconsumed_tail
            else:
                data = handle.read(_READ_COMPRESSED)
                if not data:
                    break
            started = True
            out = inflate.decompress(data, CHUNK)
            if out:
                total += len(out)
                if total > limit:
                    raise _too_big(path, f"decompresses to more than {limit} bytes")
                yield out
            if inflate.eof:  # the member ended: so must the file
                rest = inflate.unused_data or inflate.unconsumed_tail
                if rest or handle.read(_READ_COMPRESSED):
                    raise VerifyFailure(
                        Code.RECORD_INVALID,
                        "not gzip of one member: bytes follow the first (bench bundle "
                        "writes one; a browser inflates no more, so the transcript page "
                        "could not read the file)",
                        path=path,
                    )
                return
    except zlib.error as exc:
        raise VerifyFailure(Code.RECORD_INVALID, f"not gzip: {exc}", path=path) from None
    reason = "truncated" if started else "empty"
    raise VerifyFailure(Code.RECORD_INVALID, f"not gzip: {reason}", path=path)


def count_lines(chunks: Iterator[bytes], path: str, max_lines: int, what: str) -> int:
    """The number of lines (the last one may lack its newline; blank lines count), refused
    as soon as there are more than ``max_lines`` or one is longer than ``MAX_LINE_BYTES``.
    Only C loops per chunk: a line inside one chunk is shorter than the line cap."""
    lines = 0
    current = 0  # bytes of the line not yet ended
    for chunk in chunks:
        first = chunk.find(b"\n")
        if first < 0:
            current += len(chunk)
        else:
            if current + first > MAX_LINE_BYTES:
                break
            lines += chunk.count(b"\n")
            if lines > max_lines:
                raise _too_big(path, f"more than {max_lines} lines ({what})")
            current = len(chunk) - chunk.rfind(b"\n") - 1
        if current > MAX_LINE_BYTES:
            break
    else:
        lines += current > 0
        if lines > max_lines:
            raise _too_big(path, f"more than {max_lines} lines ({what})")
        return lines
    raise _too_big(path, f"line {lines + 1} is longer than {MAX_LINE_BYTES} bytes")


def _split(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """The lines of ``chunks``, without their newlines, one at a time."""
    pending: list[bytes] = []
    for chunk in chunks:
        parts = chunk.split(b"\n")
        if len(parts) == 1:
            pending.append(chunk)
            continue
        pending.append(parts[0])
        yield b"".join(pending)
        yield from parts[1:-1]
        pending = [parts[-1]] if parts[-1] else []
    if pending:
        yield b"".join(pending)


def _parsed(
    handle: IO[bytes], chunks: Callable[[IO[bytes]], Iterator[bytes]], where: str
) -> Iterator[tuple[str, bytes, Any]]:
    """``(path:line, the line's bytes, value)`` for every non-blank line of the file, from its
    start, parsed with ``jsonsafe.load(text=True)`` one line at a time."""
    handle.seek(0)
    for number, line in enumerate(_split(chunks(handle)), start=1):
        if line.strip():
            place = f"{where}:{number}"
            yield place, line, jsonsafe.load(line, place, text=True)


def check_task_literal(line: bytes, record: AttemptRecord, place: str) -> None:
    """An attempt's line holds its task id as a JSON string written literally, as
    ``JSON.stringify`` writes it (``RECORD_INVALID`` otherwise). The transcript page finds a
    task's attempts by that text before it parses a line (``transcript.js``, ``recordsOf``: a
    64 MiB file is not parsed whole for one task), so an id written with escapes
    (``"\\u0071a-0001"``, the same string to every JSON reader) hid the attempt from the page:
    a submitter chose which repeats of a failed task a reader could open, while verify and the
    board counted them all. ``bench bundle`` writes every id literally."""
    needle = json.dumps(record.task_id, ensure_ascii=False).encode("utf-8", "surrogatepass")
    if needle not in line:
        raise VerifyFailure(
            Code.RECORD_INVALID,
            f"the task id {needle.decode('utf-8', 'replace')[:80]} is not written as such on its "
            "line (escaped): the transcript page finds a task's attempts by that text, and "
            "would not show this one; bench bundle writes it literally",
            path=place,
            field="task_id",
        )


def _gzip_reader(file: Path) -> Callable[[IO[bytes]], Iterator[bytes]]:
    where = str(file)

    def chunks(handle: IO[bytes]) -> Iterator[bytes]:
        size = os.fstat(handle.fileno()).st_size
        limit = min(MAX_FILE_BYTES, MAX_GZIP_RATIO * max(size, GZIP_RATIO_FLOOR))
        return gzip_chunks(handle, where, limit)

    return chunks


def _plain_reader(file: Path) -> Callable[[IO[bytes]], Iterator[bytes]]:
    where = str(file)
    return lambda handle: _plain_chunks(handle, where)


def read_config(bundle: Path) -> RunConfig:
    """config.json alone, under the same rules as in :func:`load_run` (the board reads it to
    find the suite, and so the task set, a bundle is verified against)."""
    if bundle.is_symlink():
        raise VerifyFailure(Code.PATH_UNSAFE, "the bundle directory is a symlink", path=str(bundle))
    config: RunConfig = _document(bundle / CONFIG, RunConfig)
    return config


def load_run(bundle: Path) -> BundleRun:
    if bundle.is_symlink():
        raise VerifyFailure(Code.PATH_UNSAFE, "the bundle directory is a symlink", path=str(bundle))
    config = _document(bundle / CONFIG, RunConfig)
    status = _document(bundle / STATUS, RunStatus)
    target = _document(bundle / TARGET)
    if target != config.target:
        raise VerifyFailure(
            Code.RECORD_INCONSISTENT, "differs from config.json's target", path=str(bundle / TARGET)
        )
    try:  # what replays and re-drives build from it: refused here, not raised there
        spec = TargetSpec.model_validate(config.target)
    except ValidationError as exc:
        field, message = describe(exc)
        raise VerifyFailure(
            Code.RECORD_INVALID, message, path=str(bundle / CONFIG), field=f"target.{field}"
        ) from None
    _finite(spec.model_dump(), str(bundle / CONFIG), "target")
    _as_read(config.target, spec, str(bundle / CONFIG), "target")
    where = {name: str(bundle / name) for name in (ATTEMPTS, CASSETTE)}
    inflated = _gzip_reader(bundle / ATTEMPTS)
    plain = _plain_reader(bundle / CASSETTE)
    planned = len(config.task_set.task_ids) * config.repeats
    if planned > MAX_ATTEMPT_LINES:
        # Its plan is never built: a list of 3 tasks x 10^9 repeats is out of memory before
        # any check could say so. No bundle can hold such a run (nor list what it skipped).
        raise VerifyFailure(
            Code.LIMIT_SIZE,
            f"the config plans {planned} attempts (tasks x repeats), more than {MAX_ATTEMPT_LINES}",
            path=str(bundle / CONFIG),
            field="repeats",
        )
    with (
        open_regular(bundle / ATTEMPTS, MAX_FILE_BYTES) as gz,
        open_regular(bundle / CASSETTE, MAX_FILE_BYTES) as jl,
    ):
        # Both files counted and measured before a line of either is parsed.
        count_lines(inflated(gz), where[ATTEMPTS], planned, _PLANNED)
        lines = count_lines(plain(jl), where[CASSETTE], MAX_CASSETTE_LINES, "a flat cap")
        attempts = []
        for place, line, value in _parsed(gz, inflated, where[ATTEMPTS]):
            record = _model(AttemptRecord, value, place)
            _as_read(value, record, place, "", exclude=_UNCONVERTED)
            check_task_literal(line, record, place)
            attempts.append(record)
        calls = sum(len(a.trace.exchanges) for a in attempts)
        if lines > calls:
            raise _too_big(where[CASSETTE], f"more than {calls} lines ({_CALLS})")
        cassette: list[dict[str, Any]] = []
        for place, _, entry in _parsed(jl, plain, where[CASSETTE]):
            if not isinstance(entry, dict) or not {"request_hash", "response"} <= entry.keys():
                raise VerifyFailure(
                    Code.RECORD_INVALID,
                    "a cassette line needs 'request_hash' and 'response'",
                    path=place,
                )
            cassette.append(entry)
    return BundleRun(config, status, attempts, cassette)


def _kind(value: Any) -> str:
    """A JSON value's kind: a whole number and a fraction are one kind (``1`` is ``1.0``)."""
    if isinstance(value, bool):
        return "flag"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def _not_as_read(found: Any, read: Any, field: str) -> tuple[str, Any, Any] | None:
    """The first value of a record as written (``found``, parsed JSON) whose kind is not the
    one its model writes (``read``, ``model_dump(mode="json")``), or None: a number, a flag or
    a price given as text, a flag given as a number, that pydantic converts on reading. Verify
    compares the converted values; the board and the transcript page show the bytes as
    written, and a browser reads the text ``"false"`` as true. A key the model's dump leaves
    out (excluded, or a setting added after the run) is not compared."""
    if isinstance(found, dict) and isinstance(read, dict):
        for key, value in found.items():
            if key in read:
                unread = _not_as_read(value, read[key], f"{field}.{key}" if field else key)
                if unread is not None:
                    return unread
        return None
    if isinstance(found, list) and isinstance(read, list) and len(found) == len(read):
        for index, (mine, theirs) in enumerate(zip(found, read, strict=True)):
            unread = _not_as_read(mine, theirs, f"{field}[{index}]")
            if unread is not None:
                return unread
        return None
    return None if _kind(found) == _kind(read) else (field, found, read)


def _as_read(found: Any, model: BaseModel, path: str, field: str, **dump: Any) -> None:
    """``found`` (a record as written) holds every value in the kind its ``model`` writes
    (``_not_as_read``), else ``RECORD_INVALID`` naming the field."""
    unread = _not_as_read(found, model.model_dump(mode="json", **dump), field)
    if unread is not None:
        where, value, read = unread
        raise VerifyFailure(
            Code.RECORD_INVALID,
            f"{repr(value)[:80]} is not in the form its model writes ({repr(read)[:80]}): "
            "bench run writes every value as its model does, and the board and the transcript "
            "page show the record as written (a flag as text reads as true in a browser; a "
            "price as text hides the prices a cost was made at)",
            path=path,
            field=where,
        )


# Not compared: an attempt's messages and model calls hold only text and free JSON (nothing a
# model converts on reading), and are most of its bytes.
_UNCONVERTED = {"trace": {"messages", "exchanges"}}


def _inconsistent(message: str, path: Path, field: str | None = None) -> VerifyFailure:
    return VerifyFailure(Code.RECORD_INCONSISTENT, message, path=str(path), field=field)


def check_consistency(bundle: Path, run: BundleRun, manifest: BundleManifest) -> None:
    # read_manifest refused surrogates and non-characters (I-JSON); controls, here, after its
    # listed paths had their own, more precise code (a NUL in one is PATH_UNSAFE).
    jsonsafe.check_text(manifest.model_dump(mode="json"), str(bundle / MANIFEST))
    config, status = run.config, run.status
    expected: list[tuple[str, Any, Any]] = [
        ("run_id", config.run_id, manifest.run_id),
        ("entrant", config.entrant, manifest.entrant),
        ("harness_version", config.harness_version, manifest.harness_version),
        ("task_set.content_hash", config.task_set.content_hash, manifest.task_set_hash),
        ("task_set.split", config.task_set.split, manifest.split),
        # A manifest made before bundles named their suite has none: bench-suite's.
        ("task_set.suite", config.task_set.suite_label(), (manifest.suite or DEFAULT_REF).label()),
    ]
    for field, found, claimed in expected:
        if found != claimed:
            raise _inconsistent(
                f"'{found}' but the manifest says '{claimed}'", bundle / CONFIG, field
            )
    stale = stale_harness(config.harness_version)
    if stale is not None:  # the board's "stale schema" rule, the very function
        raise VerifyFailure(
            Code.RECORD_INVALID,
            f"the run was {stale}",
            path=str(bundle / CONFIG),
            field="harness_version",
        )
    url = config.target.get("base_url")
    if isinstance(url, str) and redact_url(url) != url:
        raise VerifyFailure(
            Code.RECORD_INVALID,
            "the recorded base URL keeps credentials, a path or a query (bench bundle cuts it "
            "to scheme://host[:port]; a bundle must not publish a secret)",
            path=str(bundle / CONFIG),
            field="target.base_url",
        )
    if not 0 <= config.seed <= MAX_SEED:
        # bench run takes no other (SEED_INVALID); the board draws the row's headline interval
        # with it, and the draws take no negative seed: refused here, not a traceback there.
        raise VerifyFailure(
            Code.RECORD_INVALID,
            f"the seed is {config.seed}; bench run records a whole number from 0 to "
            "2**53 - 1 (the headline interval is drawn with it)",
            path=str(bundle / CONFIG),
            field="seed",
        )
    fingerprint = config.fingerprint()
    if fingerprint != manifest.config_fingerprint:
        raise _inconsistent("config fingerprint differs from the manifest's", bundle / CONFIG)
    if status.run_id != config.run_id or status.config_fingerprint != fingerprint:
        raise _inconsistent("status is for another run or config", bundle / STATUS)
    if status.status == "started":
        raise _inconsistent("the run never finished", bundle / STATUS, "status")
    schedule = run_order(config)
    planned = set(schedule)
    seen: set[tuple[str, int]] = set()
    for record in run.attempts:
        where = f"{record.task_id}#{record.repeat}"
        if record.run_id != config.run_id or record.config_fingerprint != fingerprint:
            raise _inconsistent("attempt of another run or config", bundle / ATTEMPTS, where)
        if record.key not in planned or record.key in seen:
            raise _inconsistent(
                "attempt not in the plan, or recorded twice", bundle / ATTEMPTS, where
            )
        seen.add(record.key)
    if not seen:
        raise _inconsistent("no attempts", bundle / ATTEMPTS)
    if len(seen) != status.attempts_done or (status.status == "complete" and seen != planned):
        raise _inconsistent(
            f"{len(seen)} attempts, status says {status.attempts_done} of {len(planned)} "
            f"({status.status})",
            bundle / STATUS,
            "attempts_done",
        )
    if status.attempts_total != len(planned):
        raise _inconsistent(
            f"status says {status.attempts_total} planned attempts, the config plans "
            f"{len(planned)} (tasks x repeats)",
            bundle / STATUS,
            "attempts_total",
        )
    if status.status == "complete":
        if status.skipped:
            raise _inconsistent("a complete run skipped nothing", bundle / STATUS, "skipped")
        return
    check_early_stop(bundle, run, schedule, seen)


def check_target_copies(bundle: Path, config: RunConfig) -> None:
    """config.json's copies of its target are the target's own: ``bench run`` writes
    ``target_kind`` and ``comparable`` from the one target it ran (``runner.session``). The
    re-drive binds only ``target`` (its model and params are in every recorded request),
    while the board shows ``comparable`` (a row's model, params and system prompt, and its
    fingerprint) and decides a reference row or a replay by ``target_kind``: a copy that says
    otherwise would show a model, settings or kind the recording was not made with
    (``RECORD_INCONSISTENT``). The target's ``display_name`` and ``entrant`` are never shown
    (the run's own, bound to the manifest, are)."""
    spec = TargetSpec.model_validate(config.target)  # load_run refused one that is not
    # Exactly the target's own, key for key: ``comparable`` is in the config fingerprint (the
    # row's key), so a copy that left out an unset setting (``"system_prompt": null``) was a
    # second row of the very same settings beside the first, both ranked. Every bundle that
    # verifies was made by this harness version (``stale_harness``), which writes every key.
    copies: list[tuple[str, Any, Any]] = [
        ("target_kind", config.target_kind, spec.kind),
        ("comparable", config.comparable, spec.comparable()),
    ]
    for field, found, own in copies:
        if found != own:
            raise _inconsistent(
                f"differs from the recorded target's own {field} (config.json's target, "
                "which every recorded request was made with)",
                bundle / CONFIG,
                field,
            )


# -- a partial run: stopped by its run budget, and nowhere else ------------------------------


def run_order(config: RunConfig) -> list[tuple[str, int]]:
    """The order ``bench run`` takes a run's attempts in (``runner.engine.execute``): the
    config's task ids in their order, each task's repeats in turn."""
    return [(t, r) for t in config.task_set.task_ids for r in range(config.repeats)]


def _reached(budget: Budget, run: BundleRun) -> list[str]:
    """The caps of the run budget that the run's attempts (and its wall time) reached, as
    the runner's meter counts them (``runner.budget.Meter.exhausted``: spent >= cap)."""
    traces = [record.trace for record in run.attempts]
    spent = {
        "tokens": sum(trace.usage.total for trace in traces),
        "tool_calls": sum(len(trace.tool_calls) for trace in traces),
        "dollars": sum(trace.cost_usd or 0.0 for trace in traces),
        "seconds": run.status.elapsed_s,
    }
    # Float sums in another order than the runner's, and elapsed_s rounded to the microsecond.
    slack = {"tokens": 0.0, "tool_calls": 0.0, "dollars": 1e-9, "seconds": 1e-6}
    reached = []
    for name, cap in budget.model_dump().items():
        if cap is not None and spent[name] + slack[name] * max(1.0, cap) >= cap:
            reached.append(f"{name} {spent[name]:g} >= {cap:g}")
    return reached


def check_early_stop(
    bundle: Path, run: BundleRun, schedule: list[tuple[str, int]], done: set[tuple[str, int]]
) -> None:
    """A ``partial`` run is one its run budget stopped (``runner.engine.execute``: the only
    way a run ends partial; an interrupted run stays ``started``). What that guarantees:

    * every planned attempt is done or skipped: ``skipped`` lists exactly the attempts
      without a record, once each (a resumed session retries all the run lacks, and skips
      every one it does not start);
    * the run budget of its last session (``status.run_budget``, else config.json's) was
      reached by what the done attempts spent (tokens, tool calls, dollars) or by the run's
      wall time (``elapsed_s``): the meter never skips before a cap is reached;
    * the done attempts are a prefix of :func:`run_order`. Attempts enter the concurrency
      gate in that order (a FIFO ``asyncio.Semaphore``) and the budget is checked there, once
      spent it stays spent, and the attempts already in flight finish: so one session stops
      at one point in the order. Only an interrupted earlier session (``sessions`` > 1) can
      leave holes before a done attempt: the attempts in flight when it was stopped, at most
      ``concurrency`` - 1 besides the last attempt it finished.

    A run whose failed attempts were deleted and its status rewritten as partial breaks one
    of them (docs/SUBMISSIONS.md, "Partial runs")."""
    status, config = run.status, run.config
    where = bundle / STATUS
    if not status.partial_reason:
        raise _inconsistent("a partial run says why it stopped", where, "partial_reason")
    planned = set(schedule)
    skipped: set[tuple[str, int]] = set()
    for key in status.skipped:
        item = (key.task_id, key.repeat)
        if item in skipped or item in done or item not in planned:
            raise _inconsistent(
                f"{item[0]}#{item[1]} is skipped twice, done, or not in the plan", where, "skipped"
            )
        skipped.add(item)
    missing = len(schedule) - len(done)
    if skipped != planned - done:
        raise _inconsistent(
            f"{missing} planned attempt(s) have no record but {len(skipped)} are skipped: a run "
            "its budget stopped skips every attempt it did not do",
            where,
            "skipped",
        )
    budget = status.run_budget if status.run_budget is not None else config.run_budget
    if not _reached(budget, run):
        caps = ", ".join(f"{k} {v:g}" for k, v in budget.model_dump().items() if v is not None)
        raise _inconsistent(
            "a run is partial only when its run budget ran out, but "
            + (f"none of its caps ({caps}) was reached" if caps else "it had no run budget"),
            where,
            "run_budget",
        )
    allowed = 0 if status.sessions == 1 else config.concurrency - 1
    holes = 0
    last: tuple[str, int] | None = None
    gaps = 0
    for item in schedule:
        if item in done:
            holes, last = gaps, item
        else:
            gaps += 1
    if holes > allowed and last is not None:
        raise _inconsistent(
            f"{holes} skipped attempt(s) come before {last[0]}#{last[1]} in the run's order; a "
            f"run its budget stopped has done a prefix of that order (at most {allowed} "
            f"skipped before a done attempt: {status.sessions} session(s), concurrency "
            f"{config.concurrency})",
            where,
            "skipped",
        )


__all__ = [
    "BundleRun",
    "check_consistency",
    "check_early_stop",
    "check_task_literal",
    "check_target_copies",
    "count_lines",
    "gzip_chunks",
    "load_run",
    "open_regular",
    "read_config",
    "run_order",
]
