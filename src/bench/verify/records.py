"""The run inside a bundle: every record parses with its model and agrees with the manifest."""

from __future__ import annotations

import gzip
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from bench.core.validation import describe
from bench.records.bundle import ATTEMPTS, CASSETTE, CONFIG, STATUS, TARGET, BundleManifest
from bench.records.run import AttemptRecord, RunConfig, RunStatus
from bench.targets.base import redact_url

from . import jsonsafe
from .codes import Code
from .failure import VerifyFailure
from .layout import MAX_FILE_BYTES

M = TypeVar("M", bound=BaseModel)


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


def _gunzip(data: bytes, path: str) -> bytes:
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as handle:
            out = handle.read(MAX_FILE_BYTES + 1)
    except (OSError, EOFError) as exc:
        raise VerifyFailure(Code.RECORD_INVALID, f"not gzip: {exc}", path=path) from None
    if len(out) > MAX_FILE_BYTES:
        raise VerifyFailure(
            Code.LIMIT_SIZE, f"decompresses to more than {MAX_FILE_BYTES} bytes", path=path
        )
    return out


def _lines(data: bytes, path: str) -> list[Any]:
    return [
        jsonsafe.load(line, f"{path}:{number}")
        for number, line in enumerate(data.split(b"\n"), start=1)
        if line.strip()
    ]


def load_run(bundle: Path) -> BundleRun:
    where = {name: str(bundle / name) for name in (ATTEMPTS, CASSETTE, CONFIG, STATUS, TARGET)}
    config = _model(
        RunConfig, jsonsafe.load((bundle / CONFIG).read_bytes(), where[CONFIG]), where[CONFIG]
    )
    status = _model(
        RunStatus, jsonsafe.load((bundle / STATUS).read_bytes(), where[STATUS]), where[STATUS]
    )
    target = jsonsafe.load((bundle / TARGET).read_bytes(), where[TARGET])
    if target != config.target:
        raise VerifyFailure(
            Code.RECORD_INCONSISTENT, "differs from config.json's target", path=where[TARGET]
        )
    raw = _gunzip((bundle / ATTEMPTS).read_bytes(), where[ATTEMPTS])
    attempts = [
        _model(AttemptRecord, value, f"{where[ATTEMPTS]}:{number}")
        for number, value in enumerate(_lines(raw, where[ATTEMPTS]), start=1)
    ]
    cassette = _lines((bundle / CASSETTE).read_bytes(), where[CASSETTE])
    for number, entry in enumerate(cassette, start=1):
        if not isinstance(entry, dict) or not {"request_hash", "response"} <= entry.keys():
            raise VerifyFailure(
                Code.RECORD_INVALID,
                "a cassette line needs 'request_hash' and 'response'",
                path=f"{where[CASSETTE]}:{number}",
            )
    return BundleRun(config, status, attempts, cassette)


def _inconsistent(message: str, path: Path, field: str | None = None) -> VerifyFailure:
    return VerifyFailure(Code.RECORD_INCONSISTENT, message, path=str(path), field=field)


def check_consistency(bundle: Path, run: BundleRun, manifest: BundleManifest) -> None:
    config, status = run.config, run.status
    expected: list[tuple[str, Any, Any]] = [
        ("run_id", config.run_id, manifest.run_id),
        ("entrant", config.entrant, manifest.entrant),
        ("harness_version", config.harness_version, manifest.harness_version),
        ("task_set.content_hash", config.task_set.content_hash, manifest.task_set_hash),
        ("task_set.split", config.task_set.split, manifest.split),
    ]
    for field, found, claimed in expected:
        if found != claimed:
            raise _inconsistent(
                f"'{found}' but the manifest says '{claimed}'", bundle / CONFIG, field
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
    fingerprint = config.fingerprint()
    if fingerprint != manifest.config_fingerprint:
        raise _inconsistent("config fingerprint differs from the manifest's", bundle / CONFIG)
    if status.run_id != config.run_id or status.config_fingerprint != fingerprint:
        raise _inconsistent("status is for another run or config", bundle / STATUS)
    if status.status == "started":
        raise _inconsistent("the run never finished", bundle / STATUS, "status")
    planned = {(t, r) for t in config.task_set.task_ids for r in range(config.repeats)}
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


__all__ = ["BundleRun", "check_consistency", "load_run"]
