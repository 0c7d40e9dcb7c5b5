"""The SSH wire encoding (RFC 4251): ``uint32`` and length-prefixed ``string``."""

from __future__ import annotations

import struct


def uint32(value: int) -> bytes:
    return struct.pack(">I", value)


def string(value: bytes | str) -> bytes:
    data = value.encode("utf-8") if isinstance(value, str) else value
    return uint32(len(data)) + data


class Reader:
    """Reads wire values from a buffer; every overrun is a ``ValueError``."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.offset = 0

    def raw(self, size: int) -> bytes:
        end = self.offset + size
        if size < 0 or end > len(self.data):
            raise ValueError("truncated")
        chunk = self.data[self.offset : end]
        self.offset = end
        return chunk

    def uint32(self) -> int:
        value: int = struct.unpack(">I", self.raw(4))[0]
        return value

    def string(self) -> bytes:
        return self.raw(self.uint32())

    def done(self) -> bool:
        return self.offset == len(self.data)


__all__ = ["Reader", "string", "uint32"]
