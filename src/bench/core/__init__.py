"""Foundations shared by every package: errors, canonical JSON, ids, time, atomic writes,
and the contracts every other package speaks (trace, verdict, score).

Names are imported on first use (PEP 562): importing one submodule (``bench.core.errors``, as
``bench --help`` does) does not import pydantic through ``bench.core.models``."""

from __future__ import annotations

from .lazy import lazy_exports

_WHERE: dict[str, str] = {
    "BenchError": "errors",
    "CassetteMiss": "errors",
    "EXCLUDED_OUTCOMES": "score",
    "EntrantError": "errors",
    "Exchange": "trace",
    "FAILING_OUTCOMES": "score",
    "FORMAT_VERSION": "models",
    "HarnessFault": "errors",
    "ID_PATTERN": "ids",
    "InputError": "errors",
    "Interval": "score",
    "Message": "trace",
    "OUTCOMES": "score",
    "Outcome": "score",
    "RunStoreError": "errors",
    "Score": "score",
    "Strict": "models",
    "TaskScore": "score",
    "ToolCall": "trace",
    "ToolCallRequest": "trace",
    "ToolDef": "trace",
    "Trace": "trace",
    "Usage": "trace",
    "UsageError": "errors",
    "Verdict": "score",
    "canonical_json": "canonical",
    "fingerprint": "canonical",
    "is_valid_id": "ids",
    "iso_z": "clock",
    "new_run_id": "ids",
    "sha256_hex": "canonical",
    "utc_now": "clock",
    "write_atomic": "atomic",
    "write_once": "atomic",
}


__getattr__ = lazy_exports(__name__, _WHERE, globals())


__all__ = [
    "EXCLUDED_OUTCOMES",
    "FAILING_OUTCOMES",
    "FORMAT_VERSION",
    "ID_PATTERN",
    "OUTCOMES",
    "BenchError",
    "CassetteMiss",
    "EntrantError",
    "Exchange",
    "HarnessFault",
    "InputError",
    "Interval",
    "Message",
    "Outcome",
    "RunStoreError",
    "Score",
    "Strict",
    "TaskScore",
    "ToolCall",
    "ToolCallRequest",
    "ToolDef",
    "Trace",
    "Usage",
    "UsageError",
    "Verdict",
    "canonical_json",
    "fingerprint",
    "is_valid_id",
    "iso_z",
    "new_run_id",
    "sha256_hex",
    "utc_now",
    "write_atomic",
    "write_once",
]
