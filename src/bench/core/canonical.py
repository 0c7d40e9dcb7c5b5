"""Canonical JSON and hashing: everything hashed or fingerprinted goes through here.

Keys sorted, no insignificant whitespace, UTF-8, no NaN or Infinity. Bundle manifests that
are signed use RFC 8785 bytes (the bundle issue); fingerprints only need a stable function.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_json(value: Any) -> bytes:
    """Stable bytes for a JSON-compatible value."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fingerprint(value: Any, length: int = 16) -> str:
    """A short, stable hash of a JSON-compatible value (hex, ``length`` characters)."""
    return sha256_hex(canonical_json(value))[:length]


__all__ = ["canonical_json", "fingerprint", "sha256_hex"]
