"""Typed errors of the signing layer.

Every one is an ``InputError`` (a file we were handed is bad) with a stable code. A failed
signature check also carries a ``reason`` so the verifier can name the exact failure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from bench.core.errors import InputError

SignatureReason = Literal[
    "malformed", "namespace", "hash", "key_type", "unknown_principal", "wrong_key", "bad"
]


class KeyError_(InputError):
    """A key file is unreadable, encrypted, or not an OpenSSH key."""

    default_code = "KEY_INVALID"


class SignersError(InputError):
    """An ``allowed_signers`` file breaks a lint rule, or lacks the principal asked for."""

    default_code = "SIGNERS_INVALID"


class SignatureError(InputError):
    """A signature does not verify; ``reason`` says why."""

    default_code = "SIGNATURE_INVALID"

    def __init__(
        self,
        message: str,
        *,
        reason: SignatureReason,
        path: str | Path | None = None,
        field: str | None = None,
    ) -> None:
        self.reason: SignatureReason = reason
        super().__init__(message, path=path, field=field)


__all__ = ["KeyError_", "SignatureError", "SignatureReason", "SignersError"]
