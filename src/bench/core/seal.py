"""Sealed cache files: a file's bytes with an HMAC-SHA256 tag over them and over the name it
is kept under, so that a directory anyone may have written can still be read safely.

The board's cache (``bench board build --cache DIR --cache-key-env VAR``) keeps verified
entries and provenance digests; whoever can write an unsealed cache can put any row on the
board. With a key, each file is ``bench-sealed/1 <hex tag>\\n`` then its body, the tag
``HMAC-SHA256(key, name \\0 body)``: a file without the tag, with another tag, or moved under
another name (another bundle's key) does not unseal, and the reader treats it as a miss
(docs/DECISIONS.md, 42). The key is a secret of whoever builds the board; it never enters a
file, an error message or a ``repr``.
"""

from __future__ import annotations

import hashlib
import hmac

MAGIC = b"bench-sealed/1 "
MIN_KEY_BYTES = 32
"""A key shorter than this is refused (``CACHE_KEY_WEAK``): 32 bytes is HMAC-SHA256's own
output size, and a random key of that length cannot be guessed."""


class SealKey:
    """An HMAC key that does not show itself (``repr`` and ``str`` give its length only)."""

    __slots__ = ("_key",)

    def __init__(self, key: bytes) -> None:
        if len(key) < MIN_KEY_BYTES:
            raise ValueError(f"a seal key needs at least {MIN_KEY_BYTES} bytes, got {len(key)}")
        self._key = bytes(key)

    def __repr__(self) -> str:
        return f"SealKey(<{len(self._key)} bytes>)"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SealKey) and hmac.compare_digest(self._key, other._key)

    def __hash__(self) -> int:
        return hash(hashlib.sha256(b"seal-key\0" + self._key).digest())

    def __reduce__(self) -> tuple[type[SealKey], tuple[bytes]]:
        # A worker process of the board's pool gets the key through the pool's own pipe.
        return (SealKey, (self._key,))

    def tag(self, name: str, body: bytes) -> bytes:
        mac = hmac.new(self._key, name.encode("utf-8", "surrogateescape") + b"\0", "sha256")
        mac.update(body)
        return mac.hexdigest().encode("ascii")


def seal(key: SealKey | None, name: str, body: bytes) -> bytes:
    """``body`` as it is kept under ``name``: unchanged without a key, tagged with one."""
    if key is None:
        return body
    return MAGIC + key.tag(name, body) + b"\n" + body


def unseal(key: SealKey | None, name: str, raw: bytes) -> bytes:
    """The body of a file kept under ``name``; without a key, the bytes as they are. With a
    key, ``ValueError`` unless the file carries the tag of this key, name and body."""
    if key is None:
        return raw
    head, newline, body = raw.partition(b"\n")
    if not newline or not head.startswith(MAGIC):
        raise ValueError("not sealed")
    if not hmac.compare_digest(head[len(MAGIC) :], key.tag(name, body)):
        raise ValueError("sealed with another key, or under another name")
    return body


__all__ = ["MAGIC", "MIN_KEY_BYTES", "SealKey", "seal", "unseal"]
