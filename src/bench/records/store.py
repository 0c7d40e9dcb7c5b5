"""Run directories: created once, attempts written once, found by id, prefix, path or ``latest``."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pydantic import ValidationError

from bench.core.atomic import sync_dir, write_atomic, write_once
from bench.core.errors import RunStoreError
from bench.core.files import parse_json
from bench.core.trace import Exchange
from bench.core.validation import describe

from .run import AttemptRecord, RunConfig, RunStatus, attempt_filename

M = TypeVar("M", RunConfig, RunStatus, AttemptRecord)

CONFIG = "config.json"
STATUS = "status.json"
ATTEMPTS = "attempts"
CASSETTE = "cassette.jsonl"
# Held (flock) by the one process writing the run (RunLock); never bundled: a bundle copies
# only the files it names.
LOCK = ".lock"


def _pretty(model: RunConfig | RunStatus) -> bytes:
    return (json.dumps(model.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n").encode()


# With the exchanges left out, an attempt file ends with the trace's last field and this:
# ``trace`` is the record's last field and ``exchanges`` the trace's (tested).
_TAIL = "\n  }\n}"


def exchange_lines(record: AttemptRecord) -> list[str]:
    """Each exchange of the attempt as one line of compact JSON, in model order: what the
    attempt file holds and what the cassette's line for it continues (``cassette_line``)."""
    return [exchange.model_dump_json() for exchange in record.trace.exchanges]


def cassette_line(task_id: str, repeat: int, line: str) -> str:
    """The cassette's line for one exchange: its attempt key, then the exchange's fields."""
    key = f'{{"task_id":{json.dumps(task_id, ensure_ascii=False)},"repeat":{int(repeat)},'
    return key + line[1:]


def attempt_bytes(record: AttemptRecord, lines: list[str] | None = None) -> bytes:
    """An attempt file's bytes: indented JSON from pydantic's own encoder, each exchange on
    a line of its own (``lines``, from ``exchange_lines``: made once, and reused for the
    cassette).

    It holds what ``json.dumps(record.model_dump(mode="json"), indent=2)`` holds but is made
    several times faster, which matters once per attempt; the differences are how a few
    floats are spelled (``0.00002715`` for ``2.715e-05``), which parse to the same numbers
    (docs/DECISIONS.md), and the exchanges, one compact line each. Bundles never hash these
    bytes: they re-serialise each record as canonical JSON.
    """
    if lines is None:
        lines = exchange_lines(record)
    text = record.model_dump_json(indent=2, exclude={"trace": {"exchanges"}})
    if not text.endswith(_TAIL):  # the model's field order changed: the plain encoder
        return (record.model_dump_json(indent=2) + "\n").encode()
    listed = "[\n      " + ",\n      ".join(lines) + "\n    ]" if lines else "[]"
    return (text[: -len(_TAIL)] + ',\n    "exchanges": ' + listed + _TAIL + "\n").encode()


@dataclass(frozen=True)
class RunDir:
    """One run on disk."""

    path: Path

    @property
    def run_id(self) -> str:
        return self.path.name

    def config(self) -> RunConfig:
        return self._load(CONFIG, RunConfig)

    def status(self) -> RunStatus:
        return self._load(STATUS, RunStatus)

    def write_status(self, status: RunStatus) -> None:
        # The attempt files' names first (written without a directory sync each, 0.1 ms of
        # CPU per attempt): a status never counts an attempt a power cut could take back.
        attempts = self.path / ATTEMPTS
        if attempts.is_dir():
            sync_dir(attempts)
        write_atomic(self.path / STATUS, _pretty(status))

    def write_attempt(self, record: AttemptRecord, lines: list[str] | None = None) -> Path:
        """Write the attempt's file once (``lines``: its ``exchange_lines``, if made)."""
        target = self.path / ATTEMPTS / attempt_filename(record.task_id, record.repeat)
        try:
            write_once(target, attempt_bytes(record, lines), durable=False)
        except FileExistsError:
            # Within one process a run writes each attempt once: the file being there means
            # another process is running the same run (two --resume at once), which keeps it.
            raise RunStoreError(
                "attempt already recorded, a run never overwrites an attempt: another bench "
                "process is writing this run at the same time? It keeps what it writes; once "
                "it ends, --resume the run to finish what is left",
                code="ATTEMPT_EXISTS",
                path=target,
            ) from None
        return target

    def attempt(self, task_id: str, repeat: int) -> AttemptRecord:
        """One attempt's record, read back from the file this process wrote for it during the
        run (``bench run``'s report of failed transcripts). Parsed by pydantic's own JSON
        reader, a third of the CPU of ``_load``'s strict one: a file the same process has just
        made holds no duplicate key. Any other file is read with ``attempts``."""
        file = self.path / ATTEMPTS / attempt_filename(task_id, repeat)
        try:
            return AttemptRecord.model_validate_json(file.read_bytes())
        except FileNotFoundError:
            raise RunStoreError(
                "missing from the run directory", code="RUN_CORRUPT", path=file
            ) from None
        except ValidationError as exc:
            field, message = describe(exc)
            raise RunStoreError(message, code="RUN_CORRUPT", path=file, field=field) from None

    def attempts(self) -> list[AttemptRecord]:
        """Every readable attempt file, in file-name order. Unreadable files are an error."""
        directory = self.path / ATTEMPTS
        if not directory.is_dir():
            if _is_bundle(self.path):
                raise _bundle_error(self.path)
            return []
        records = []
        for file in sorted(directory.glob("*.json")):
            records.append(self._load(f"{ATTEMPTS}/{file.name}", AttemptRecord))
        return records

    def write_cassette(self, exchanges: Iterable[tuple[str, int, Exchange]]) -> Path:
        """One JSON line per exchange: its attempt key, then the exchange's fields in model
        order (pydantic's encoder: ~7x faster than sorted-key JSON of a dump, and equally
        deterministic; a cassette is matched on ``request_hash``, never on its bytes)."""
        return self.write_cassette_lines(
            (task_id, repeat, exchange.model_dump_json()) for task_id, repeat, exchange in exchanges
        )

    def write_cassette_lines(self, exchanges: Iterable[tuple[str, int, str]]) -> Path:
        """``write_cassette`` from each exchange's ``exchange_lines`` entry, already made.

        Written line by line: joining a run's cassette into one string first took several
        times its size in memory, the highest point of a scripted 172 x 5 run."""
        target = self.path / CASSETTE
        write_atomic(
            target,
            (
                (cassette_line(task_id, repeat, line) + "\n").encode()
                for task_id, repeat, line in exchanges
            ),
        )
        return target

    def _load(self, name: str, model: type[M]) -> M:
        file = self.path / name
        try:
            text = file.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise RunStoreError(
                "missing from the run directory", code="RUN_CORRUPT", path=file
            ) from None
        except UnicodeDecodeError as exc:
            raise RunStoreError(
                f"not UTF-8 (byte {exc.start})", code="RUN_CORRUPT", path=file
            ) from None
        except (IsADirectoryError, NotADirectoryError) as exc:  # the run is not laid out as one
            raise RunStoreError(
                f"cannot be read: {exc.strerror or exc}", code="RUN_CORRUPT", path=file
            ) from None
        except OSError as exc:
            # The disk, not the run: an I/O error or a permission is said as it is (IO_ERROR),
            # never "corrupt", which sent the user to delete a run that was fine.
            if exc.filename is None:
                exc.filename = str(file)
            raise
        try:
            return model.model_validate(parse_json(text, file))
        except ValidationError as exc:
            field, message = describe(exc)
            raise RunStoreError(message, code="RUN_CORRUPT", path=file, field=field) from None


class RunLock:
    """The run directory's one writer: an exclusive ``flock`` on its ``.lock`` file, held while
    a process runs it (a new run from before its config is written, a resumed one from before
    anything is read or written). A second ``bench run --resume`` of the same run is refused at
    once (``RUN_LOCKED``), writing nothing, instead of writing beside the first. The operating
    system releases the lock when the process ends, however it ends, so a crash never leaves a
    run locked (only an empty ``.lock`` file, which nothing reads and no bundle copies); a run
    from before the lock has no ``.lock`` file and gets one when it resumes. The file is
    removed when the run ends. Where there is no ``fcntl`` (Windows) nothing is locked."""

    def __init__(self) -> None:
        self._fd: int | None = None
        self._path: Path | None = None

    def acquire(self, run_path: Path) -> None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            return
        if _is_bundle(run_path):  # never leave a file in a signed bundle: verify refuses it
            raise _bundle_error(run_path)
        path = run_path / LOCK
        while True:
            # O_CLOEXEC: an agent's subprocess, which may outlive a crash, never holds it
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                held, named = os.fstat(fd), os.stat(path)
            except BlockingIOError:
                os.close(fd)
                raise RunStoreError(
                    f"run {run_path.name} is being written by another bench process (a run "
                    "or a --resume of it still going): nothing was written; once that process "
                    "ends, --resume the run to finish what is left",
                    code="RUN_LOCKED",
                    path=run_path,
                ) from None
            except FileNotFoundError:  # its holder removed it as it ended: take a new one
                os.close(fd)
                continue
            except BaseException:
                os.close(fd)
                raise
            if (held.st_dev, held.st_ino) == (named.st_dev, named.st_ino):
                self._fd, self._path = fd, path
                return
            os.close(fd)  # locked a file its holder removed and another replaced: again

    def release(self) -> None:
        if self._fd is not None and self._path is not None:
            fd, path, self._fd, self._path = self._fd, self._path, None, None
            # Removed while held: a process that opened it meanwhile sees it gone and retries.
            # A directory made read-only meanwhile keeps it; the lock is released all the same.
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
            os.close(fd)  # closing the descriptor releases the flock

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _is_bundle(path: Path) -> bool:
    return (path / "manifest.json").is_file() and (path / "attempts.jsonl.gz").exists()


def _bundle_error(path: Path) -> RunStoreError:
    # A bundle holds config.json and status.json too, but its attempts are one gzip file: read
    # as a run, it showed a finished run with no attempt at all.
    return RunStoreError(
        "is a signed bundle, not a run directory: `bench verify` checks it, and its "
        "attempts are one JSON record per line in attempts.jsonl.gz",
        code="RUN_IS_BUNDLE",
        path=path,
    )


class RunStore:
    """The ``runs/`` directory."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def create(self, config: RunConfig, status: RunStatus, lock: RunLock | None = None) -> RunDir:
        """Make the run's directory (exclusively) and write its config and first status;
        ``lock``, when given, is acquired before anything is written in it."""
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.root / config.run_id
        try:
            path.mkdir()
        except FileExistsError:
            raise RunStoreError(
                "a run with this id exists; runs are never overwritten",
                code="RUN_EXISTS",
                path=path,
            ) from None
        run = RunDir(path)
        try:
            if lock is not None:
                lock.acquire(path)
            write_once(path / CONFIG, _pretty(config))
            run.write_status(status)
        except BaseException:
            # A directory this call made a moment ago, with nothing in it worth keeping (a
            # full disk left an empty run directory, or one no command can read)
            shutil.rmtree(path, ignore_errors=True)
            raise
        return run

    def runs(self) -> list[RunDir]:
        if not self.root.is_dir():
            return []
        return [RunDir(p) for p in sorted(self.root.iterdir()) if (p / CONFIG).is_file()]

    def _where(self) -> str:
        """Where the runs were looked for: a relative runs directory (the default ``runs``)
        is read from the current directory, which a stranger may not have thought of."""
        relative = "" if self.root.is_absolute() else ", read from the current directory"
        return f"in {self.root.resolve()}{relative}; name another with --runs-dir DIR"

    def resolve(self, ref: str) -> RunDir:
        """A run by exact id, unique id prefix, path to its directory, or ``latest``.

        ``latest`` is the run whose status was written most recently (file time, not name:
        a copied or resumed run sorts by when it was last worked on).
        """
        candidate = Path(ref)
        if ref not in ("", "latest") and (candidate / CONFIG).is_file():
            return RunDir(candidate)
        runs = self.runs()
        if ref == "latest":
            if not runs:
                raise RunStoreError(
                    f"no runs yet {self._where()}", code="RUN_NOT_FOUND", path=self.root
                )
            return max(runs, key=lambda run: (_mtime(run.path / STATUS), run.run_id))
        exact = [run for run in runs if run.run_id == ref]
        if exact:
            return exact[0]
        matches = [run for run in runs if ref and run.run_id.startswith(ref)]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise RunStoreError(
                f"no run '{ref}' (an id, a unique prefix, a path or 'latest')"
                + ("" if runs else f": no runs at all {self._where()}"),
                code="RUN_NOT_FOUND",
                path=self.root,
            )
        names = ", ".join(run.run_id for run in matches[:5])
        raise RunStoreError(
            f"'{ref}' matches {len(matches)} runs ({names}); give more of the id",
            code="RUN_AMBIGUOUS",
            path=self.root,
        )


def _mtime(path: Path) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except FileNotFoundError:
        return 0


__all__ = [
    "ATTEMPTS",
    "CASSETTE",
    "CONFIG",
    "LOCK",
    "STATUS",
    "RunDir",
    "RunLock",
    "RunStore",
    "attempt_bytes",
    "cassette_line",
    "exchange_lines",
]
