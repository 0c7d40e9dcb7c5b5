"""On-disk formats (run config, status, attempts, cassette) and the run store.

``BundleManifest`` and ``ManifestFile`` come from ``records.bundle`` when first asked for: a
run never builds a manifest, and their pydantic classes are about 7 ms of its imports."""

from typing import TYPE_CHECKING

from bench.core.lazy import lazy_exports

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

if TYPE_CHECKING:
    from .bundle import BundleManifest, ManifestFile

__getattr__ = lazy_exports(
    __name__, {"BundleManifest": "bundle", "ManifestFile": "bundle"}, globals()
)

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
