"""SSH signatures (OpenSSH PROTOCOL.sshsig), Ed25519 only.

Blob:        "SSHSIG" | uint32 1 | string publickey | string namespace | string reserved
             | string hash_algorithm | string signature
Signed data: "SSHSIG" | string namespace | string reserved | string hash_algorithm
             | string H(message)
Armour:      -----BEGIN SSH SIGNATURE----- / base64 of the blob at 70 columns / -----END ...

``ssh-keygen -Y sign`` and ``-Y verify`` read and write exactly this, so a bundle can be
checked with no code of ours.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from . import wire
from .errors import SignatureError
from .keys import KEY_TYPE, blob_type, public_blob, public_from_blob

MAGIC = b"SSHSIG"
VERSION = 1
HASH_ALGORITHM = "sha512"
NAMESPACE = "bundle-v1@bench-suite"
BEGIN = "-----BEGIN SSH SIGNATURE-----"
END = "-----END SSH SIGNATURE-----"
MAX_ARMOURED = 16 * 1024


@dataclass(frozen=True)
class SshSig:
    public_key: bytes
    namespace: str
    reserved: bytes
    hash_algorithm: str
    signature: bytes


def signed_data(message: bytes, namespace: str, hash_algorithm: str = HASH_ALGORITHM) -> bytes:
    digest = hashlib.new(hash_algorithm, message).digest()
    return (
        MAGIC
        + wire.string(namespace)
        + wire.string(b"")
        + wire.string(hash_algorithm)
        + wire.string(digest)
    )


def sign(message: bytes, key: Ed25519PrivateKey, namespace: str = NAMESPACE) -> str:
    """The armoured signature of ``message`` (what ``ssh-keygen -Y sign`` writes)."""
    if not namespace:
        raise ValueError("a signature needs a namespace")
    raw = key.sign(signed_data(message, namespace))
    blob = (
        MAGIC
        + wire.uint32(VERSION)
        + wire.string(public_blob(key.public_key()))
        + wire.string(namespace)
        + wire.string(b"")
        + wire.string(HASH_ALGORITHM)
        + wire.string(wire.string(KEY_TYPE) + wire.string(raw))
    )
    return armour(blob)


def parse(armoured: str, path: str | Path | None = None) -> SshSig:
    """Decode an armoured signature; anything unexpected is ``SignatureError(malformed)``."""

    def bad(why: str) -> SignatureError:
        return SignatureError(f"malformed SSH signature: {why}", reason="malformed", path=path)

    if len(armoured) > MAX_ARMOURED:
        raise bad("too large")
    lines = armoured.strip().splitlines()
    if len(lines) < 3 or lines[0].strip() != BEGIN or lines[-1].strip() != END:
        raise bad(f"expected {BEGIN} ... {END}")
    try:
        blob = base64.b64decode("".join(line.strip() for line in lines[1:-1]), validate=True)
    except (binascii.Error, ValueError):
        raise bad("not base64") from None
    reader = wire.Reader(blob)
    try:
        if reader.raw(6) != MAGIC:
            raise bad("no SSHSIG preamble")
        if reader.uint32() != VERSION:
            raise bad(f"version is not {VERSION}")
        sig = SshSig(
            public_key=reader.string(),
            namespace=reader.string().decode("utf-8"),
            reserved=reader.string(),
            hash_algorithm=reader.string().decode("ascii"),
            signature=reader.string(),
        )
    except (ValueError, UnicodeDecodeError):
        raise bad("truncated or not text where text belongs") from None
    if not reader.done():
        raise bad("trailing bytes")
    if armoured != armour(blob):  # the one unhashed file: no byte of it may vary
        raise bad("not in the canonical armour (70-column base64, one trailing newline)")
    return sig


def armour(blob: bytes) -> str:
    """The armoured form ``sign`` writes and ``ssh-keygen -Y sign`` writes: base64 at 70
    columns between the BEGIN and END lines, one trailing newline."""
    encoded = base64.b64encode(blob).decode("ascii")
    lines = [encoded[i : i + 70] for i in range(0, len(encoded), 70)]
    return "\n".join([BEGIN, *lines, END]) + "\n"


def verify(
    message: bytes,
    armoured: str,
    allowed_keys: Iterable[bytes],
    namespace: str = NAMESPACE,
    path: str | Path | None = None,
) -> bytes:
    """Check ``armoured`` over ``message`` in ``namespace`` by one of ``allowed_keys`` (wire
    blobs). Returns the signing key's blob; raises ``SignatureError`` with a ``reason``."""
    sig = parse(armoured, path)
    if sig.namespace != namespace:
        raise SignatureError(
            f"signed for namespace '{sig.namespace}', expected '{namespace}'",
            reason="namespace",
            path=path,
        )
    if sig.hash_algorithm not in ("sha512", "sha256"):
        raise SignatureError(
            f"unsupported hash algorithm '{sig.hash_algorithm}'", reason="hash", path=path
        )
    if blob_type(sig.public_key) != KEY_TYPE:
        raise SignatureError(
            f"signed with a {blob_type(sig.public_key) or 'unreadable'} key; only {KEY_TYPE}",
            reason="key_type",
            path=path,
        )
    if sig.public_key not in set(allowed_keys):
        raise SignatureError(
            "signed by a key that is not registered for this entrant", reason="wrong_key", path=path
        )
    try:
        public = public_from_blob(sig.public_key)
        reader = wire.Reader(sig.signature)
        if reader.string() != KEY_TYPE.encode():
            raise ValueError("signature type is not ssh-ed25519")
        raw = reader.string()
        if not reader.done():
            raise ValueError("trailing bytes in the signature")
        public.verify(raw, signed_data(message, sig.namespace, sig.hash_algorithm))
    except (ValueError, InvalidSignature):
        raise SignatureError(
            "the signature does not match the signed file", reason="bad", path=path
        ) from None
    return sig.public_key


__all__ = ["HASH_ALGORITHM", "NAMESPACE", "SshSig", "parse", "sign", "signed_data", "verify"]
