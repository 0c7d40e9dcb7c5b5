"""``bench bundle``: pack a finished run into ``results/<entrant>/<run_id>/`` and sign it.

Everything is checked before anything is written; the bundle is assembled in a temp
directory beside its destination and renamed into place, so it appears whole or not at all,
and an existing bundle directory is never replaced.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import re
import shutil
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import rfc8785

from bench.core.atomic import write_once
from bench.core.canonical import canonical_json, sha256_hex
from bench.core.clock import iso_z, utc_now
from bench.core.errors import InputError, RunStoreError
from bench.records.bundle import (
    ATTEMPTS,
    CASSETTE,
    CONFIG,
    MANIFEST,
    SIGNATURE,
    STATUS,
    TARGET,
    BundleManifest,
    ManifestFile,
    target_dir,
)
from bench.records.run import RunConfig
from bench.records.store import RunDir

from .allowed_signers import AllowedSigners
from .errors import SignersError
from .keys import load_private_key, public_blob
from .sshsig import sign

DEFAULT_REPOSITORY = "bench-suite"
_SECRET = re.compile(r"(api_?key|token|secret|password|passwd|authorization|cookie)", re.I)


def scrub_target(target: dict[str, Any]) -> dict[str, Any]:
    """The target without secrets: secret-looking fields dropped (``api_key_env`` names a
    variable and stays), URLs cut to ``scheme://host[:port]``."""
    clean: dict[str, Any] = {}
    for name, value in target.items():
        if _SECRET.search(name) and name != "api_key_env":
            continue
        if isinstance(value, dict):
            value = scrub_target(value)
        elif isinstance(value, str) and "://" in value:
            parts = urlsplit(value)
            value = f"{parts.scheme}://{parts.hostname or ''}" + (
                f":{parts.port}" if parts.port else ""
            )
        clean[name] = value
    return clean


def _pretty(value: Any) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True) + "\n").encode()


def deterministic_gzip(data: bytes) -> bytes:
    """gzip with mtime 0 and no file name: equal input, equal bytes."""
    return gzip.compress(data, compresslevel=9, mtime=0)


def payload(run: RunDir, config: RunConfig) -> dict[str, bytes]:
    """Every bundle file but the manifest and its signature."""
    records = sorted(run.attempts(), key=lambda r: (r.task_id, r.repeat))
    lines = b"".join(canonical_json(r.model_dump(mode="json")) + b"\n" for r in records)
    cassette = run.path / "cassette.jsonl"
    if not cassette.is_file():
        raise RunStoreError("the run has no cassette", code="RUN_CORRUPT", path=cassette)
    target = scrub_target(config.target)
    scrubbed = config.model_copy(update={"target": target})
    return {
        ATTEMPTS: deterministic_gzip(lines),
        CASSETTE: cassette.read_bytes(),
        CONFIG: _pretty(scrubbed.model_dump(mode="json")),
        STATUS: _pretty(run.status().model_dump(mode="json")),
        TARGET: _pretty(target),
    }


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
            "the run has not finished (status 'started'); resume it first",
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
    return config


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
    destination.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".tmp-bundle-", dir=destination.parent))
    try:
        for name, data in files.items():
            write_once(staging / name, data)
        if destination.exists():
            raise FileExistsError(destination)
        os.rename(staging, destination)
    except OSError:
        raise RunStoreError(
            "a bundle for this run appeared meanwhile; bundles are never overwritten",
            code="BUNDLE_EXISTS",
            path=destination,
        ) from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            shutil.rmtree(staging)
    return destination


__all__ = [
    "DEFAULT_REPOSITORY",
    "build_bundle",
    "deterministic_gzip",
    "make_manifest",
    "manifest_bytes",
    "payload",
    "scrub_target",
]
