"""The request side of an exchange's record, made once per message: an attempt's requests
repeat every earlier message and every tool, so each message's and tool's JSON form and
canonical bytes are made once per attempt and reused by every later request of it.

``RequestRecorder.wire(request)`` returns exactly ``request.wire()`` (the same dict, key for
key and in the same order) and exactly ``request.request_hash()``: the hash is the SHA-256 of
canonical JSON put together from the parts' canonical bytes, which is byte for byte
``canonical_json(request.wire())``, because canonical JSON sorts the keys of each object on
its own (``messages`` < ``model`` < ``params`` < ``tools``). A property test holds both equal
on generated requests (tests/runner/test_recording.py), so cassettes match across versions.

The parts are shared between the exchanges of one attempt (the same dict for the same
message); a record is never changed after it is made, so nothing can tell.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from bench.core.canonical import canonical_json, sha256_hex
from bench.core.trace import ToolDef
from bench.targets.base import ModelRequest


class RequestRecorder:
    """Per attempt: the wire form and hash of each request, built from cached parts."""

    __slots__ = ("_last", "_parts")

    def __init__(self) -> None:
        # id(part) -> (the part itself, kept alive so its id stays its own; wire; canonical)
        self._parts: dict[int, tuple[BaseModel, dict[str, Any], bytes]] = {}
        # The last request and what was made of it: a re-drive asks for a request's hash
        # (to match the recording) and then records the same request object.
        self._last: tuple[ModelRequest, tuple[dict[str, Any], str]] | None = None

    def offer(self, items: list[ToolDef], parts: list[tuple[dict[str, Any], bytes]]) -> None:
        """``items``' parts, already made (``World.tool_parts``: once per task): what
        ``_part`` would make of each, as the world made it from the same JSON."""
        for item, (wire, canonical) in zip(items, parts, strict=True):
            if id(item) not in self._parts:
                self._parts[id(item)] = (item, wire, canonical)

    def _part(self, item: BaseModel) -> tuple[dict[str, Any], bytes]:
        known = self._parts.get(id(item))
        if known is None or known[0] is not item:
            wire = item.model_dump(mode="json")
            known = (item, wire, canonical_json(wire))
            self._parts[id(item)] = known
        return known[1], known[2]

    def wire(self, request: ModelRequest) -> tuple[dict[str, Any], str]:
        """``(request.wire(), request.request_hash())``, from cached parts (the same pair
        again for the request just made, which nothing changes in between)."""
        if self._last is not None and self._last[0] is request:
            return self._last[1]
        messages = [self._part(message) for message in request.messages]
        tools = [self._part(tool) for tool in request.tools]
        params = to_jsonable_python(request.params)
        wire = {
            "model": request.model,
            "messages": [part for part, _ in messages],
            "tools": [part for part, _ in tools],
            "params": params,
        }
        canonical = b"".join(
            (
                b'{"messages":[',
                b",".join(bytes_ for _, bytes_ in messages),
                b'],"model":',
                canonical_json(request.model),
                b',"params":',
                canonical_json(params),
                b',"tools":[',
                b",".join(bytes_ for _, bytes_ in tools),
                b"]}",
            )
        )
        made = (wire, sha256_hex(canonical))
        self._last = (request, made)
        return made


__all__ = ["RequestRecorder"]
