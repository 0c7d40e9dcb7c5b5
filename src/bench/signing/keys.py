"""Ed25519 keys in OpenSSH formats: private key files, public key lines, wire blobs."""

from __future__ import annotations

import base64
import binascii
from pathlib import Path

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from bench.core.diskerror import raise_if_disk

from . import wire
from .errors import KeyError_

KEY_TYPE = "ssh-ed25519"


def load_private_key(path: Path) -> Ed25519PrivateKey:
    """An unencrypted OpenSSH ed25519 private key (``ssh-keygen -t ed25519 -N ""``).

    Passphrase-protected keys are refused: decrypt a copy, or sign with ``ssh-keygen -Y sign``.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise_if_disk(exc, path)  # the disk, not the key: IO_ERROR
        raise KeyError_(f"cannot read the key: {exc.strerror}", path=path) from None
    if b"BEGIN OPENSSH PRIVATE KEY" not in data:
        raise KeyError_(
            "not an OpenSSH private key (-----BEGIN OPENSSH PRIVATE KEY-----)", path=path
        )
    try:
        key = serialization.load_ssh_private_key(data, password=None)
    except TypeError:
        raise KeyError_(
            "the key is passphrase-protected; use an unencrypted ed25519 key "
            "(ssh-keygen -t ed25519 -N '') or sign with ssh-keygen -Y sign",
            path=path,
        ) from None
    except (ValueError, UnsupportedAlgorithm) as exc:
        raise KeyError_(f"unreadable OpenSSH private key: {exc}", path=path) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyError_(
            f"only {KEY_TYPE} keys are accepted, not {type(key).__name__}",
            code="KEY_TYPE",
            path=path,
        )
    return key


def public_blob(key: Ed25519PublicKey) -> bytes:
    """The wire encoding: string "ssh-ed25519", string key."""
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return wire.string(KEY_TYPE) + wire.string(raw)


def blob_type(blob: bytes) -> str:
    """The key type named at the start of a wire public key ("" when unreadable)."""
    try:
        return wire.Reader(blob).string().decode("ascii", "replace")
    except ValueError:
        return ""


def public_from_blob(blob: bytes) -> Ed25519PublicKey:
    """Decode an ed25519 wire public key; ``ValueError`` for anything else."""
    reader = wire.Reader(blob)
    if reader.string() != KEY_TYPE.encode():
        raise ValueError(f"not an {KEY_TYPE} key")
    raw = reader.string()
    if len(raw) != 32 or not reader.done():
        raise ValueError("malformed ed25519 public key")
    return Ed25519PublicKey.from_public_bytes(raw)


def public_line(key: Ed25519PublicKey) -> str:
    """``ssh-ed25519 AAAA...`` (no comment)."""
    return f"{KEY_TYPE} {base64.b64encode(public_blob(key)).decode()}"


def parse_public_text(key_type: str, b64: str) -> bytes:
    """The blob of a ``TYPE BASE64`` pair; ``ValueError`` when they disagree or are broken."""
    try:
        blob = base64.b64decode(b64.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise ValueError("the key is not valid base64") from None
    if blob_type(blob) != key_type:
        raise ValueError(f"the key data is not a {key_type} key")
    return blob


def read_public_key_file(path: Path) -> bytes:
    """The blob of an ``id_ed25519.pub`` style file; only ed25519."""
    try:
        text = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise_if_disk(exc, path)  # the disk, not the key: IO_ERROR
        raise KeyError_(f"cannot read the public key: {exc.strerror}", path=path) from None
    except UnicodeDecodeError as exc:
        raise KeyError_(f"cannot read the public key: {exc}", path=path) from None
    parts = text.split()
    if len(parts) < 2:
        raise KeyError_("expected 'ssh-ed25519 AAAA... [comment]'", path=path)
    if parts[0] != KEY_TYPE:
        raise KeyError_(
            f"only {KEY_TYPE} keys are accepted, not {parts[0]}", code="KEY_TYPE", path=path
        )
    try:
        blob = parse_public_text(parts[0], parts[1])
        public_from_blob(blob)
    except ValueError as exc:
        raise KeyError_(str(exc), path=path) from None
    return blob


__all__ = [
    "KEY_TYPE",
    "blob_type",
    "load_private_key",
    "parse_public_text",
    "public_blob",
    "public_from_blob",
    "public_line",
    "read_public_key_file",
]
