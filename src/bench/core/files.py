"""Reading structured input strictly: YAML (safe, no duplicate keys, no anchors) and JSON.

Every failure is an ``InputError`` naming the file (and line, where the parser knows it).
"""

from __future__ import annotations

import errno
import functools
import json
import os
import stat
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import yaml

from .errors import InputError

MAX_INPUT_BYTES = 32 * 1024 * 1024
MERGE_TAG = "tag:yaml.org,2002:merge"


# libyaml's parser when PyYAML was built with it (14x faster on task files); same semantics.
_SafeBase: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrictLoader(_SafeBase):  # type: ignore[misc]
    """SafeLoader that refuses duplicate keys and anchors/aliases."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        if key_node.tag == MERGE_TAG:  # ``<<:``, which no JSON reader knows either
            mark = key_node.start_mark
            raise yaml.constructor.ConstructorError(
                None, None, "a merge key '<<' is not allowed: write the keys out", mark
            )
        key = loader.construct_object(key_node)
        if not isinstance(key, Hashable):  # ``? [a]`` or ``? {a: 1}``: no JSON object has one
            mark = key_node.start_mark
            raise yaml.constructor.ConstructorError(
                None, None, f"a mapping key must be a scalar (line {mark.line + 1})", mark
            )
        if key in seen:
            mark = key_node.start_mark
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key '{key}' (line {mark.line + 1})", mark
            )
        seen.add(key)
    mapping: dict[Any, Any] = loader.construct_mapping(node)
    return mapping


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)

# What follows builds the same values as ``yaml.load(text, Loader=_StrictLoader)`` in about
# 0.6x its CPU time (parsing the shipped tasks: 80 -> 47 ms; issue 19, bench_task_load.py).
# It is only ever used for a document it builds without any exception; for anything else the
# strict loader reads the text again, so every refusal keeps its words and line.

_STR, _MAP, _SEQ = (f"tag:yaml.org,2002:{name}" for name in ("str", "map", "seq"))


# _StrictLoader's resolver: its tables are Resolver's, and it has no path resolvers, so a node's
# tag is a pure function of (kind, value, implicit) (tests/core/test_files_yaml.py checks).
_RESOLVER = yaml.resolver.Resolver()


@functools.lru_cache(maxsize=4096)
def _resolve(kind: type[yaml.Node], value: str | None, implicit: Any) -> str:
    # Cached because libyaml calls back into Python for every node, and keys such as "type" or
    # "id" repeat throughout a task set.
    tag: str = _RESOLVER.resolve(kind, value, implicit)  # type: ignore[no-untyped-call]
    return tag


class _CachedLoader(_StrictLoader):
    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.resolve = _resolve


class _Duplicate(Exception):
    """A mapping with fewer keys than key nodes: let the strict loader name the duplicate."""


def _build(loader: _CachedLoader, node: yaml.Node) -> Any:
    # Strings, mappings and sequences directly (most of a task file); any other node through
    # the loader's own constructors. A tree: the text has no anchors (read_yaml checks first).
    kind, tag = node.__class__, node.tag
    if kind is yaml.ScalarNode:
        if tag == _STR:
            return node.value
    elif kind is yaml.MappingNode:
        if tag == _MAP:
            mapping = {_build(loader, key): _build(loader, value) for key, value in node.value}
            if len(mapping) != len(node.value):
                raise _Duplicate
            return mapping
    elif tag == _SEQ:
        return [_build(loader, item) for item in node.value]
    return loader.construct_object(node, deep=True)


def _load(text: str) -> Any:
    """What ``yaml.load(text, Loader=_StrictLoader)`` returns, or the exception it raises."""
    loader = _CachedLoader(text)
    try:
        node = loader.get_single_node()
        return None if node is None else _build(loader, node)
    except Exception:
        pass  # the strict loader, below, says what is wrong in its own words
    finally:
        loader.dispose()
    return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass


def _read_bounded(path: Path) -> bytes:
    """A regular file's bytes, refused unread when larger than ``MAX_INPUT_BYTES``. A FIFO is
    opened without waiting for a writer and refused, as is a device or a socket: reading one
    would block for ever (a FIFO) or never end (``/dev/zero``)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(info.st_mode):
            raise InputError(
                "not a regular file (a FIFO, socket or device): give a file",
                code="FILE_TYPE",
                path=path,
            )
        if info.st_size > MAX_INPUT_BYTES:
            raise InputError(
                f"larger than {MAX_INPUT_BYTES} bytes", code="FILE_TOO_LARGE", path=path
            )
        with open(fd, "rb", closefd=False) as stream:
            return stream.read(MAX_INPUT_BYTES + 1)
    finally:
        os.close(fd)


def _read_text(path: Path) -> str:
    try:
        data = _read_bounded(path)
    except FileNotFoundError:
        raise InputError("file not found", code="FILE_MISSING", path=path) from None
    except IsADirectoryError:
        raise InputError(
            "is a directory, expected a file", code="FILE_MISSING", path=path
        ) from None
    if len(data) > MAX_INPUT_BYTES:
        raise InputError(f"larger than {MAX_INPUT_BYTES} bytes", code="FILE_TOO_LARGE", path=path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 (byte {exc.start})", code="FILE_ENCODING", path=path) from None


def read_yaml(path: Path) -> Any:
    text = _read_text(path)
    try:
        # An anchor is spelled '&name' and an alias '*name': text with neither has none, and
        # skips the event scan (a second parse of the whole file).
        if "&" in text or "*" in text:
            loader = _StrictLoader(text)
            try:
                if _has_alias(loader):
                    raise InputError(
                        "anchors and aliases are not allowed (nor a merge key '<<: *name'): "
                        "write the values out",
                        code="YAML_INVALID",
                        path=path,
                    )
            finally:
                loader.dispose()
        return _load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError(
            f"{where}malformed YAML: {problem}", code="YAML_INVALID", path=path
        ) from None


def _has_alias(loader: _StrictLoader) -> bool:
    while loader.check_event():
        event = loader.get_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            return True
    return False


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key '{key}'")
        result[key] = value
    return result


def _no_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name} is not allowed")


def read_json(path: Path) -> Any:
    text = _read_text(path)
    return parse_json(text, path)


def parse_json(text: str, path: Path | str) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"line {exc.lineno} column {exc.colno}: malformed JSON: {exc.msg}",
            code="JSON_INVALID",
            path=path,
        ) from None
    except ValueError as exc:
        raise InputError(f"malformed JSON: {exc}", code="JSON_INVALID", path=path) from None
    except RecursionError:
        # json's decoder recurses once per nested array or object (``[[[[...``); libyaml
        # refuses the same input as "exceeded maximum nesting depth".
        raise InputError(
            "malformed JSON: nested too deeply", code="JSON_INVALID", path=path
        ) from None


def read_structured(path: Path) -> Any:
    """YAML for ``.yaml``/``.yml``, JSON for ``.json``."""
    if path.suffix in {".yaml", ".yml"}:
        return read_yaml(path)
    if path.suffix == ".json":
        return read_json(path)
    raise InputError("expected a .yaml, .yml or .json file", code="FILE_TYPE", path=path)


__all__ = ["parse_json", "read_json", "read_structured", "read_yaml"]
