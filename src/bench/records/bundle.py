"""A bundle: a run packed for a pull request, ``results/<entrant>/<run_id>/``.

    manifest.json         BundleManifest as RFC 8785 canonical bytes (the one signed thing)
    manifest.json.sig     SSHSIG over manifest.json, namespace bundle-v1@bench-suite
    config.json           the run's RunConfig
    status.json           the run's RunStatus
    attempts.jsonl.gz     every AttemptRecord, one canonical JSON line each, deterministic gzip
    cassette.jsonl        every model exchange
    target.json           the target as loaded, secrets removed

The manifest lists every file but itself and its signature with SHA-256 and size.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from bench.core.ids import ID_PATTERN
from bench.core.models import Strict
from bench.core.suite import SuiteRef

from .limits import (  # what a bundle may hold: plain numbers a run reads without this module
    GZIP_RATIO_FLOOR,
    MAX_ATTEMPT_LINES,
    MAX_CASSETTE_LINES,
    MAX_FILE_BYTES,
    MAX_FILES,
    MAX_GZIP_RATIO,
    MAX_LINE_BYTES,
    MAX_MANIFEST_BYTES,
    MAX_RECORD_BYTES,
    MAX_TOTAL_BYTES,
)

BUNDLE_FORMAT_VERSION: Literal[1] = 1
MANIFEST = "manifest.json"
SIGNATURE = "manifest.json.sig"
CONFIG = "config.json"
STATUS = "status.json"
ATTEMPTS = "attempts.jsonl.gz"
CASSETTE = "cassette.jsonl"
TARGET = "target.json"
PAYLOAD = (ATTEMPTS, CASSETTE, CONFIG, STATUS, TARGET)
HEX64 = r"^[0-9a-f]{64}$"
UTC_SECONDS = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"


class ManifestFile(Strict):
    path: str = Field(pattern=r"^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$", max_length=200)
    sha256: str = Field(pattern=HEX64)
    size: int = Field(ge=0, le=2**53 - 1)


class BundleManifest(Strict):
    """What the signature binds: the files, and where this bundle belongs."""

    format_version: Literal[1] = BUNDLE_FORMAT_VERSION
    entrant: str = Field(pattern=ID_PATTERN, max_length=64)
    run_id: str = Field(pattern=r"^\d{8}T\d{6}Z-[0-9a-f]{6}$")
    target_dir: str = Field(description="results/<entrant>/<run_id>, where the bundle must sit")
    repository: str = Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9._/-]+$")
    task_set_hash: str = Field(pattern=HEX64, description="content hash of the task set run")
    split: str | None = None
    suite: SuiteRef | None = Field(
        None,
        exclude_if=lambda value: value is None,
        description="the suite the task set belongs to (config.json's task_set.suite); absent "
        "in a bundle made before bundles named their suite: bench-suite",
    )
    harness_version: str = Field(min_length=1, max_length=40)
    created_at: str = Field(pattern=UTC_SECONDS, description="UTC, seconds, when bundled")
    config_fingerprint: str = Field(pattern=r"^[0-9a-f]{16}$")
    files: list[ManifestFile]


def target_dir(entrant: str, run_id: str) -> str:
    return f"results/{entrant}/{run_id}"


__all__ = [
    "ATTEMPTS",
    "GZIP_RATIO_FLOOR",
    "MAX_ATTEMPT_LINES",
    "MAX_CASSETTE_LINES",
    "MAX_FILES",
    "MAX_FILE_BYTES",
    "MAX_GZIP_RATIO",
    "MAX_LINE_BYTES",
    "MAX_MANIFEST_BYTES",
    "MAX_RECORD_BYTES",
    "MAX_TOTAL_BYTES",
    "BUNDLE_FORMAT_VERSION",
    "CASSETTE",
    "CONFIG",
    "MANIFEST",
    "PAYLOAD",
    "SIGNATURE",
    "STATUS",
    "TARGET",
    "BundleManifest",
    "ManifestFile",
    "target_dir",
]
