"""On-disk formats (run config, status, attempts, cassette) and the run store."""

from .bundle import BundleManifest, ManifestFile
from .run import (
    AttemptKey,
    AttemptRecord,
    RunConfig,
    RunState,
    RunStatus,
    TaskSetRef,
    TaskSubset,
    attempt_filename,
)
from .store import CASSETTE, RunDir, RunStore

__all__ = [
    "BundleManifest",
    "ManifestFile",
    "CASSETTE",
    "AttemptKey",
    "AttemptRecord",
    "RunConfig",
    "RunDir",
    "RunState",
    "RunStatus",
    "RunStore",
    "TaskSetRef",
    "TaskSubset",
    "attempt_filename",
]
