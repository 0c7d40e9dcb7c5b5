"""Throw-away signing keys for tests, demos and examples: never a maintainer's key."""

from __future__ import annotations

from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


def write_private_key(path: Path, key: Ed25519PrivateKey | None = None) -> Ed25519PrivateKey:
    """Write ``key`` (a new one when None) to ``path`` as an unencrypted OpenSSH private key,
    readable by its owner only, as ``ssh-keygen`` writes one; the key."""
    from bench.core.atomic import write_atomic

    key = key if key is not None else Ed25519PrivateKey.generate()
    # atomically, into a temp file made 0600 (``private``): write_bytes then chmod left the
    # key readable by all for a moment, and half a key on a full disk (the old one gone)
    write_atomic(
        path,
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.OpenSSH,
            serialization.NoEncryption(),
        ),
        private=True,
    )
    return key


__all__ = ["write_private_key"]
