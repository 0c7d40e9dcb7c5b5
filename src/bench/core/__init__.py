"""Foundations shared by every package: errors, canonical JSON, ids, time, atomic writes,
and the contracts every other package speaks (trace, verdict, score)."""

from .atomic import write_atomic, write_once
from .canonical import canonical_json, fingerprint, sha256_hex
from .clock import iso_z, utc_now
from .errors import (
    BenchError,
    CassetteMiss,
    EntrantError,
    HarnessFault,
    InputError,
    RunStoreError,
    UsageError,
)
from .ids import ID_PATTERN, is_valid_id, new_run_id
from .models import FORMAT_VERSION, Strict
from .score import (
    EXCLUDED_OUTCOMES,
    FAILING_OUTCOMES,
    OUTCOMES,
    Interval,
    Outcome,
    Score,
    TaskScore,
    Verdict,
)
from .trace import Exchange, Message, ToolCall, ToolCallRequest, ToolDef, Trace, Usage

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
