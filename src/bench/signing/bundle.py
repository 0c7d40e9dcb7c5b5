"""``bench bundle``: pack a finished run into ``results/<entrant>/<run_id>/`` and sign it.

Everything is checked before anything is written; the bundle is assembled in a temp
directory beside its destination and renamed into place, so it appears whole or not at all,
and an existing bundle directory is never replaced.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import rfc8785

from bench.core.atomic import write_once
from bench.core.canonical import canonical_json, sha256_hex
from bench.core.clock import iso_z, utc_now
from bench.core.errors import InputError, RunStoreError
from bench.core.secrets import (
    MIN_SECRET_CHARS,
    Finding,
    PortablePaths,
    attempt_findings,
    config_findings,
    status_findings,
)
from bench.core.shownnames import name_refusal, run_names
from bench.core.trace import FAILED_CALL
from bench.records.bundle import (
    ATTEMPTS,
    CASSETTE,
    CONFIG,
    GZIP_RATIO_FLOOR,
    MANIFEST,
    MAX_ATTEMPT_LINES,
    MAX_CASSETTE_LINES,
    MAX_FILE_BYTES,
    MAX_GZIP_RATIO,
    MAX_LINE_BYTES,
    MAX_MANIFEST_BYTES,
    MAX_RECORD_BYTES,
    MAX_TOTAL_BYTES,
    SIGNATURE,
    STATUS,
    TARGET,
    BundleManifest,
    ManifestFile,
    target_dir,
)
from bench.records.run import AttemptRecord, RunConfig
from bench.records.store import RunDir

from .allowed_signers import AllowedSigners
from .errors import SignersError
from .keys import load_private_key, public_blob
from .sshsig import sign

DEFAULT_REPOSITORY = "bench-suite"


def scrub_target(target: dict[str, Any], paths: PortablePaths | None = None) -> dict[str, Any]:
    """The recorded target as a bundle publishes it: the base URL cut to
    ``scheme://host[:port]`` (``TargetSpec.recorded`` already does; a run of an older version
    may not have), the scripted callable's and the cassette's paths made portable.

    Nothing a request carries is changed — ``model``, ``params``, ``system_prompt`` — and no
    field is dropped: the verifier replays the cassette with this target, and a request whose
    parameters differ (a ``max_tokens`` removed because it says "token") misses it. A target
    that carries a secret is refused instead (``payload``)."""
    clean = dict(target)
    url = clean.get("base_url")
    if isinstance(url, str) and "://" in url:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if ":" in host:  # IPv6 literal
            host = f"[{host}]"
        try:
            port = parts.port
        except ValueError:
            port = None
        clean["base_url"] = f"{parts.scheme}://{host}" + (f":{port}" if port else "")
    if paths is not None:
        if isinstance(clean.get("callable"), str):
            clean["callable"] = paths.callable(clean["callable"])
        if isinstance(clean.get("cassette"), str):
            clean["cassette"] = paths.path(clean["cassette"])
    return clean


def _pretty(value: Any) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True) + "\n").encode()


def deterministic_gzip(data: bytes) -> bytes:
    """gzip with mtime 0 and no file name: equal input, equal bytes."""
    return gzip.compress(data, compresslevel=9, mtime=0)


def _portable_json(value: Any, paths: PortablePaths, keep: frozenset[str] = frozenset()) -> Any:
    """Every string of a JSON value with its local paths rewritten (keys named in ``keep``
    and their values left alone)."""
    if isinstance(value, str):
        return paths.text(value)
    if isinstance(value, dict):
        return {k: v if k in keep else _portable_json(v, paths, keep) for k, v in value.items()}
    if isinstance(value, list):
        return [_portable_json(item, paths, keep) for item in value]
    return value


def portable_config(config: RunConfig, paths: PortablePaths) -> dict[str, Any]:
    """The config a bundle publishes (JSON form): the task set's and the target file's paths
    relative (or their last name), the target as ``scrub_target`` leaves it, the judge's note
    without local paths. Nothing the fingerprint, a request or the verifier reads changes."""
    data = config.model_dump(mode="json")
    data["task_set"]["path"] = paths.path(data["task_set"]["path"])
    data["target_file"] = paths.path(data["target_file"])
    data["target"] = scrub_target(data["target"], paths)
    if data.get("judge") is not None:
        data["judge"] = _portable_json(data["judge"], paths, frozenset({"fingerprint"}))
    return data


def _portable_failure(response: dict[str, Any], paths: PortablePaths) -> dict[str, Any]:
    """A failed call's recorded response with local paths rewritten in its error message (what
    the harness or the entrant's exception said); any other response as it is."""
    failure = response.get(FAILED_CALL)
    if not isinstance(failure, dict) or not isinstance(failure.get("message"), str):
        return response
    message = paths.text(failure["message"])
    if message == failure["message"]:
        return response
    return {**response, FAILED_CALL: {**failure, "message": message}}


def portable_record(record: AttemptRecord, paths: PortablePaths) -> AttemptRecord:
    """An attempt with local paths rewritten in what the harness wrote of it: ``reason`` and
    the error messages of failed model calls (the cassette gets the same rewrite, so the two
    stay equal). The rest of the trace, the verdict sentences and the safety notes are never
    touched: the verifier re-drives the trace and recomputes the others from it."""
    update: dict[str, Any] = {}
    if record.reason:
        reason = paths.text(record.reason)
        if reason != record.reason:
            update["reason"] = reason
    exchanges = record.trace.exchanges
    rewritten = [
        e.model_copy(update={"response": _portable_failure(e.response, paths)}) for e in exchanges
    ]
    if any(a.response is not b.response for a, b in zip(exchanges, rewritten, strict=True)):
        update["trace"] = record.trace.model_copy(update={"exchanges": rewritten})
    return record.model_copy(update=update) if update else record


def portable_cassette(data: bytes, paths: PortablePaths) -> bytes:
    """The cassette with failed calls' error messages made portable like the attempts'."""
    if f'"{FAILED_CALL}"'.encode() not in data:
        return data
    out = []
    for line in data.splitlines(keepends=True):
        if line.strip():
            entry = json.loads(line)
            response = entry.get("response")
            if isinstance(response, dict):
                portable = _portable_failure(response, paths)
                if portable is not response:
                    entry["response"] = portable
                    line = json.dumps(entry, ensure_ascii=False).encode() + b"\n"
        out.append(line)
    return b"".join(out)


def _refuse(finding: Finding, path: Path) -> InputError:
    if finding.kind == "secret":
        return InputError(
            f"{finding.problem}: a bundle must not publish it, and bench bundle does not rewrite "
            "what the cassette replays; keep keys in an environment variable named by "
            "api_key_env, run again and bundle that run",
            code="TARGET_SECRET",
            path=path,
            field=finding.field,
        )
    return InputError(
        f"{finding.problem}: a bundle must not publish a local path, and this field cannot be "
        "rewritten (requests or the config fingerprint carry it); e.g. serve a local model "
        "under a name (vLLM --served-model-name) and run again",
        code="BUNDLE_LOCAL_PATH",
        path=path,
        field=finding.field,
    )


def _key_values(config: RunConfig, environ: Mapping[str, str]) -> list[tuple[str, str]]:
    """``(variable, value)`` of the key variables the run's target names that are set here."""
    names: list[str] = []
    named = config.target.get("api_key_env")
    if isinstance(named, str) and named:
        names.append(named)
    provider = config.target.get("provider")
    if isinstance(provider, str) and provider:
        names.append(f"BENCH_{provider.upper()}_API_KEY")
    found = []
    for name in names:
        value = (environ.get(name) or "").strip()
        if len(value) >= MIN_SECRET_CHARS:
            found.append((name, value))
    return found


def _refuse_key_values(
    run: RunDir, config: RunConfig, plain: dict[str, bytes], environ: Mapping[str, str]
) -> None:
    """Refuse when the value of a key variable the target names (set in this environment)
    is anywhere in the bundle's bytes: the cheapest proof that no key is published."""
    where = {
        ATTEMPTS: run.path / "attempts",
        CASSETTE: run.path / "cassette.jsonl",
        CONFIG: run.path / "config.json",
        STATUS: run.path / "status.json",
        TARGET: run.path / "config.json",
    }
    for variable, value in _key_values(config, environ):
        needles = {value.encode(), json.dumps(value)[1:-1].encode()}
        for name, data in plain.items():
            if any(needle in data for needle in needles):
                raise InputError(
                    f"holds the value of {variable} (the target's API key): a bundle must not "
                    "publish it; run again with the key only in that variable",
                    code="TARGET_SECRET",
                    path=where[name],
                )


def payload(
    run: RunDir,
    config: RunConfig,
    *,
    paths: PortablePaths | None = None,
    environ: Mapping[str, str] | None = None,
) -> dict[str, bytes]:
    """Every bundle file but the manifest and its signature.

    Refused (``TARGET_SECRET``) when the run's target carries a secret by the rule of
    ``bench.core.secrets`` (a run of this version never does: ``bench run`` refuses it), or
    when the value of a key variable the target names, as set in ``environ`` (default: this
    process's), is in any file. Local paths the harness wrote (the task set, the target file,
    attempt reasons …) are rewritten by ``paths`` (default: relative to the working
    directory, ``~`` for the home directory); one left where it cannot be rewritten is
    refused (``BUNDLE_LOCAL_PATH``). ``bench verify`` checks the same (``check_privacy``)."""
    paths = paths if paths is not None else PortablePaths.here()
    environ = os.environ if environ is None else environ
    config_path = run.path / "config.json"
    original = config.model_dump(mode="json")
    for finding in config_findings(original):
        if finding.kind == "secret":
            raise _refuse(finding, config_path)
    cassette = run.path / "cassette.jsonl"
    if not cassette.is_file():
        raise RunStoreError("the run has no cassette", code="RUN_CORRUPT", path=cassette)
    records = [
        portable_record(record, paths)
        for record in sorted(run.attempts(), key=lambda r: (r.task_id, r.repeat))
    ]
    published = portable_config(config, paths)
    status = _portable_json(run.status().model_dump(mode="json"), paths)
    for finding in (*config_findings(published), *paths.leftovers(published)):
        raise _refuse(finding, config_path)
    for finding in status_findings(status):
        raise _refuse(finding, run.path / "status.json")
    for finding in attempt_findings(records):
        raise _refuse(finding, run.path / "attempts")
    lines = b"".join(canonical_json(r.model_dump(mode="json")) + b"\n" for r in records)
    plain = {
        ATTEMPTS: lines,
        CASSETTE: portable_cassette(cassette.read_bytes(), paths),
        CONFIG: _pretty(published),
        STATUS: _pretty(status),
        TARGET: _pretty(published["target"]),
    }
    _refuse_key_values(run, config, plain, environ)
    files = {**plain, ATTEMPTS: deterministic_gzip(lines)}
    _refuse_oversize(run, plain, files)
    return files


def _longest_line(data: bytes) -> tuple[int, int]:
    """``(lines, bytes of the longest)`` of newline-terminated JSON lines, as verify counts."""
    count = longest = start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        count += 1
        longest = max(longest, end - start)
        start = end + 1
    return count, longest


def _too_large(run: RunDir, name: str, problem: str) -> InputError:
    return InputError(
        f"would be {problem}, so bench verify would refuse the bundle (LIMIT_SIZE); "
        "split the run with --tasks or fewer --repeats, or shorten what the entrant returns",
        code="BUNDLE_TOO_LARGE",
        path=run.path,
        field=name,
    )


def _refuse_oversize(run: RunDir, plain: dict[str, bytes], files: dict[str, bytes]) -> None:
    """The limits ``bench verify`` reads a bundle under (``records.bundle``), checked before
    anything is written: a bundle verify would refuse is never made."""
    for name in (CONFIG, STATUS, TARGET):
        if len(plain[name]) > MAX_RECORD_BYTES:
            raise _too_large(run, name, f"{len(plain[name])} bytes, over {MAX_RECORD_BYTES}")
    for name, data in files.items():
        if len(data) > MAX_FILE_BYTES:
            raise _too_large(run, name, f"{len(data)} bytes, over {MAX_FILE_BYTES}")
    inflated, packed = len(plain[ATTEMPTS]), len(files[ATTEMPTS])
    ratio_cap = MAX_GZIP_RATIO * max(packed, GZIP_RATIO_FLOOR)
    if inflated > min(MAX_FILE_BYTES, ratio_cap):
        raise _too_large(
            run, ATTEMPTS, f"{inflated} bytes inflated, over {min(MAX_FILE_BYTES, ratio_cap)}"
        )
    for name, cap in ((ATTEMPTS, MAX_ATTEMPT_LINES), (CASSETTE, MAX_CASSETTE_LINES)):
        count, longest = _longest_line(plain[name])
        if count > cap:
            raise _too_large(run, name, f"{count} lines, over {cap}")
        if longest > MAX_LINE_BYTES:
            raise _too_large(run, name, f"a line of {longest} bytes, over {MAX_LINE_BYTES}")


def _refuse_oversize_bundle(run: RunDir, files: dict[str, bytes]) -> None:
    """The manifest's and the whole bundle's limits, once the manifest is made."""
    if len(files[MANIFEST]) > MAX_MANIFEST_BYTES:
        raise _too_large(run, MANIFEST, f"{len(files[MANIFEST])} bytes, over {MAX_MANIFEST_BYTES}")
    total = sum(len(data) for data in files.values())
    if total > MAX_TOTAL_BYTES:
        raise _too_large(run, "the bundle", f"{total} bytes, over {MAX_TOTAL_BYTES}")


def make_manifest(
    config: RunConfig, entrant: str, files: dict[str, bytes], repository: str, now: datetime
) -> BundleManifest:
    return BundleManifest(
        entrant=entrant,
        run_id=config.run_id,
        target_dir=target_dir(entrant, config.run_id),
        repository=repository,
        task_set_hash=config.task_set.content_hash,
        split=config.task_set.split,
        suite=config.task_set.suite,
        harness_version=config.harness_version,
        created_at=iso_z(now),
        config_fingerprint=config.fingerprint(),
        files=[
            ManifestFile(path=name, sha256=sha256_hex(data), size=len(data))
            for name, data in sorted(files.items())
        ],
    )


def manifest_bytes(manifest: BundleManifest) -> bytes:
    return rfc8785.dumps(manifest.model_dump(mode="json"))


def _check_run(run: RunDir, entrant: str, allow_partial: bool) -> RunConfig:
    config = run.config()
    status = run.status()
    if status.status == "started":
        raise RunStoreError(
            "the run has not finished (status 'started'): it is still running, or was stopped; "
            "let it finish, or `bench run --resume` it",
            code="RUN_INCOMPLETE",
            path=run.path / "status.json",
        )
    if status.status == "partial" and not allow_partial:
        raise RunStoreError(
            f"the run is partial ({status.partial_reason}); resume it, or pass --allow-partial",
            code="RUN_PARTIAL",
            path=run.path / "status.json",
        )
    if config.entrant != entrant:
        raise InputError(
            f"the run's entrant is '{config.entrant}', not '{entrant}'",
            code="ENTRANT_MISMATCH",
            path=run.path / "config.json",
            field="entrant",
        )
    _refuse_shown_names(run, config)
    return config


def _refuse_shown_names(run: RunDir, config: RunConfig) -> None:
    """``BUNDLE_NAME_INVALID`` for a name the run shows (its display name, its model) that
    ``bench verify`` refuses (``TEXT_INVALID``, ``NAME_LOOKALIKE``): signed, the bundle could
    only fail on its pull request."""
    for field, name in run_names(config.display_name, config.comparable):
        refusal = name_refusal(field, name)
        if refusal is not None:
            code, problem = refusal
            again = "display name" if field == "display_name" else "model name"
            raise InputError(
                f"the board would show {name!a}, which {problem}: bench verify refuses it "
                f"({code}), so it is not signed; re-run under another {again}",
                code="BUNDLE_NAME_INVALID",
                path=run.path / "config.json",
                field=field,
            )


def build_bundle(
    run: RunDir,
    *,
    entrant: str,
    key_file: Path,
    out_root: Path,
    allowed_signers: Path,
    repository: str = DEFAULT_REPOSITORY,
    allow_partial: bool = False,
    now: datetime | None = None,
) -> Path:
    """Write ``out_root/<entrant>/<run_id>/``; returns its path."""
    key = load_private_key(key_file)
    registered = AllowedSigners.read(allowed_signers).require(entrant)
    if public_blob(key.public_key()) not in registered:
        raise SignersError(
            f"this key is not the one registered for '{entrant}'",
            code="KEY_NOT_REGISTERED",
            path=key_file,
        )
    config = _check_run(run, entrant, allow_partial)
    destination = out_root / entrant / config.run_id
    if destination.exists():
        raise RunStoreError(
            "a bundle for this run exists; bundles are never overwritten",
            code="BUNDLE_EXISTS",
            path=destination,
        )
    files = payload(run, config)
    manifest = manifest_bytes(make_manifest(config, entrant, files, repository, now or utc_now()))
    files[MANIFEST] = manifest
    files[SIGNATURE] = sign(manifest, key).encode("ascii")
    _refuse_oversize_bundle(run, files)
    made = _missing_parents(destination)
    try:
        destination.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".tmp-bundle-", dir=destination.parent))
    except BaseException:
        _remove_empty(made)
        raise
    try:
        for name, data in files.items():
            write_once(staging / name, data)
        if destination.exists():
            raise FileExistsError(destination)
        try:
            os.rename(staging, destination)
        except OSError as exc:
            if exc.errno in (errno.EEXIST, errno.ENOTEMPTY) or destination.exists():
                raise FileExistsError(destination) from None
            raise
    except FileExistsError:
        raise RunStoreError(
            "a bundle for this run appeared meanwhile; bundles are never overwritten",
            code="BUNDLE_EXISTS",
            path=destination,
        ) from None
    except OSError as exc:
        # A full or read-only disk is said as it is (IO_ERROR, bench.cli.main), naming the
        # bundle it could not write; it was taken for "a bundle appeared meanwhile".
        # A file of the staging directory (named by bench.core.atomic) is a name the user
        # never sees: the bundle is named instead.
        if exc.filename is None or str(exc.filename).startswith(str(staging)):
            exc.filename, exc.filename2 = str(destination), None
        raise
    finally:
        with contextlib.suppress(FileNotFoundError):
            shutil.rmtree(staging)
        if not destination.is_dir():
            # Nothing half-written is nothing at all: the OUT/<entrant>/ this call made goes.
            _remove_empty(made)
    return destination


def _missing_parents(destination: Path) -> list[Path]:
    """The ancestors of ``destination`` that do not exist yet, deepest first."""
    missing = []
    parent = destination.parent
    while not parent.exists() and not parent.is_symlink() and parent != parent.parent:
        missing.append(parent)
        parent = parent.parent
    return missing


def _remove_empty(directories: list[Path]) -> None:
    """Remove the directories this call made (deepest first) while they are empty."""
    for directory in directories:
        try:
            directory.rmdir()
        except OSError:
            return


__all__ = [
    "DEFAULT_REPOSITORY",
    "build_bundle",
    "deterministic_gzip",
    "make_manifest",
    "manifest_bytes",
    "payload",
    "portable_config",
    "portable_record",
    "scrub_target",
]
